#include "cli/train_command.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "bpeforge/bpeforge.h"
#include "cli/progress.h"
#include "cli/tokenizer_flags.h"

namespace bpeforge::cli {
namespace {

struct TrainArgs {
  std::vector<std::string> inputs;
  size_t vocab_size = 0;
  std::vector<std::string> special_tokens;
  int threads = 0;
  std::string layout = "bytes-first";
  std::string pattern = "gpt2";
  std::string out_dir;
  std::string stats_json;
  size_t chunk_bytes = 4 << 20;
  bool quiet = false;
};

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "bpeforge train: error: %s\n", std::string(status.message()).c_str());
  return 1;
}

// Writes the stats next to (never instead of) the tokenizer: a temporary file, then a rename.
bool WriteStatsJson(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp";
  std::FILE* f = std::fopen(temp.c_str(), "wb");
  bool ok = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f != nullptr) ok = (std::fclose(f) == 0) && ok;
  ok = ok && std::rename(temp.c_str(), path.c_str()) == 0;
  if (!ok) {
    std::fprintf(stderr, "bpeforge train: error: cannot write %s: %s\n", path.c_str(),
                 std::strerror(errno));
    std::remove(temp.c_str());
  }
  return ok;
}

std::string StatsJson(const TrainStats& s, uint64_t peak_rss) {
  nlohmann::ordered_json j;
  j["bytes"] = s.bytes;
  j["pretokens"] = s.pretokens;
  j["distinct_pretokens"] = s.distinct_pretokens;
  j["merges"] = s.merges;
  j["pretokenize_seconds"] = s.pretokenize_seconds;
  j["merge_seconds"] = s.merge_seconds;
  j["total_seconds"] = s.total_seconds;
  j["peak_rss_bytes"] = peak_rss;
  j["threads"] = s.threads;
  return j.dump(2) + "\n";
}

int RunTrain(const TrainArgs& args) {
  TrainOptions options;
  options.vocab_size = args.vocab_size;
  options.special_tokens = args.special_tokens;
  options.threads = args.threads;
  options.chunk_bytes = args.chunk_bytes;
  absl::StatusOr<IdLayout> layout = ParseIdLayout(args.layout);
  if (!layout.ok()) return Fail(layout.status());
  options.layout = *layout;
  absl::StatusOr<Pattern> pattern = ParsePattern(args.pattern);
  if (!pattern.ok()) return Fail(pattern.status());
  options.pattern = *pattern;

  Progress progress(!args.quiet);
  options.progress = [&](absl::string_view line) { progress.Update(line); };
  absl::StatusOr<TrainResult> result = Train(args.inputs, options);
  progress.Finish();
  if (!result.ok()) return Fail(result.status());
  const BpeModel& t = result->model;
  if (absl::Status s = SaveTokenizer(t, args.out_dir); !s.ok()) return Fail(s);

  const TrainStats& s = result->stats;
  const uint64_t peak = PeakRssBytes();
  if (!args.stats_json.empty()) {
    if (!WriteStatsJson(args.stats_json, StatsJson(s, peak))) return 1;
  }
  std::printf(
      "read        %.1f MB in %zu file(s)\n"
      "pre-tokens  %llu (%llu distinct)\n"
      "merges      %llu (vocab %zu)\n"
      "time        %.2f s pre-tokenize + %.2f s merge = %.2f s total (%d threads, %.0f MB/s)\n"
      "peak memory %.0f MB\n"
      "wrote       %s/{%s,%s,%s}\n",
      s.bytes / 1e6, args.inputs.size(), static_cast<unsigned long long>(s.pretokens),
      static_cast<unsigned long long>(s.distinct_pretokens),
      static_cast<unsigned long long>(s.merges), t.vocab.size(), s.pretokenize_seconds,
      s.merge_seconds, s.total_seconds, s.threads,
      s.pretokenize_seconds > 0 ? s.bytes / 1e6 / s.pretokenize_seconds : 0.0, peak / 1e6,
      args.out_dir.c_str(), "vocab.json", "merges.txt", "bpeforge.json");
  return 0;
}

}  // namespace

void AddTrainCommand(CLI::App& app, std::function<int()>* action) {
  auto args = std::make_shared<TrainArgs>();
  CLI::App* cmd =
      app.add_subcommand("train", "Learn a byte-level BPE vocabulary and merges from text files.");
  cmd->add_option("inputs", args->inputs, "UTF-8 text files; each file is a separate document")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--vocab-size", args->vocab_size,
                  "Target vocabulary size: 256 bytes + special tokens + merges")
      ->required();
  cmd->add_option("--special-token", args->special_tokens,
                  "A special token (repeatable); removed from the training text, never merged");
  cmd->add_option("--threads", args->threads, "Worker threads (default: all hardware threads)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--layout", args->layout,
                  "Id layout: bytes-first (byte b = id b, then specials, then merges) or hf "
                  "(specials, bytes in GPT-2 order, merges)")
      ->check(CLI::IsMember({"bytes-first", "hf"}))
      ->capture_default_str();
  cmd->add_option("--pattern", args->pattern, "Pre-tokenizer pattern: gpt2, cl100k or o200k")
      ->check(CLI::IsMember({"gpt2", "cl100k", "o200k"}))
      ->capture_default_str();
  cmd->add_option("--out", args->out_dir,
                  "Output directory for vocab.json, merges.txt and bpeforge.json (created if "
                  "missing)")
      ->required();
  cmd->add_option("--stats-json", args->stats_json, "Also write the summary as JSON to FILE");
  cmd->add_option("--chunk-bytes", args->chunk_bytes,
                  "Work unit for the parallel phase (results do not depend on it)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--quiet", args->quiet, "No progress lines on stderr");
  cmd->callback([args, action] { *action = [args] { return RunTrain(*args); }; });
}

}  // namespace bpeforge::cli
