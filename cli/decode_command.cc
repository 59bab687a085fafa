#include "cli/decode_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include "bpeforge/bpeforge.h"
#include "cli/tokenizer_flags.h"

namespace bpeforge::cli {
namespace {

struct DecodeArgs {
  TokenizerFlags tokenizer;
  std::string ids_file;
  std::string dtype = "uint32";
  std::string output;
};

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "bpeforge decode: error: %s\n", std::string(status.message()).c_str());
  return 1;
}

int RunDecode(const DecodeArgs& args) {
  absl::StatusOr<Tokenizer> tokenizer = LoadTokenizer(args.tokenizer);
  if (!tokenizer.ok()) return Fail(tokenizer.status());
  absl::StatusOr<IdType> id_type = ParseIdType(args.dtype);
  if (!id_type.ok()) return Fail(id_type.status());
  if (!args.output.empty()) {
    absl::Status s = tokenizer->DecodeFile(args.ids_file, *id_type, args.output);
    return s.ok() ? 0 : Fail(s);
  }
  absl::Status s = tokenizer->DecodeFile(args.ids_file, *id_type, [](absl::string_view bytes) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size()) {
      return absl::UnavailableError("cannot write to standard output");
    }
    return absl::OkStatus();
  });
  if (s.ok() && std::fflush(stdout) != 0) {
    s = absl::UnavailableError("cannot write to standard output");
  }
  return s.ok() ? 0 : Fail(s);
}

}  // namespace

void AddDecodeCommand(CLI::App& app, std::function<int()>* action) {
  auto args = std::make_shared<DecodeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "decode",
      "Turn a flat little-endian array of token ids back into text: the tokens' bytes, "
      "concatenated as they are (so decoding what `encode` wrote gives the input back).");
  AddTokenizerFlags(cmd, &args->tokenizer);
  cmd->add_option("ids", args->ids_file, "The ids file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--dtype", args->dtype, "Id type the file was written with: uint16 or uint32")
      ->check(CLI::IsMember({"uint16", "uint32"}))
      ->capture_default_str();
  cmd->add_option("--output", args->output,
                  "Write the text here (whole or not at all) instead of standard output");
  cmd->callback([args, action] { *action = [args] { return RunDecode(*args); }; });
}

}  // namespace bpeforge::cli
