// Pre-token counting throughput (MB/s): CountPreTokens on a 16 MB generated corpus of each
// flavour, into the general string map and into the packed-key counter the trainer uses.
// Single-threaded: this is the per-thread work of the parallel counting phase.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include "bench/bench_corpus.h"
#include "core/count/counting_table.h"
#include "core/count/pretoken_counts.h"
#include "core/pretokenize/pretokenizer.h"
#include "core/pretokenize/special_tokens.h"

namespace bpeforge::internal {
namespace {

template <typename Counts>
void BM_CountPreTokens(benchmark::State& state) {
  const auto flavor = static_cast<bench::Flavor>(state.range(0));
  const std::string& text = bench::BenchCorpus(flavor);
  const SpecialTokens specials({"<|endoftext|>"});
  const std::unique_ptr<PreTokenizer> pretokenizer = MakePreTokenizer(Pattern::kGpt2);
  uint64_t pretokens = 0;
  size_t distinct = 0;
  for (auto _ : state) {
    Counts counts;
    pretokens = CountPreTokens(text, specials, *pretokenizer, &counts);
    distinct = counts.size();
    benchmark::DoNotOptimize(distinct);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.SetLabel(std::string(bench::FlavorName(flavor)));
  state.counters["pretokens"] = static_cast<double>(pretokens);
  state.counters["distinct"] = static_cast<double>(distinct);
}

BENCHMARK_TEMPLATE(BM_CountPreTokens, CountingTable)
    ->ArgName("flavor")
    ->Arg(static_cast<int>(bench::Flavor::kStories))
    ->Arg(static_cast<int>(bench::Flavor::kWeb))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_CountPreTokens, PreTokenCounts)
    ->ArgName("flavor")
    ->Arg(static_cast<int>(bench::Flavor::kStories))
    ->Arg(static_cast<int>(bench::Flavor::kWeb))
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bpeforge::internal
