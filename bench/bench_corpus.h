// The corpus the single-threaded micro-benchmarks share: 16 MB of each flavour from the
// generator (seed 1), made once per process.
#ifndef BPEFORGE_BENCH_BENCH_CORPUS_H_
#define BPEFORGE_BENCH_BENCH_CORPUS_H_

#include <cstdint>
#include <string>

#include "bench/corpus_generator.h"

namespace bpeforge::internal::bench {

inline constexpr uint64_t kBenchCorpusBytes = 16'000'000;

inline const std::string& BenchCorpus(Flavor flavor) {
  static const auto* stories =
      new std::string(GenerateCorpusString({Flavor::kStories, kBenchCorpusBytes, /*seed=*/1, 2}));
  static const auto* web =
      new std::string(GenerateCorpusString({Flavor::kWeb, kBenchCorpusBytes, /*seed=*/1, 2}));
  return flavor == Flavor::kStories ? *stories : *web;
}

}  // namespace bpeforge::internal::bench

#endif  // BPEFORGE_BENCH_BENCH_CORPUS_H_
