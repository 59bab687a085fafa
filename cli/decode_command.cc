#include "cli/decode_command.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "bpeforge/bpeforge.h"
#include "cli/command_support.h"
#include "cli/tokenizer_flags.h"

namespace bpeforge::cli {
namespace {

struct DecodeArgs {
  TokenizerFlags tokenizer;
  std::string ids_file;
  std::string dtype;  // empty: the sidecar's, else uint32
  std::string output;
};

int Fail(const absl::Status& status) { return cli::Fail("decode", status); }

int RunDecode(const DecodeArgs& args) {
  absl::StatusOr<Tokenizer> tokenizer = LoadTokenizer(args.tokenizer);
  if (!tokenizer.ok()) return Fail(tokenizer.status());
  DecodeFileOptions options;
  if (!args.dtype.empty()) {
    absl::StatusOr<IdType> id_type = ParseIdType(args.dtype);
    if (!id_type.ok()) return Fail(id_type.status());
    options.id_type = *id_type;
  }
  options.cancel = InstallStopSignals();
  if (!args.output.empty()) {
    if (absl::Status s = CheckWritableFile(args.output, "--output"); !s.ok()) return Fail(s);
    if (absl::Status s = CheckNotAnInput(args.output, "--output", TokenizerFiles(args.tokenizer));
        !s.ok()) {
      return Fail(s);
    }
    absl::Status s = tokenizer->DecodeFile(args.ids_file, options, args.output);
    return s.ok() ? 0 : Fail(s);
  }
  auto stdout_error = [] {
    return absl::UnavailableError(
        absl::StrCat("cannot write to standard output: ", std::strerror(errno)));
  };
  absl::Status s = tokenizer->DecodeFile(args.ids_file, options, [&](absl::string_view bytes) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), stdout) != bytes.size()) return stdout_error();
    return absl::OkStatus();
  });
  if (s.ok() && std::fflush(stdout) != 0) s = stdout_error();
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
  cmd->add_option("ids", args->ids_file,
                  "The ids file, or - for standard input (encode --output - | decode -); when "
                  "IDS.json (written by encode) is beside it, the file must match it: id type, "
                  "count and tokenizer")
      ->required();
  cmd->add_option("--dtype", args->dtype,
                  "Id type the file was written with: uint16 or uint32 (default: IDS.json's, "
                  "else uint32)")
      ->check(CLI::IsMember({"uint16", "uint32"}));
  cmd->add_option("--output,--out", args->output,
                  "Write the text here (whole or not at all, never over IDS) instead of "
                  "standard output");
  cmd->callback([args, action] {
    if (args->output == "-") args->output.clear();  // standard output, as without --output
    if (args->ids_file == "-") args->ids_file = "/dev/stdin";  // read whole, as other pipes
    *action = [args] { return RunDecode(*args); };
  });
}

}  // namespace bpeforge::cli
