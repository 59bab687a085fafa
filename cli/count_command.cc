#include "cli/count_command.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "bpeforge/bpeforge.h"
#include "bpeforge/internal/front_ends.h"
#include "cli/command_support.h"
#include "cli/input_flags.h"
#include "cli/progress.h"
#include "cli/ranks.h"

namespace bpeforge::cli {
namespace {

struct CountArgs {
  InputFlags input;
  std::string out;
  std::vector<std::string> special_tokens;
  std::string pattern = "gpt2";
  std::string threads = "0";
  std::string chunk_bytes = std::to_string(4 << 20);
  bool merge = false;
  bool quiet = false;
};

int Fail(const absl::Status& status) { return cli::Fail("count", status); }

int Finish(const CountArgs& args, const std::vector<std::string>& inputs,
           const absl::StatusOr<CountedText>& counted, const std::vector<uint64_t>& rank_peaks,
           const Stopwatch& stopwatch);
int Summarize(const CountArgs& args, const std::vector<std::string>& inputs,
              const CountedText& counted, const std::vector<uint64_t>& rank_peaks,
              const Stopwatch& stopwatch);

int RunCount(const CountArgs& args) {
  const Stopwatch stopwatch;
  absl::StatusOr<uint64_t> threads = ParseDecimal(args.threads, "--threads", 0, 4096);
  if (!threads.ok()) return UsageFail(threads.status());
  absl::StatusOr<uint64_t> chunk =
      ParseDecimal(args.chunk_bytes, "--chunk-bytes", 1, uint64_t{1} << 40);
  if (!chunk.ok()) return UsageFail(chunk.status());
  TrainOptions options;
  options.special_tokens = args.special_tokens;
  options.input = InputOptionsOf(args.input);
  absl::StatusOr<std::vector<std::string>> inputs =
      InputFiles(args.input, {args.out}, ranks::Leader(), args.merge);
  if (!inputs.ok()) return Fail(inputs.status());
  // A count file is read whole: - is standard input, as the pipe /dev/stdin.
  if (args.merge) std::replace(inputs->begin(), inputs->end(), kStdin, kDevStdin);
  if (absl::Status s = ParsePatternFlag(args.pattern, &options.pattern, &options.custom_pattern);
      !s.ok()) {
    return Fail(s);
  }
  options.threads = static_cast<int>(*threads);
  options.chunk_bytes = *chunk;
  if (args.merge && (!args.special_tokens.empty() || args.pattern != "gpt2")) {
    return Fail(absl::InvalidArgumentError(
        "--merge takes the pattern and special tokens from the count files"));
  }
  // The leader alone writes; under mpirun all ranks stop if its destination is not writable.
  absl::Status checked;
  if (ranks::Leader()) {
    checked = CheckWritableFile(args.out, "--out");
    if (checked.ok()) checked = CheckNotAnInput(args.out, "--out", *inputs);
    if (checked.ok()) checked = CheckNotATerminal(args.out, "--out");
    if (checked.ok() && args.merge && ranks::Size() > 1) {
      checked =
          absl::InvalidArgumentError("count --merge runs as one process: start it without mpirun");
    }
  }
  if (absl::Status s = ranks::Agree(checked); !s.ok()) return Fail(s);

  options.cancel = InstallStopSignals();
  Progress progress(!args.quiet && ranks::Leader());
  options.progress = [&](absl::string_view line) { progress.Update(line); };
  absl::StatusOr<CountedText> counted;
  ranks::Counted all;
  if (args.merge) {
    // Merged as they are read, without a map.
    absl::StatusOr<CountFiles> files = CountFiles::Open(*inputs);
    if (!files.ok()) return Fail(files.status());
    counted = files->Save(args.out);
    if (!counted.ok()) return Fail(counted.status());
    return Summarize(args, *inputs, *counted, {}, stopwatch);
  } else if (ranks::Size() == 1) {
    // Written as counted, without a map of the counts.
    counted = CountAndSave(*inputs, options, args.out);
    progress.Finish();
    if (!counted.ok()) return Fail(counted.status());
    return Summarize(args, *inputs, *counted, {}, stopwatch);
  } else {
    // Under mpirun every rank counts its share and the leader gets the sum.
    absl::StatusOr<ranks::Counted> made = ranks::Count(*inputs, options);
    progress.Finish();
    if (!made.ok()) return Fail(made.status());
    if (!ranks::Leader()) return ranks::ExitCode(0);
    all = *std::move(made);
    counted = *std::move(all.counted);
  }
  progress.Finish();
  std::fputs(ranks::DescribeExchange(all.sent).c_str(), SummaryStream(args.out));
  return ranks::ExitCode(Finish(args, *inputs, counted, all.peaks, stopwatch));
}

// The leader's part after counting: write the count file and print the summary.
int Finish(const CountArgs& args, const std::vector<std::string>& inputs,
           const absl::StatusOr<CountedText>& counted, const std::vector<uint64_t>& rank_peaks,
           const Stopwatch& stopwatch) {
  if (!counted.ok()) return Fail(counted.status());
  if (absl::Status s = SaveCounts(*counted, args.out); !s.ok()) return Fail(s);
  return Summarize(args, inputs, *counted, rank_peaks, stopwatch);
}

// Prints the summary of a count file written.
int Summarize(const CountArgs& args, const std::vector<std::string>& inputs,
              const CountedText& counted, const std::vector<uint64_t>& rank_peaks,
              const Stopwatch& stopwatch) {
  const double seconds = stopwatch.Seconds();
  const std::string read = args.merge ? absl::StrFormat("%.1f MB of text in %d count file(s)",
                                                        counted.bytes / 1e6, inputs.size())
                                      : DescribeRead(counted.bytes, inputs.size(), counted.input);
  std::FILE* summary = SummaryStream(args.out);
  std::fprintf(summary,
               "read        %s\n"
               "pre-tokens  %llu (%llu distinct)\n"
               "time        %.2f s (%.0f MB/s%s)\n"
               "peak memory %.0f MB%s\n"
               "wrote       %s\n",
               read.c_str(), static_cast<unsigned long long>(counted.pretokens),
               static_cast<unsigned long long>(counted.distinct), seconds,
               seconds > 0 ? counted.bytes / 1e6 / seconds : 0.0,
               StoredRate(counted.input, seconds).c_str(), PeakRssBytes() / 1e6,
               ranks::DescribeRankPeaks(rank_peaks).c_str(), Printable(args.out).c_str());
  if (uint64_t chunk = 0; !args.merge && absl::SimpleAtoi(args.chunk_bytes, &chunk)) {
    std::fputs(InputNotes(counted.input, chunk).c_str(), summary);
  }
  return 0;
}

}  // namespace

void AddCountCommand(CLI::App& app, std::function<int()>* action) {
  auto args = std::make_shared<CountArgs>();
  CLI::App* cmd = app.add_subcommand(
      "count",
      "Count the pre-tokens of text files into a count file, which `train --counts` trains "
      "from (several vocabulary sizes from one pass over the text), or add count files up "
      "(--merge: count shards of a corpus apart, then combine them).");
  AddInputFlags(cmd, &args->input,
                "UTF-8 text files, JSON Lines, folders or quoted globs, as for train (each file "
                "and each JSON Lines record a separate document; gzip, xz and zstd files and - "
                "for standard input are read as a stream), or with --merge count files");
  cmd->add_option("--out,--output", args->out,
                  "The count file (written whole or not at all; - for standard output)")
      ->required();
  cmd->add_option("--special-token", args->special_tokens,
                  "A special token (repeatable); as for train, recorded in the file");
  cmd->add_option("--pattern", args->pattern,
                  "Pre-tokenizer pattern: gpt2, cl100k, o200k or a regex, as for train")
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "Worker threads (default 0: all hardware threads)")
      ->capture_default_str();
  cmd->add_option("--chunk-bytes", args->chunk_bytes,
                  "Work unit for the parallel phase (results do not depend on it)")
      ->capture_default_str();
  cmd->add_flag("--merge", args->merge,
                "The inputs are count files made with the same pattern and special tokens (- "
                "reads one from standard input): add them up");
  cmd->add_flag("--quiet", args->quiet, "No progress lines on stderr");
  cmd->footer(
      "Under mpirun (mpirun -np N bpeforge count ...), every rank counts a share of the inputs "
      "and rank 0 writes the count file, which is that of one process.");
  cmd->callback([args, action] {
    args->out = OutputPath(args->out);
    *action = [args] { return RunCount(*args); };
  });
}

}  // namespace bpeforge::cli
