// bpeforge: train byte-level BPE tokenizers and encode corpora with them.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <functional>
#include <new>
#include <string>

#include "cli/command_support.h"
#include "cli/count_command.h"
#include "cli/decode_command.h"
#include "cli/encode_command.h"
#include "cli/export_command.h"
#include "cli/ranks.h"
#include "cli/report_command.h"
#include "cli/train_command.h"

namespace {

// Under mpirun, MPI is started before the arguments are read (MPI_Init may take its own) and
// finished however main returns.
struct RanksScope {
  RanksScope(int* argc, char*** argv) { bpeforge::cli::ranks::Init(argc, argv); }
  ~RanksScope() { bpeforge::cli::ranks::Shutdown(); }
};

}  // namespace

int main(int argc, char** argv) {
  RanksScope ranks_scope(&argc, &argv);
  CLI::App app{"bpeforge: fast, exact byte-level BPE training and tokenization"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "bpeforge 0.1.0");
  // One line per error, naming the program, as batch logs and scripts expect.
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return std::string("bpeforge: error: ") + e.what() + " (see --help)\n";
  });
  std::function<int()> action;
  bpeforge::cli::AddTrainCommand(app, &action);
  bpeforge::cli::AddEncodeCommand(app, &action);
  bpeforge::cli::AddDecodeCommand(app, &action);
  bpeforge::cli::AddCountCommand(app, &action);
  bpeforge::cli::AddExportCommand(app, &action);
  bpeforge::cli::AddReportCommand(app, &action);
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    known = known || (argc > 1 && sub->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::fprintf(
        stderr,
        "bpeforge: error: unknown command \"%s\" (expected train, count, encode, decode, export or "
        "report; "
        "see --help)\n",
        bpeforge::cli::Printable(argv[1]).c_str());
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are 0; every usage error is 2, as for an unknown command, where
    // CLI11 has a number of its own for each kind (105, 106, 109...).
    return app.exit(e) == 0 ? 0 : 2;
  }
  const std::string command = argv[1];
  if (bpeforge::cli::ranks::Size() > 1 && command != "train" && command != "count") {
    if (bpeforge::cli::ranks::Leader()) {
      std::fprintf(stderr,
                   "bpeforge %s: error: runs as one process; under mpirun only train and count "
                   "share the work among ranks\n",
                   command.c_str());
    }
    return 2;
  }
  try {
    return action ? action() : 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "bpeforge %s: error: out of memory%s\n", command.c_str(),
                 bpeforge::cli::ranks::Size() > 1 ? " on one rank; stopping all" : "");
    bpeforge::cli::ranks::Abort(1);
    return 1;
  }
}
