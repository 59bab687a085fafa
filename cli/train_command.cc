#include "cli/train_command.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bpeforge/bpeforge.h"
#include "bpeforge/internal/front_ends.h"
#include "cli/command_support.h"
#include "cli/input_flags.h"
#include "cli/progress.h"
#include "cli/ranks.h"
#include "cli/tokenizer_flags.h"

namespace bpeforge::cli {
namespace {

// Ids are 32-bit; beyond 2^31 a vocabulary is no longer a tokenizer anyone trains.
constexpr uint64_t kMaxVocabSize = (uint64_t{1} << 31) - 1;
constexpr uint64_t kMaxThreads = 4096;

struct TrainArgs {
  InputFlags input;
  std::string vocab_size;
  std::vector<std::string> special_tokens;
  std::string threads = "0";
  std::string layout = "bytes-first";
  std::string pattern;  // empty: gpt2, or with --counts the files'
  bool counts = false;  // the inputs are count files
  std::string out_dir;
  std::string stats_json;
  std::string chunk_bytes = std::to_string(4 << 20);
  std::string min_frequency = "0";
  std::string max_token_length = "0";
  bool quiet = false;
};

int Fail(const absl::Status& status) { return cli::Fail("train", status); }

absl::StatusOr<TrainStats> TrainFromCounted(const CountedText& counted, const TrainOptions& options,
                                            const std::string& out_dir, const Stopwatch& stopwatch);
int Finish(const TrainArgs& args, const std::vector<std::string>& inputs,
           const absl::StatusOr<TrainStats>& result, const std::vector<uint64_t>& rank_peaks,
           const Stopwatch& stopwatch);

// `total_seconds` is training (counting and merging); `seconds_in_all` is the command's whole
// run up to this file, writing the tokenizer included, as the summary's "in all".
std::string StatsJson(const TrainStats& s, double seconds_in_all, uint64_t peak_rss,
                      uint64_t requested, size_t vocab) {
  nlohmann::ordered_json j;
  j["bytes"] = s.bytes;
  j["stored_bytes"] = s.input.stored_bytes;
  j["decompressed_bytes"] = s.input.decompressed_bytes;
  j["documents"] = s.input.documents;
  j["skipped_records"] = s.input.skipped_records;
  j["largest_piece_bytes"] = s.input.largest_piece_bytes;
  j["largest_window_bytes"] = s.input.largest_window_bytes;
  j["pretokens"] = s.pretokens;
  j["distinct_pretokens"] = s.distinct_pretokens;
  j["merges"] = s.merges;
  j["vocab_size"] = vocab;
  j["requested_vocab_size"] = requested;
  j["stopped_early"] = vocab < requested;  // no pair of tokens was left to merge
  j["pretokenize_seconds"] = s.pretokenize_seconds;
  j["merge_seconds"] = s.merge_seconds;
  j["total_seconds"] = s.total_seconds;
  j["seconds_in_all"] = seconds_in_all;
  j["peak_rss_bytes"] = peak_rss;
  j["threads"] = s.threads;
  j["simd"] = std::string(SimdPathInUse());
  return j.dump(2) + "\n";
}

// Training from count files: their pattern and special tokens are the run's (flags, when given,
// must agree with them), and the result is byte for byte that of training on the text.
absl::StatusOr<TrainStats> TrainFromCountFiles(const TrainArgs& args,
                                               const std::vector<std::string>& inputs,
                                               TrainOptions* options) {
  const Stopwatch stopwatch;
  absl::StatusOr<CountFiles> files = CountFiles::Open(inputs);
  if (!files.ok()) return files.status();
  const CountedText& counted = files->counted();
  if (!args.pattern.empty() &&
      (options->pattern != counted.pattern || options->custom_pattern != counted.custom_pattern)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--pattern %s differs from the count files' %s", args.pattern,
        counted.pattern == Pattern::kCustom ? counted.custom_pattern
                                            : std::string(PatternName(counted.pattern))));
  }
  if (!args.special_tokens.empty() && args.special_tokens != counted.special_tokens) {
    return absl::InvalidArgumentError(
        "--special-token differs from the count files' special tokens (leave it out to use "
        "theirs)");
  }
  options->pattern = counted.pattern;
  options->custom_pattern = counted.custom_pattern;
  options->special_tokens = counted.special_tokens;
  const double read_seconds = stopwatch.Seconds();
  absl::StatusOr<TrainStats> stats = TrainAndSave(*files, *options, args.out_dir);
  if (!stats.ok()) return stats.status();
  stats->pretokenize_seconds += read_seconds;  // with the adding up of several files
  stats->total_seconds += read_seconds;
  return stats;
}

// Learns merges from counts made since `start` (read from count files, or counted by the
// ranks of an MPI job) and writes the tokenizer; the time before learning is the stats'
// pre-tokenize time.
absl::StatusOr<TrainStats> TrainFromCounted(const CountedText& counted, const TrainOptions& options,
                                            const std::string& out_dir,
                                            const Stopwatch& stopwatch) {
  const double count_seconds = stopwatch.Seconds();
  absl::StatusOr<TrainStats> stats = TrainFromCountsAndSave(counted.counts, options, out_dir);
  if (!stats.ok()) return stats.status();
  stats->bytes = counted.bytes;
  stats->input = counted.input;
  stats->pretokenize_seconds = count_seconds;
  stats->total_seconds += count_seconds;
  return stats;
}

int RunTrain(const TrainArgs& args) {
  const Stopwatch stopwatch;
  TrainOptions options;
  absl::StatusOr<uint64_t> vocab_size =
      ParseDecimal(args.vocab_size, "--vocab-size", 1, kMaxVocabSize);
  if (!vocab_size.ok()) return UsageFail(vocab_size.status());
  absl::StatusOr<uint64_t> threads = ParseDecimal(args.threads, "--threads", 0, kMaxThreads);
  if (!threads.ok()) return UsageFail(threads.status());
  absl::StatusOr<uint64_t> chunk =
      ParseDecimal(args.chunk_bytes, "--chunk-bytes", 1, uint64_t{1} << 40);
  if (!chunk.ok()) return UsageFail(chunk.status());
  absl::StatusOr<uint64_t> min_frequency =
      ParseDecimal(args.min_frequency, "--min-frequency", 0, UINT64_MAX);
  if (!min_frequency.ok()) return UsageFail(min_frequency.status());
  absl::StatusOr<uint64_t> max_token_length =
      ParseDecimal(args.max_token_length, "--max-token-length", 0, uint64_t{1} << 40);
  if (!max_token_length.ok()) return UsageFail(max_token_length.status());
  options.min_frequency = *min_frequency;
  options.max_token_length = *max_token_length;
  options.vocab_size = *vocab_size;
  options.threads = static_cast<int>(*threads);
  options.chunk_bytes = *chunk;
  options.special_tokens = args.special_tokens;
  options.input = InputOptionsOf(args.input);
  const std::vector<std::string> written = TokenizerFilesIn(args.out_dir);
  std::vector<std::string> outputs = written;
  outputs.push_back(args.stats_json);
  absl::StatusOr<std::vector<std::string>> inputs =
      InputFiles(args.input, outputs, ranks::Leader(), args.counts);
  if (!inputs.ok()) return Fail(inputs.status());
  // A count file is read whole: - is standard input, as the pipe /dev/stdin.
  if (args.counts) std::replace(inputs->begin(), inputs->end(), kStdin, kDevStdin);
  absl::StatusOr<IdLayout> layout = ParseIdLayout(args.layout);
  if (!layout.ok()) return Fail(layout.status());
  options.layout = *layout;
  if (absl::Status s = ParsePatternFlag(args.pattern.empty() ? "gpt2" : args.pattern,
                                        &options.pattern, &options.custom_pattern);
      !s.ok()) {
    return Fail(s);
  }
  // Every destination is checked before the work, which may take hours (by the leader, which
  // alone writes; under mpirun all ranks stop if it fails).
  absl::Status checked;
  MadeDirectories made_dirs;  // removed again unless the tokenizer is written
  if (ranks::Leader()) {
    checked = MakeWritableDir(args.out_dir, "--out", &made_dirs);
    for (const std::string& file : written) {
      if (checked.ok()) checked = CheckNotAnInput(file, "--out", *inputs);
    }
    if (checked.ok() && !args.stats_json.empty()) {
      checked = CheckWritableFile(args.stats_json, "--stats-json");
      if (checked.ok()) checked = CheckNotAnInput(args.stats_json, "--stats-json", *inputs);
    }
    if (checked.ok() && args.counts && ranks::Size() > 1) {
      checked =
          absl::InvalidArgumentError("train --counts runs as one process: start it without mpirun");
    }
  }
  if (absl::Status s = ranks::Agree(checked); !s.ok()) return Fail(s);

  options.cancel = InstallStopSignals();
  Progress progress(!args.quiet && ranks::Leader());
  options.progress = [&](absl::string_view line) { progress.Update(line); };
  // Training writes the tokenizer too, spelling out one token at a time (TrainAndSave).
  absl::StatusOr<TrainStats> result;
  ranks::Counted all;
  if (args.counts) {
    result = TrainFromCountFiles(args, *inputs, &options);
  } else if (ranks::Size() == 1) {
    result = TrainAndSave(*inputs, options, args.out_dir);
  } else {
    // Under mpirun: every rank counts its share, the leader learns merges from the sum.
    const Stopwatch count_stopwatch;
    absl::StatusOr<ranks::Counted> made = ranks::Count(*inputs, options);
    progress.Finish();
    if (!made.ok()) return Fail(made.status());
    if (!ranks::Leader()) return ranks::ExitCode(0);
    all = *std::move(made);
    result = TrainFromCounted(*all.counted, options, args.out_dir, count_stopwatch);
  }
  progress.Finish();
  std::fputs(ranks::DescribeExchange(all.sent).c_str(), SummaryStream(args.stats_json));
  if (result.ok()) made_dirs.Keep();
  return ranks::ExitCode(Finish(args, *inputs, result, all.peaks, stopwatch));
}

// The leader's part after training and writing: print the summary and the stats.
int Finish(const TrainArgs& args, const std::vector<std::string>& inputs,
           const absl::StatusOr<TrainStats>& result, const std::vector<uint64_t>& rank_peaks,
           const Stopwatch& stopwatch) {
  if (!result.ok()) return Fail(result.status());
  const uint64_t vocab_size = std::stoull(args.vocab_size);
  const uint64_t min_frequency = std::stoull(args.min_frequency);
  const double seconds = stopwatch.Seconds();

  const TrainStats& s = *result;
  const std::string rank_note = ranks::DescribeRankPeaks(rank_peaks);
  const std::string threads_note = absl::StrCat(
      ranks::Size() > 1 ? absl::StrFormat("%s x %d ranks", ThreadsNote(s.threads), ranks::Size())
                        : ThreadsNote(s.threads),
      ", ", SimdPathInUse());
  const uint64_t peak = PeakRssBytes();
  std::string vocab_note;
  if (s.vocab_size < vocab_size) {
    vocab_note = absl::StrFormat(
        "; stopped before the requested %d: no pair was left to merge%s", vocab_size,
        min_frequency > 0 ? absl::StrFormat(" %d times or more", min_frequency) : "");
  }
  const std::string read = args.counts
                               ? absl::StrFormat("%.1f MB of text, counted in %d count file(s)",
                                                 s.bytes / 1e6, inputs.size())
                               : DescribeRead(s.bytes, inputs.size(), s.input);
  const std::string phase1 = args.counts ? "read counts" : "pre-tokenize";
  const std::string rate =
      args.counts || s.pretokenize_seconds <= 0
          ? ""
          : absl::StrFormat(", %.0f MB/s", s.bytes / 1e6 / s.pretokenize_seconds) +
                StoredRate(s.input, s.pretokenize_seconds);
  std::FILE* summary = SummaryStream(args.stats_json);
  std::fprintf(
      summary,
      "read        %s\n"
      "pre-tokens  %llu (%llu distinct)\n"
      "merges      %llu (vocab %llu%s)\n"
      "time        %.2f s %s + %.2f s merge = %.2f s training, %.2f s in all "
      "(%s%s)\n"
      "peak memory %.0f MB%s\n"
      "wrote       %s/{vocab.json,merges.txt,tokenizer.json,tokenizer.tiktoken,tiktoken.json,"
      "merge_counts.txt,bpeforge.json}\n",
      read.c_str(), static_cast<unsigned long long>(s.pretokens),
      static_cast<unsigned long long>(s.distinct_pretokens),
      static_cast<unsigned long long>(s.merges), static_cast<unsigned long long>(s.vocab_size),
      vocab_note.c_str(), s.pretokenize_seconds, phase1.c_str(), s.merge_seconds, s.total_seconds,
      seconds, threads_note.c_str(), rate.c_str(), peak / 1e6, rank_note.c_str(),
      Printable(args.out_dir).c_str());
  if (uint64_t chunk = 0; !args.counts && absl::SimpleAtoi(args.chunk_bytes, &chunk)) {
    std::fputs(InputNotes(s.input, chunk).c_str(), summary);
  }
  if (!args.stats_json.empty()) {
    if (absl::Status st =
            WriteFileWhole(args.stats_json, StatsJson(s, seconds, peak, vocab_size, s.vocab_size));
        !st.ok()) {
      std::fprintf(stderr,
                   "bpeforge train: the tokenizer was written to %s, but not the stats: %s\n",
                   Printable(args.out_dir).c_str(), Printable(st.message()).c_str());
      return 1;
    }
  }
  return 0;
}

}  // namespace

void AddTrainCommand(CLI::App& app, std::function<int()>* action) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd =
      app.add_subcommand("train", "Learn a byte-level BPE vocabulary and merges from text files.");
  AddInputFlags(cmd, &args->input,
                "UTF-8 text files, JSON Lines files, folders (their files, recursively, "
                "leaving out what bpeforge wrote there: tokenizers, ids, count files) or "
                "quoted globs; each file and each JSON Lines record is a separate document. "
                "gzip, xz and zstd files (told by their first bytes) are decompressed as they "
                "are read, and - reads standard input (compressed or not) as it comes; other "
                "pipes and /dev/stdin are read whole into memory. With --counts: count files "
                "from `bpeforge count`");
  cmd->add_flag("--counts", args->counts,
                "The inputs are count files (`bpeforge count`; - reads one from standard input), "
                "added up; the result equals training on the text they were counted from");
  cmd->add_option("--vocab-size", args->vocab_size,
                  "Target vocabulary size: 256 bytes + special tokens + merges (training stops "
                  "earlier, and says so, when no pair is left)")
      ->required();
  cmd->add_option("--min-frequency", args->min_frequency,
                  "A pair merges only if it occurs at least N times; training stops at the first "
                  "that does not (default 0: no minimum)");
  cmd->add_option("--max-token-length", args->max_token_length,
                  "No merge makes a token longer than N bytes; such pairs are passed over "
                  "(default 0: no limit)");
  cmd->add_option("--special-token", args->special_tokens,
                  "A special token (repeatable); removed from the training text, never merged");
  cmd->add_option("--threads", args->threads, "Worker threads (default 0: all hardware threads)")
      ->capture_default_str();
  cmd->add_option("--layout", args->layout,
                  "Id layout: bytes-first (byte b = id b, then specials, then merges) or hf "
                  "(specials, bytes in GPT-2 order, merges)")
      ->check(CLI::IsMember({"bytes-first", "hf"}))
      ->capture_default_str();
  cmd->add_option(
      "--pattern", args->pattern,
      "Pre-tokenizer pattern: gpt2 (default), cl100k, o200k, or any regex as Python's "
      "`regex` module reads it (run by the slower reference matcher; text is then cut "
      "for the threads only at special tokens). With --counts the count files' pattern, "
      "which --pattern may only repeat");
  cmd->add_option("--out,--output", args->out_dir,
                  "Output directory (created if missing; checked before training starts) for "
                  "vocab.json + merges.txt (GPT-2), tokenizer.json (Hugging Face), "
                  "tokenizer.tiktoken + tiktoken.json (tiktoken) and bpeforge.json")
      ->required();
  cmd->add_option(
      "--stats-json", args->stats_json,
      "Also write the summary as JSON to FILE (- for standard output; the summary then goes to "
      "standard error)");
  cmd->add_option("--chunk-bytes", args->chunk_bytes,
                  "Work unit for the parallel phase (results do not depend on it)")
      ->capture_default_str();
  cmd->add_flag("--quiet", args->quiet, "No progress lines on stderr");
  cmd->footer(
      "SIGINT or SIGTERM stops training within a second; nothing is written then (exit status "
      "130 or 143).\n\nUnder mpirun (mpirun -np N bpeforge train ...), every rank counts a share "
      "of the inputs and rank 0 learns the merges and writes; the files are those of one "
      "process. Give each rank its cores (--bind-to none).");
  cmd->callback([args, action] {
    if (!args->stats_json.empty()) args->stats_json = OutputPath(args->stats_json);
    *action = [args] { return RunTrain(*args); };
  });
}

}  // namespace bpeforge::cli
