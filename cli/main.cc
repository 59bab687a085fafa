// bpeforge: train byte-level BPE tokenizers and encode corpora with them.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <functional>

#include "cli/decode_command.h"
#include "cli/encode_command.h"
#include "cli/train_command.h"

int main(int argc, char** argv) {
  CLI::App app{"bpeforge: fast, exact byte-level BPE training and tokenization"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "bpeforge 0.1.0");
  std::function<int()> action;
  bpeforge::AddTrainCommand(app, &action);
  bpeforge::AddEncodeCommand(app, &action);
  bpeforge::AddDecodeCommand(app, &action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return action ? action() : 1;
}
