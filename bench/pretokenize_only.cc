// bpeforge-pretokenize-only: the training run's first pass with nothing counted, as a yardstick
// for what counting and merging add to the scan (the speed issue's "within 1.3x of a pass that
// only pre-tokenizes").
//
//   bpeforge-pretokenize-only FILE... [--threads N] [--special-token TOKEN]... [--pattern P]
//
// The same mapping, chunking, UTF-8 check, special-token split and pre-tokenizer as
// `bpeforge train`, on the same oneTBB workers; only the pre-tokens are not counted into maps
// (so no maps are combined and nothing is merged or written). Prints one line: bytes,
// pre-tokens, seconds and MB/s.
#include <tbb/global_control.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "parallel/parallel_count.h"
#include "parallel/train.h"

int main(int argc, char** argv) {
  using namespace bpeforge::internal;  // NOLINT
  CLI::App app("bpeforge-pretokenize-only: pre-tokenize inputs as training does, count nothing");
  std::vector<std::string> inputs;
  int threads = 0;
  std::vector<std::string> specials;
  std::string pattern = "gpt2";
  app.add_option("inputs", inputs, "Text files (as `bpeforge train` takes them)")->required();
  app.add_option("--threads", threads, "Worker threads (default: all cores)");
  app.add_option("--special-token", specials, "A special token (repeatable)");
  app.add_option("--pattern", pattern, "gpt2, cl100k or o200k");
  CLI11_PARSE(app, argc, argv);

  CountOptions options;
  options.special_tokens = specials;
  options.pretokenize_only = true;
  absl::StatusOr<bpeforge::Pattern> parsed = ParsePattern(pattern);
  if (!parsed.ok()) {
    std::fprintf(stderr, "bpeforge-pretokenize-only: %s\n", parsed.status().ToString().c_str());
    return 2;
  }
  options.pattern = *parsed;
  const int used = ThreadsToUse(threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<size_t>(used));
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<ShardedCounts> scanned = CountPreTokensInFiles(inputs, options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!scanned.ok()) {
    std::fprintf(stderr, "bpeforge-pretokenize-only: %s\n", scanned.status().ToString().c_str());
    return 1;
  }
  std::printf("%llu bytes, %llu pre-tokens, %.2f s pre-tokenize only (%.0f MB/s, %d threads)\n",
              static_cast<unsigned long long>(scanned->bytes),
              static_cast<unsigned long long>(scanned->pretokens), seconds,
              static_cast<double>(scanned->bytes) / 1e6 / seconds, used);
  return 0;
}
