#include "cli/export_command.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "bpeforge/bpeforge.h"
#include "cli/command_support.h"
#include "cli/progress.h"
#include "cli/tokenizer_flags.h"

namespace bpeforge::cli {
namespace {

struct ExportArgs {
  TokenizerFlags tokenizer;
  std::string out_dir;  // empty: the --tokenizer directory
};

int Fail(const absl::Status& status) { return cli::Fail("export", status); }

int RunExport(const ExportArgs& args) {
  const Stopwatch stopwatch;
  std::string out = args.out_dir;
  if (out.empty()) {
    if (args.tokenizer.dir.empty() || !std::filesystem::is_directory(args.tokenizer.dir)) {
      return Fail(absl::InvalidArgumentError(
          "--out is needed unless --tokenizer names a directory to export into"));
    }
    out = args.tokenizer.dir;
  }
  MadeDirectories made;  // removed again unless the export succeeds
  if (absl::Status s = MakeWritableDir(out, "--out", &made); !s.ok()) return Fail(s);
  absl::StatusOr<Tokenizer> tokenizer = LoadTokenizer(args.tokenizer);
  if (!tokenizer.ok()) return Fail(tokenizer.status());
  if (absl::Status s = tokenizer->Save(out); !s.ok()) return Fail(s);
  made.Keep();
  // The ids whose bytes an earlier ordinary id has, which the single-id formats leave out.
  absl::flat_hash_set<absl::string_view> seen, specials;
  for (const std::string& s : tokenizer->special_tokens()) specials.insert(s);
  size_t tokens = 0, left_out = 0;
  for (size_t id = 0; id < tokenizer->id_limit(); ++id) {
    const std::optional<absl::string_view> bytes = tokenizer->TokenBytes(static_cast<TokenId>(id));
    if (!bytes.has_value() || specials.contains(*bytes)) continue;
    ++tokens;
    if (!seen.insert(*bytes).second) ++left_out;
  }
  const double seconds = stopwatch.Seconds();
  std::printf(
      "wrote %s/{vocab.json,merges.txt,tokenizer.json,tokenizer.tiktoken,tiktoken.json,"
      "bpeforge.json}: %zu tokens + %zu special, pattern %s, in %.2f s\n",
      Printable(out).c_str(), tokens, tokenizer->special_tokens().size(),
      std::string(PatternName(tokenizer->pattern())).c_str(), seconds);
  if (left_out > 0) {
    std::printf(
        "note: %zu token(s) repeat an earlier token's bytes; tokenizer.json and "
        "tokenizer.tiktoken hold each byte string once, with its first id (the one encoding "
        "produces)\n",
        left_out);
  }
  return 0;
}

}  // namespace

void AddExportCommand(CLI::App& app, std::function<int()>* action) {
  auto args = std::make_shared<ExportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "export",
      "Write a tokenizer as GPT-2 vocab.json + merges.txt, Hugging Face tokenizer.json and "
      "tiktoken's tokenizer.tiktoken + tiktoken.json (`train` writes them all already; this "
      "converts directories trained before, and GPT-2 or tokenizer.json inputs).");
  AddTokenizerFlags(cmd, &args->tokenizer);
  cmd->add_option("--out,--output", args->out_dir,
                  "Output directory (default: the --tokenizer directory); all files are "
                  "written or none");
  cmd->callback([args, action] { *action = [args] { return RunExport(*args); }; });
}

}  // namespace bpeforge::cli
