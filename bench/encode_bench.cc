// Encoding throughput (MB/s) of BpeCodec::Encode on one thread over a 16 MB generated corpus:
// with GPT-2's ranks when the reference data is beside the source tree (or in
// $BPEFORGE_FIXTURES), else with a vocabulary of 4096 trained on the corpus itself.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "bench/bench_corpus.h"
#include "core/count/pretoken_counts.h"
#include "core/encode/bpe_codec.h"
#include "core/formats/tiktoken_files.h"
#include "core/train/trainer.h"

namespace bpeforge::internal {
namespace {

const std::string kEot = "<|endoftext|>";

std::string Gpt2Ranks() {
  const char* env = std::getenv("BPEFORGE_FIXTURES");
  const std::filesystem::path dir =
      env != nullptr ? std::filesystem::path(env)
                     : std::filesystem::path(__FILE__).parent_path() / "../../shared/fixtures";
  const std::filesystem::path ranks = dir / "tiktoken_gpt2.tiktoken";
  return std::filesystem::exists(ranks) ? ranks.string() : "";
}

const BpeCodec& GetTokenizer() {
  static const BpeCodec* tokenizer = [] {
    if (const std::string path = Gpt2Ranks(); !path.empty()) {
      absl::StatusOr<Ranks> ranks = ReadTiktokenRanks(path);
      if (ranks.ok()) {
        return new BpeCodec(*BpeCodec::FromRanks(*ranks, {{kEot, 50256}}, Pattern::kGpt2));
      }
    }
    PreTokenCounts counts;
    const std::string& text = bench::BenchCorpus(bench::Flavor::kStories);
    CountPreTokens(absl::string_view(text).substr(0, 4'000'000), SpecialTokens({kEot}),
                   *MakePreTokenizer(Pattern::kGpt2), &counts);
    const TrainedVocab t = *TrainFromCounts({&counts}, {4096, {kEot}, IdLayout::kBytesFirst, {}});
    return new BpeCodec(*BpeCodec::Create(t.vocab, t.merges, {kEot}, Pattern::kGpt2));
  }();
  return *tokenizer;
}

void BM_Encode(benchmark::State& state) {
  const auto flavor = static_cast<bench::Flavor>(state.range(0));
  const std::string& text = bench::BenchCorpus(flavor);
  const BpeCodec& tokenizer = GetTokenizer();
  EncodeCache cache;
  EncodeCache* const use_cache = state.range(1) != 0 ? &cache : nullptr;
  std::vector<TokenId> ids;
  for (auto _ : state) {
    ids.clear();
    tokenizer.Encode(text, use_cache, &ids);
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.SetLabel(
      absl::StrCat(bench::FlavorName(flavor), Gpt2Ranks().empty() ? " trained-4096" : " gpt2"));
  state.counters["bytes_per_token"] = static_cast<double>(text.size()) / ids.size();
}

// cache 0: every pre-token merged afresh; 1: the per-thread cache of recent pre-tokens.
BENCHMARK(BM_Encode)
    ->ArgNames({"flavor", "cache"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// The work after pre-tokenization alone (whole-token lookup, cache, merges), so that it can be
// judged apart from the pre-tokenizer: the pieces are split once, outside the timing.
void BM_EncodePreTokens(benchmark::State& state) {
  const auto flavor = static_cast<bench::Flavor>(state.range(0));
  const std::string& text = bench::BenchCorpus(flavor);
  const BpeCodec& tokenizer = GetTokenizer();
  std::vector<absl::string_view> pieces;
  tokenizer.special_tokens().Split(
      text,
      [&](absl::string_view part) {
        tokenizer.pretokenizer().Split(part, [&](absl::string_view p) { pieces.push_back(p); });
      },
      [](size_t) {});
  EncodeCache cache;
  EncodeCache* const use_cache = state.range(1) != 0 ? &cache : nullptr;
  std::vector<TokenId> ids;
  for (auto _ : state) {
    ids.clear();
    for (absl::string_view piece : pieces) tokenizer.EncodePreToken(piece, use_cache, &ids);
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.SetLabel(std::string(bench::FlavorName(flavor)));
}

BENCHMARK(BM_EncodePreTokens)
    ->ArgNames({"flavor", "cache"})
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

// Many short texts, each with a cache of its own, as the library's EncodeOrdinary makes one per
// call for texts over 4 KB: the cost of setting the cache up shows here, not in one long text.
void BM_EncodeShortTextsFreshCache(benchmark::State& state) {
  const auto flavor = static_cast<bench::Flavor>(state.range(0));
  const auto size = static_cast<size_t>(state.range(1));
  const absl::string_view text = bench::BenchCorpus(flavor);
  const BpeCodec& tokenizer = GetTokenizer();
  std::vector<TokenId> ids;
  size_t at = 0;
  for (auto _ : state) {
    EncodeCache cache;
    ids.clear();
    tokenizer.EncodeOrdinary(text.substr(at, size), &cache, &ids);
    benchmark::DoNotOptimize(ids.data());
    at = (at + size) % (text.size() - size);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * size));
  state.SetLabel(std::string(bench::FlavorName(flavor)));
}

BENCHMARK(BM_EncodeShortTextsFreshCache)
    ->ArgNames({"flavor", "bytes"})
    ->ArgsProduct({{0, 1}, {5000}})
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace bpeforge::internal
