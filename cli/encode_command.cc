#include "cli/encode_command.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "bpeforge/bpeforge.h"
#include "cli/command_support.h"
#include "cli/input_flags.h"
#include "cli/progress.h"
#include "cli/tokenizer_flags.h"

namespace bpeforge::cli {
namespace {

struct EncodeArgs {
  TokenizerFlags tokenizer;
  InputFlags input;
  std::string separator_token;
  std::string output;
  std::string dtype = "uint32";
  std::string threads = "0";
  std::string chunk_bytes = std::to_string(1 << 20);
  bool quiet = false;
};

int Fail(const absl::Status& status) { return cli::Fail("encode", status); }

int RunEncode(const EncodeArgs& args) {
  absl::StatusOr<uint64_t> threads = ParseDecimal(args.threads, "--threads", 0, 4096);
  if (!threads.ok()) return UsageFail(threads.status());
  absl::StatusOr<uint64_t> chunk =
      ParseDecimal(args.chunk_bytes, "--chunk-bytes", 1, uint64_t{1} << 40);
  if (!chunk.ok()) return UsageFail(chunk.status());
  absl::StatusOr<Tokenizer> tokenizer = LoadTokenizer(args.tokenizer);
  if (!tokenizer.ok()) return Fail(tokenizer.status());
  absl::StatusOr<IdType> id_type = ParseIdType(args.dtype);
  if (!id_type.ok()) return Fail(id_type.status());
  if (absl::Status s = CheckWritableFile(args.output, "--output"); !s.ok()) return Fail(s);
  const std::vector<std::string> outputs = {args.output, args.output + ".json"};  // and sidecar
  std::vector<std::string> not_text = TokenizerFiles(args.tokenizer);
  for (const std::string& output : outputs) {
    if (absl::Status s = CheckNotAnInput(output, "--output", not_text); !s.ok()) return Fail(s);
  }
  if (absl::Status s = CheckNotATerminal(args.output, "--output"); !s.ok()) return Fail(s);
  // A folder among the inputs may hold the tokenizer and an earlier run's ids: not text.
  not_text.insert(not_text.end(), outputs.begin(), outputs.end());
  absl::StatusOr<std::vector<std::string>> inputs = InputFiles(args.input, not_text, /*note=*/true);
  if (!inputs.ok()) return Fail(inputs.status());

  const Stopwatch stopwatch;
  auto seconds = [&] { return stopwatch.Seconds(); };
  Progress progress(!args.quiet);
  EncodeFilesOptions options;
  options.threads = static_cast<int>(*threads);
  options.chunk_bytes = *chunk;
  options.cancel = InstallStopSignals();
  options.id_type = *id_type;
  options.input = InputOptionsOf(args.input);
  options.separator_token = args.separator_token;
  options.progress = [&](uint64_t done, uint64_t total) {
    const double s = seconds();
    if (s < 1) return;  // short inputs get no progress lines
    progress.Update(
        total == 0  // standard input
            ? absl::StrFormat("encoding: %.0f MB read, %.0f MB/s", done / 1e6, done / 1e6 / s)
            : absl::StrFormat("encoding: %.0f / %.0f MB (%.0f%%), %.0f MB/s", done / 1e6,
                              total / 1e6, 100.0 * done / total, done / 1e6 / s));
  };
  absl::StatusOr<EncodeFilesStats> stats = tokenizer->EncodeFile(*inputs, args.output, options);
  progress.Finish();
  if (!stats.ok()) return Fail(stats.status());

  const double s = seconds();
  std::FILE* summary = SummaryStream(args.output);
  std::fprintf(summary,
               "read        %s\n"
               "tokens      %llu (%.2f bytes per token)\n"
               "time        %.2f s (%s, %.0f MB/s%s)\n"
               "peak memory %.0f MB\n"
               "wrote       %s (%s)\n",
               DescribeRead(stats->bytes, inputs->size(), stats->input).c_str(),
               static_cast<unsigned long long>(stats->tokens),
               stats->tokens > 0 ? static_cast<double>(stats->bytes) / stats->tokens : 0.0, s,
               ThreadsNote(stats->threads).c_str(), s > 0 ? stats->bytes / 1e6 / s : 0.0,
               StoredRate(stats->input, s).c_str(), PeakRssBytes() / 1e6,
               Printable(args.output).c_str(), args.dtype.c_str());
  if (uint64_t chunk = 0; absl::SimpleAtoi(args.chunk_bytes, &chunk)) {
    std::fputs(InputNotes(stats->input, chunk).c_str(), summary);
  }
  return 0;
}

}  // namespace

void AddEncodeCommand(CLI::App& app, std::function<int()>* action) {
  auto args = std::make_shared<EncodeArgs>();
  CLI::App* cmd = app.add_subcommand(
      "encode",
      "Encode UTF-8 text files into one flat little-endian array of token ids (loadable with "
      "numpy.memmap), in input order; each file and each JSON Lines record is encoded on its own.");
  AddTokenizerFlags(cmd, &args->tokenizer);
  AddInputFlags(cmd, &args->input,
                "UTF-8 text files, JSON Lines, folders or quoted globs, as for train; gzip, xz "
                "and zstd files are decompressed as they are read and - reads standard input "
                "(other pipes and /dev/stdin are read whole into memory)");
  cmd->add_option("--separator-token", args->separator_token,
                  "A special token of the tokenizer whose id goes between two documents (files "
                  "and JSON Lines records), e.g. '<|endoftext|>'");
  cmd->add_option("--output,--out", args->output,
                  "The ids file (written whole or not at all, never over an input), with a "
                  "sidecar OUTPUT.json that records the id type, the count and the tokenizer; "
                  "- (or a pipe, a device) gets the ids as they come, without the sidecar, and "
                  "the summary goes to standard error")
      ->required();
  cmd->add_option("--dtype", args->dtype, "Id type: uint16 (vocab of at most 65536) or uint32")
      ->check(CLI::IsMember({"uint16", "uint32"}))
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "Worker threads (default 0: all hardware threads)")
      ->capture_default_str();
  cmd->add_option("--chunk-bytes", args->chunk_bytes,
                  "Work unit of the parallel encoder (ids do not depend on it)")
      ->capture_default_str();
  cmd->add_flag("--quiet", args->quiet, "No progress lines on stderr");
  cmd->callback([args, action] {
    args->output = OutputPath(args->output);
    *action = [args] { return RunEncode(*args); };
  });
}

}  // namespace bpeforge::cli
