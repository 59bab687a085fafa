// Merge-loop speed (merges/s): LearnMerges for 2,000 and 10,000 merges from the pre-token
// counts of a generated corpus of each flavour, on one thread or with large merges split
// between two (oneTBB, as the trainer does), with the word table's symbols in 16 bits (as the
// trainer makes it for vocabularies of up to 65,536) or 32. Counting happens once, outside the
// timing; each iteration copies the prepared word table (LearnMerges rewrites it) untimed.
#include <benchmark/benchmark.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "bench/corpus_generator.h"
#include "core/count/counting_table.h"
#include "core/count/pretoken_counts.h"
#include "core/internal/parallelism.h"
#include "core/pretokenize/pretokenizer.h"
#include "core/pretokenize/special_tokens.h"
#include "core/train/merge_loop.h"
#include "core/train/word_table.h"

namespace bpeforge::internal {
namespace {

// Big enough that 10,000 merges do not run out of pairs on the stories flavour.
constexpr uint64_t kCorpusBytes = 32'000'000;

struct Prepared {
  WordTable words;
  NarrowWordTable narrow;  // the same words
  size_t distinct = 0;
};

// The words of the corpus as the trainer builds them: one per distinct pre-token of two or
// more bytes, here in byte order so that every run sees the same table.
Prepared Prepare(bench::Flavor flavor) {
  const std::string text =
      bench::GenerateCorpusString({flavor, kCorpusBytes, /*seed=*/1, /*threads=*/2});
  const SpecialTokens specials({"<|endoftext|>"});
  CountingTable counts;
  CountPreTokens(text, specials, *MakePreTokenizer(Pattern::kGpt2), &counts);
  std::vector<std::pair<std::string, uint64_t>> sorted;
  sorted.reserve(counts.size());
  counts.ForEach([&](absl::string_view bytes, uint64_t n) {
    if (bytes.size() > 1) sorted.emplace_back(std::string(bytes), n);
  });
  std::sort(sorted.begin(), sorted.end());
  Prepared p;
  size_t bytes = 0;
  for (const auto& [w, n] : sorted) bytes += w.size();
  p.words.Reserve(sorted.size(), sorted.size() * WordTable::Units(0) + bytes);
  p.narrow.Reserve(sorted.size(), sorted.size() * NarrowWordTable::Units(0) + bytes);
  for (const auto& [w, n] : sorted) {
    p.words.Add(w, n);
    p.narrow.Add(w, n);
  }
  p.distinct = sorted.size();
  return p;
}

const Prepared& Words(bench::Flavor flavor) {
  static const auto* stories = new Prepared(Prepare(bench::Flavor::kStories));
  static const auto* web = new Prepared(Prepare(bench::Flavor::kWeb));
  return flavor == bench::Flavor::kStories ? *stories : *web;
}

void BM_LearnMerges(benchmark::State& state) {
  const auto flavor = static_cast<bench::Flavor>(state.range(0));
  const auto max_merges = static_cast<size_t>(state.range(1));
  const auto workers = static_cast<size_t>(state.range(2));
  const bool narrow = state.range(3) == 16;
  Parallelism parallelism;  // workers 1: the serial path
  if (workers > 1) {
    parallelism.workers = workers;
    parallelism.run = [](size_t n, const std::function<void(size_t)>& task) {
      tbb::parallel_for(size_t{0}, n, [&task](size_t i) { task(i); });
    };
  }
  const Prepared& prepared = Words(flavor);
  size_t merges = 0;
  for (auto _ : state) {
    state.PauseTiming();
    WordTable words = narrow ? WordTable() : prepared.words;
    NarrowWordTable narrow_words = narrow ? prepared.narrow : NarrowWordTable();
    state.ResumeTiming();
    merges = narrow ? LearnMerges(narrow_words, max_merges, nullptr, parallelism).size()
                    : LearnMerges(words, max_merges, nullptr, parallelism).size();
    benchmark::DoNotOptimize(merges);
  }
  state.SetLabel(std::string(bench::FlavorName(flavor)));
  state.counters["merges"] = static_cast<double>(merges);
  state.counters["words"] = static_cast<double>(prepared.distinct);
  state.counters["merges/s"] = benchmark::Counter(static_cast<double>(merges) * state.iterations(),
                                                  benchmark::Counter::kIsRate);
}

BENCHMARK(BM_LearnMerges)
    ->ArgNames({"flavor", "merges", "workers", "symbol_bits"})
    ->ArgsProduct({{static_cast<int>(bench::Flavor::kStories),
                    static_cast<int>(bench::Flavor::kWeb)},
                   {2000, 10000},
                   {1, 2},
                   {16, 32}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bpeforge::internal
