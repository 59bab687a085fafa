#include "core/train/pair_counter.h"

#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

namespace bpeforge::internal {
namespace {

// Adds the counts and word lists of `part` into `total`. Parts are built from disjoint sets
// of words, so the concatenated lists still hold each word once.
void AddPart(PairTable& total, const PairTable& part) {
  for (const auto& [pair, info] : part) {
    PairInfo& sum = total[pair];
    sum.count += info.count;
    sum.words.insert(sum.words.end(), info.words.begin(), info.words.end());
  }
}

// The pairs of words[ids[begin..end)), the indexed ones read through their index, each list
// grown a word at a time.
template <typename Symbol>
PairTable CountPairsOf(const BasicWordTable<Symbol>& words, const IndexedWords& indexed,
                       size_t begin, size_t end) {
  PairTable pairs;
  const std::vector<WordTable::WordId>& ids = words.ids();
  std::vector<uint32_t> symbols;
  for (size_t k = begin; k < end; ++k) {
    const uint32_t w = ids[k];
    const Symbol* s = words.symbols(w);
    uint32_t n = words.length(w);
    if constexpr (std::is_same_v<Symbol, uint32_t>) {
      if (auto it = indexed.find(w); it != indexed.end()) {
        symbols = it->second.Symbols(s);
        s = symbols.data();
        n = static_cast<uint32_t>(symbols.size());
      }
    }
    const auto f = static_cast<int64_t>(words.count(w));
    for (uint32_t i = 0; i + 1 < n; ++i) {
      PairInfo& p = pairs[MakePair(s[i], s[i + 1])];
      p.count += f;
      if (p.words.empty() || p.words.back() != w) p.words.push_back(w);
    }
  }
  return pairs;
}

// The pairs of all words, counted in parts at once, the parts' tables added up.
template <typename Symbol>
PairTable CountAnyPairs(const BasicWordTable<Symbol>& words, const IndexedWords& indexed,
                        const Parallelism& parallelism) {
  const size_t n = words.size(), workers = Workers(parallelism);
  if (workers == 1 || n < parallelism.min_split_words) return CountPairsOf(words, indexed, 0, n);
  std::vector<PairTable> parts(workers);
  parallelism.run(workers, [&](size_t part) {
    parts[part] = CountPairsOf(words, indexed, n * part / workers, n * (part + 1) / workers);
  });
  for (size_t part = 1; part < workers; ++part) {
    AddPart(parts[0], parts[part]);
    PairTable().swap(parts[part]);
  }
  return std::move(parts[0]);
}

// The pairs while every symbol is still a byte: pairs index arrays of 65,536, and each pair's
// word list is made at its full size (unzeroed: PooledAllocator) before it is filled, where
// CountAnyPairs grows the lists a word at a time and copies the parts' lists once more into
// one. Each part of the words tallies its pairs first; then each part writes its words into
// its own stretch of the lists, so a list holds its words in word order, as CountAnyPairs
// makes it. The fill keeps only a place and a last word per pair, small enough to stay in the
// cache.
template <typename Symbol>
PairTable CountBytePairs(const BasicWordTable<Symbol>& words, const Parallelism& parallelism) {
  constexpr size_t kBytePairs = size_t{1} << 16;
  const std::vector<WordTable::WordId>& ids = words.ids();
  const size_t n = ids.size();
  const size_t parts = n < parallelism.min_split_words ? 1 : Workers(parallelism);
  auto run = [&](const std::function<void(size_t)>& task) { RunParts(parallelism, parts, task); };
  struct Tally {
    int64_t count = 0;
    uint32_t words = 0;
    uint64_t last = ~uint64_t{0};  // the last word seen (a word id is 32 bits)
  };
  std::vector<std::vector<Tally>> tallies(parts);
  // Adds each occurrence of a pair in the part's words to its tally's count, and calls
  // fn(pair, tally, word) once for each word that holds the pair.
  auto for_each_pair = [&](size_t part, std::vector<Tally>& tally, auto fn) {
    for (size_t k = n * part / parts; k < n * (part + 1) / parts; ++k) {
      const uint32_t w = ids[k];
      const Symbol* s = words.symbols(w);
      const uint32_t length = words.length(w);
      const auto f = static_cast<int64_t>(words.count(w));
      for (uint32_t i = 0; i + 1 < length; ++i) {
        const size_t pair = s[i] << 8 | s[i + 1];
        Tally& t = tally[pair];
        if (t.last != w) {
          t.last = w;
          fn(pair, t, w);
        }
        t.count += f;
      }
    }
  };
  run([&](size_t part) {
    tallies[part].resize(kBytePairs);
    for_each_pair(part, tallies[part], [](size_t, Tally& t, uint32_t) { ++t.words; });
  });

  PairTable pairs;
  std::vector<uint32_t> total(kBytePairs);
  size_t kept = 0;
  for (size_t b = 0; b < kBytePairs; ++b) {
    for (const std::vector<Tally>& tally : tallies) total[b] += tally[b].words;
    kept += total[b] > 0;
  }
  pairs.reserve(kept);  // so no insert moves the slots found below
  std::vector<PairInfo*> info(kBytePairs, nullptr);
  for (size_t b = 0; b < kBytePairs; ++b) {
    if (total[b] == 0) continue;
    info[b] = &pairs[MakePair(static_cast<uint32_t>(b >> 8), static_cast<uint32_t>(b & 0xff))];
    for (const std::vector<Tally>& tally : tallies) info[b]->count += tally[b].count;
  }
  // The lists are sized (left uninitialized) by the workers, each a share of them; then each
  // part fills its stretch of every list, so that their pages are first touched at once.
  run([&](size_t part) {
    for (size_t b = part; b < kBytePairs; b += parts) {
      if (info[b] != nullptr) info[b]->words.resize(total[b]);
    }
  });
  run([&](size_t part) {
    // Where the part's next word of each pair goes, and the last word written there (smaller
    // than the tallies and the lists' places in the pair table, which do not stay in cache).
    std::vector<uint32_t*> next(kBytePairs, nullptr);
    std::vector<uint32_t> last(kBytePairs, ~uint32_t{0});  // no word id is all ones
    for (size_t b = 0; b < kBytePairs; ++b) {
      if (info[b] == nullptr) continue;
      size_t at = 0;
      for (size_t q = 0; q < part; ++q) at += tallies[q][b].words;
      next[b] = info[b]->words.data() + at;
    }
    for (size_t k = n * part / parts; k < n * (part + 1) / parts; ++k) {
      const uint32_t w = ids[k];
      const Symbol* s = words.symbols(w);
      const uint32_t length = words.length(w);
      for (uint32_t i = 0; i + 1 < length; ++i) {
        const size_t pair = s[i] << 8 | s[i + 1];
        if (last[pair] != w) {
          last[pair] = w;
          *next[pair]++ = w;
        }
      }
    }
  });
  return pairs;
}

}  // namespace

template <typename Symbol>
PairTable CountPairs(const BasicWordTable<Symbol>& words, const IndexedWords& indexed,
                     size_t symbols, const Parallelism& parallelism) {
  // Before any merge the indexed words still hold their symbols in place, as the others do.
  if (symbols <= 256) return CountBytePairs(words, parallelism);
  return CountAnyPairs(words, indexed, parallelism);
}

template PairTable CountPairs(const WordTable&, const IndexedWords&, size_t, const Parallelism&);
template PairTable CountPairs(const NarrowWordTable&, const IndexedWords&, size_t,
                              const Parallelism&);

}  // namespace bpeforge::internal
