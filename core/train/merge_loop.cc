#include "core/train/merge_loop.h"

#include <algorithm>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "core/internal/huge_pages.h"
#include "core/internal/pooled_allocator.h"
#include "core/train/indexed_word.h"
#include "core/train/pair_queue.h"

namespace bpeforge::internal {
namespace {

// What the merge loop knows about one pair: its current count, and the words that may
// contain it (the inverted index; entries can be stale, MergeWord checks each word).
// Most pairs occur in a handful of words: their lists live inline, with no allocation (the
// same 24 bytes as a std::vector). The longer ones take their buffers from a per-thread pool:
// lists grow and are freed at every merge (the merge phase of web 1 GB took 0.92-0.95 of the time
// with the pool, bench/RESULTS.md).
using WordList = absl::InlinedVector<uint32_t, 4, PooledAllocator<uint32_t>>;
struct PairInfo {
  int64_t count = 0;
  WordList words;
};
using PairTable = absl::flat_hash_map<PairKey, PairInfo, absl::Hash<PairKey>, std::equal_to<>,
                                      HugePageAllocator<std::pair<const PairKey, PairInfo>>>;

// Adds the counts and word lists of `part` into `total`. Parts are built from disjoint sets
// of words, so the concatenated lists still hold each word once.
void AddPart(PairTable& total, const PairTable& part) {
  for (const auto& [pair, info] : part) {
    PairInfo& sum = total[pair];
    sum.count += info.count;
    sum.words.insert(sum.words.end(), info.words.begin(), info.words.end());
  }
}

// Pairs made with fewer occurrences than this are not kept until the most frequent pair has
// fewer (LearnMergeTree, step 2).
constexpr int64_t kTrackedFrom = 16;
// The pair table is sized for one pair kept per this many words (web text: 4.2 million words,
// at most 1.08 million pairs kept, whether to 32k or 200k merges).
constexpr size_t kWordsPerPair = 4;
// Words of the next merge fetched during this one (LearnMergeTree, step 4c).
constexpr size_t kNextWords = 4;
// The fewest words of a merge rewritten on another worker while the merge before it applies
// its changes (LearnMergeTree, step 4e): a hand-over costs microseconds, as much as a few
// dozen words take (web 1 GB to 200k, where most merges are of a few words: thresholds of 0,
// 8, 32 and 128 measured, 32 kept, the differences within the noise; bench/RESULTS.md).
constexpr size_t kMinWordsBeside = 32;

// The count changes of one merge of (a, b) into t, by neighbour. An occurrence with P on its
// left turns a (P, a) into a (P, t), one with N on its right a (b, N) into a (t, N): both pairs
// of a side move the same count, so one entry per neighbour symbol holds it, with the words
// that now hold the new pair. Entries sit in arrays by symbol: an occurrence costs two array
// updates, where a hash map of pairs took four lookups (a third of the rewrite's time).
class MergeChanges {
 public:
  struct Moved {
    int64_t count = 0;
    WordList words;  // empty: not touched by this merge
  };

  // Makes room for neighbours below `symbols`; entries must be cleared (Clear).
  void Prepare(size_t symbols) {
    if (symbols > left_.size()) {
      const size_t size = std::max(symbols, 2 * left_.size());
      left_.resize(size);
      right_.resize(size);
    }
  }
  void Add(Side side, uint32_t neighbour, int64_t count, uint32_t word) {
    Moved& m = at(side, neighbour);
    if (m.words.empty()) mutable_touched(side).push_back(neighbour);
    m.count += count;
    if (m.words.empty() || m.words.back() != word) m.words.push_back(word);
  }
  // Adds `part`'s entries of one side (made from other words) and clears them there. The two
  // sides share nothing: they may be added at once.
  void AddPart(MergeChanges& part, Side side) {
    for (uint32_t n : part.touched(side)) {
      Moved& from = part.at(side, n);
      Moved& to = at(side, n);
      if (to.words.empty()) mutable_touched(side).push_back(n);
      to.count += from.count;
      to.words.insert(to.words.end(), from.words.begin(), from.words.end());
      from.count = 0;
      from.words.clear();
    }
    part.mutable_touched(side).clear();
  }
  const std::vector<uint32_t>& touched(Side side) const {
    return side == Side::kLeft ? touched_left_ : touched_right_;
  }
  Moved& at(Side side, uint32_t neighbour) {
    return side == Side::kLeft ? left_[neighbour] : right_[neighbour];
  }
  void Clear() {
    for (const Side side : {Side::kLeft, Side::kRight}) {
      for (uint32_t n : touched(side)) {
        at(side, n).count = 0;
        at(side, n).words.clear();  // frees a list that outgrew its inline room
      }
      mutable_touched(side).clear();
    }
  }

 private:
  std::vector<uint32_t>& mutable_touched(Side side) {
    return side == Side::kLeft ? touched_left_ : touched_right_;
  }
  std::vector<Moved> left_, right_;
  std::vector<uint32_t> touched_left_, touched_right_;
};

// The place of the first `left right` in s[0..n), or n; the `before` symbols before s may be
// read too (a word's count and length, in its record). Where SSE2 is there, 16 bytes of
// symbols are compared at a time: 45% of the merge loop's visits to words find the pair gone
// (web text, 32k), and the symbol-by-symbol search branched on every symbol; a word is now
// passed over with one or two tests, and a rewrite starts at its first occurrence (the merge
// loop in 0.92-0.94 of the time, bench/RESULTS.md). Nothing past the word is read: the word
// after it may be another thread's to rewrite.
template <typename Symbol>
uint32_t FindPair(const Symbol* s, uint32_t n, uint32_t left, uint32_t right, size_t before) {
  uint32_t i = 0;
#if defined(__SSE2__)
  constexpr uint32_t kLanes = 16 / sizeof(Symbol);
  const __m128i l = sizeof(Symbol) == 2 ? _mm_set1_epi16(static_cast<int16_t>(left))
                                        : _mm_set1_epi32(static_cast<int32_t>(left));
  const __m128i r = sizeof(Symbol) == 2 ? _mm_set1_epi16(static_cast<int16_t>(right))
                                        : _mm_set1_epi32(static_cast<int32_t>(right));
  // A bit per byte of each lane whose pair, starting at that lane's symbol, is `left right`.
  const auto matches = [&](const Symbol* at) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + 1));
    const __m128i both = sizeof(Symbol) == 2
                             ? _mm_and_si128(_mm_cmpeq_epi16(a, l), _mm_cmpeq_epi16(b, r))
                             : _mm_and_si128(_mm_cmpeq_epi32(a, l), _mm_cmpeq_epi32(b, r));
    return static_cast<uint32_t>(_mm_movemask_epi8(both));
  };
  for (; i + kLanes + 1 <= n; i += kLanes) {  // steps wholly inside the word
    if (const uint32_t bits = matches(s + i); bits != 0) {
      return i + static_cast<uint32_t>(__builtin_ctz(bits)) / sizeof(Symbol);
    }
  }
  if (i + 1 >= n) return n;
  // The pairs left, in one step that ends where the word does and starts before i (within the
  // word, or its record's count and length before it): the lanes before i are not looked at.
  const auto q = static_cast<int64_t>(n) - 1 - kLanes;
  if (q >= -static_cast<int64_t>(before)) {
    const uint32_t skipped = static_cast<uint32_t>(i - q) * sizeof(Symbol);  // 2 to 14 bytes
    const uint32_t bits = matches(s + q) & ~((uint32_t{1} << skipped) - 1);
    return bits != 0 ? static_cast<uint32_t>(q + __builtin_ctz(bits) / sizeof(Symbol)) : n;
  }
#else
  (void)before;
#endif
  for (; i + 1 < n; ++i) {
    if (s[i] == left && s[i + 1] == right) return i;
  }
  return n;
}

// Rewrites every `left right` in word w (left to right, non-overlapping) as `merged`, and
// records each occurrence's neighbours. (left, right) itself is dropped wholesale after the
// merge.
template <typename Symbol>
void MergeWord(BasicWordTable<Symbol>& words, uint32_t w, uint32_t left, uint32_t right,
               uint32_t merged, MergeChanges& changes) {
  Symbol* s = words.symbols(w);
  const uint32_t n = words.length(w);
  uint32_t out = FindPair<Symbol>(s, n, left, right, BasicWordTable<Symbol>::kUnitsBefore);
  if (out == n) return;
  const auto f = static_cast<int64_t>(words.count(w));
  for (uint32_t i = out; i < n;) {
    if (i + 1 < n && s[i] == left && s[i + 1] == right) {
      if (out > 0) changes.Add(Side::kLeft, s[out - 1], f, w);
      if (i + 2 < n) changes.Add(Side::kRight, s[i + 2], f, w);
      s[out++] = static_cast<Symbol>(merged);
      i += 2;
    } else {
      s[out++] = s[i++];
    }
  }
  words.set_length(w, out);
}

// The words long enough to be indexed, by id. Built before the first merge and read-only as
// a map afterwards, so the parts of a merge may rewrite their (disjoint) words at once. Only a
// WordTable has them (LearnMergeTree widens a NarrowWordTable that would).
using IndexedWords = absl::flat_hash_map<uint32_t, IndexedWord>;

template <typename Symbol>
IndexedWords IndexLongWords(const BasicWordTable<Symbol>& words, size_t min_length) {
  IndexedWords indexed;
  if constexpr (std::is_same_v<Symbol, uint32_t>) {
    for (uint32_t w : words.ids()) {
      if (words.length(w) >= min_length) {
        indexed.try_emplace(w, words.symbols(w), words.length(w));
      }
    }
  }
  return indexed;
}

// Rewrites the words of each merge, on the calling thread or split among the workers. The
// result is the same either way: a pair's word list holds each word once (lists are built a
// whole word at a time), so the parts rewrite disjoint words and only their change maps are
// added up. With the step that rewrites a merge beside the count changes of the one before
// (LearnMergeTree, step 4e), this is where the parallel path differs from the serial one.
template <typename Symbol>
class Rewriter {
 public:
  Rewriter(BasicWordTable<Symbol>& words, const Parallelism& parallelism, size_t min_indexed_length)
      : words_(words),
        parallelism_(parallelism),
        workers_(Workers(parallelism)),
        // A NarrowWordTable's words are all rescanned (LearnMergeTree widens one with a word
        // long enough to be indexed).
        min_indexed_(std::is_same_v<Symbol, uint32_t> ? std::max<size_t>(min_indexed_length, 2)
                                                      : SIZE_MAX),
        indexed_(IndexLongWords(words, min_indexed_)),
        changes_(workers_) {}

  // Rewrites `left right` as `merged` in every word of `visit`; returns the count changes
  // (cleared by the next call).
  MergeChanges& Merge(const WordList& visit, uint32_t left, uint32_t right, uint32_t merged) {
    const size_t parts = Splits(visit.size()) ? workers_ : 1;
    auto rewrite_part = [&](size_t part) {
      const size_t begin = visit.size() * part / parts, end = visit.size() * (part + 1) / parts;
      MergeWords(visit, begin, end, left, right, merged, changes_[part]);
    };
    changes_[0].Clear();
    for (MergeChanges& part : changes_) part.Prepare(merged + 1);
    if (parts == 1) {
      rewrite_part(0);
    } else {
      parallelism_.run(parts, rewrite_part);
      // Each side on a worker of its own (after the 1,917 split merges of web 1 GB to 32k,
      // 0.039-0.056 s against 0.059-0.090 s on one thread, bench/RESULTS.md).
      parallelism_.run(2, [&](size_t side) {
        for (size_t part = 1; part < parts; ++part) {
          changes_[0].AddPart(changes_[part], side == 0 ? Side::kLeft : Side::kRight);
        }
      });
    }
    return changes_[0];
  }

  // Merge for a merge of fewer words than the split threshold, on the calling thread, while
  // the count changes of the merge before it, in `applying`, are read on another: the changes
  // go to a set of their own.
  MergeChanges& MergeBeside(const WordList& visit, uint32_t left, uint32_t right, uint32_t merged,
                            const MergeChanges& applying) {
    MergeChanges& changes = &applying == &beside_[0] ? beside_[1] : beside_[0];
    changes.Clear();
    changes.Prepare(merged + 1);
    MergeWords(visit, 0, visit.size(), left, right, merged, changes);
    return changes;
  }
  // Whether Merge splits a merge of `words` words among the workers.
  bool Splits(size_t words) const {
    return workers_ > 1 && words >= std::max<size_t>(parallelism_.min_split_words, 1);
  }

  // The indexed words, whose runs in the word table keep merged-away positions.
  const IndexedWords& indexed() const { return indexed_; }

 private:
  // Rewrites the words visit[begin..end), each fetched kAhead words before its turn.
  void MergeWords(const WordList& visit, size_t begin, size_t end, uint32_t left, uint32_t right,
                  uint32_t merged, MergeChanges& changes) {
    for (size_t i = begin; i < end; ++i) {
      if (i + kAhead < end) words_.Prefetch(visit[i + kAhead]);
      MergeAnyWord(visit[i], left, right, merged, changes);
    }
  }

  // An indexed word keeps its length (its positions) and is rewritten through its index.
  void MergeAnyWord(uint32_t w, uint32_t left, uint32_t right, uint32_t merged,
                    MergeChanges& changes) {
    if (words_.length(w) < min_indexed_) return MergeWord(words_, w, left, right, merged, changes);
    if constexpr (std::is_same_v<Symbol, uint32_t>) {
      const auto f = static_cast<int64_t>(words_.count(w));
      indexed_.find(w)->second.Merge(
          words_.symbols(w), left, right, merged,
          [&](Side side, uint32_t neighbour) { changes.Add(side, neighbour, f, w); });
    }
  }

  static constexpr size_t kAhead = 8;  // words in flight: the walk is bound by memory latency

  BasicWordTable<Symbol>& words_;
  const Parallelism& parallelism_;
  const size_t workers_;
  const size_t min_indexed_;
  IndexedWords indexed_;
  std::vector<MergeChanges> changes_;  // one per part of a merge's words
  MergeChanges beside_[2];             // MergeBeside's, in turn
};

// The pairs of words[ids[begin..end)), the indexed ones read through their index.
template <typename Symbol>
PairTable CountPairs(const BasicWordTable<Symbol>& words, const IndexedWords& indexed, size_t begin,
                     size_t end) {
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

// The pairs of all words, counted in parts at once (the count again, when the best pair falls
// below the tracked floor; the first count is CountBytePairs).
template <typename Symbol>
PairTable CountPairs(const BasicWordTable<Symbol>& words, const IndexedWords& indexed,
                     const Parallelism& parallelism) {
  const size_t n = words.size(), workers = Workers(parallelism);
  if (workers == 1 || n < parallelism.min_split_words) return CountPairs(words, indexed, 0, n);
  std::vector<PairTable> parts(workers);
  parallelism.run(workers, [&](size_t part) {
    parts[part] = CountPairs(words, indexed, n * part / workers, n * (part + 1) / workers);
  });
  for (size_t part = 1; part < workers; ++part) {
    AddPart(parts[0], parts[part]);
    PairTable().swap(parts[part]);
  }
  return std::move(parts[0]);
}

// The first count of pairs, while every symbol is still a byte: pairs index arrays of 65,536,
// and each pair's word list is made at its full size before it is filled. (CountPairs grows
// the lists a word at a time, copying them at each doubling onto fresh pages, then copies
// the workers' lists once more into one: on web text 0.38-0.42 s against 0.26-0.34 s,
// bench/RESULTS.md.) Each part of the words tallies its pairs first; then each part writes
// its words into its own stretch of the lists, so a list holds its words in word order, as
// CountPairs makes it. The lists are not zeroed first (PooledAllocator), and the fill keeps
// only a place and a last word per pair, 768 KB that stay in L2 (0.23-0.33 s before both,
// 0.15-0.19 s after, bench/RESULTS.md).
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
    // Where the part's next word of each pair goes, and the last word written there (the
    // tallies, at 24 bytes a pair, and the lists' places in the pair table did not stay in L2).
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

template <typename Symbol>
TokenTree LearnMergeTreeOf(BasicWordTable<Symbol>& words, size_t max_merges,
                           const std::function<void(size_t)>& progress,
                           const Parallelism& parallelism, const std::atomic<bool>* cancel,
                           const MergeRules& rules, size_t min_indexed_length) {
  // 1. The first 256 tokens are the bytes; each merge appends the token it makes.
  TokenTree tokens;

  // Token ids stay below IndexedWord::kGoneBit (reached only past 8 GB of words).
  max_merges = std::min<size_t>(max_merges, IndexedWord::kGoneBit - 256);
  {
    // 2. Count every adjacent pair in every word, weighted by the word's count, and note which
    //    words hold it (the inverted index). A pair's count never grows once it exists (a pair
    //    that gains holds the new token, so it is new), so a pair made with fewer than
    //    `tracked_from` occurrences cannot be merged while the most frequent pair has more: it
    //    is left out, and its word list is never kept. On web text that is 78% of the pairs
    //    merges make (at 200k merges the last merged pair still counts 76). Should the most
    //    frequent pair fall below it, all pairs are counted again from the words and all kept.
    int64_t tracked_from = kTrackedFrom;
    // A pair that would make too long a token is counted like any other but never queued, so
    // it is passed over (Hugging Face's max_token_length).
    auto may_merge = [&](PairKey p) {
      return rules.max_token_length == 0 ||
             tokens.length(PairLeft(p)) + tokens.length(PairRight(p)) <= rules.max_token_length;
    };
    // Its memory is faulted in by the workers (huge_pages.h).
    PairTable pairs(0, PairTable::hasher(), PairTable::key_equal(),
                    PairTable::allocator_type(&parallelism));
    PairQueue queue(tokens);
    // 3. Keep the pairs counted often enough, and queue them by count.
    auto keep = [&](PairTable counted) {
      pairs.clear();
      queue.Clear();
      // The table starts with the byte pairs (thousands) and grows with the pairs merges make.
      // Sized for them at once, it skips a rehash of every pair at each doubling, and the
      // fresh pages each new array faults in.
      pairs.reserve(std::max(counted.size(), words.size() / kWordsPerPair));
      for (auto& [pair, info] : counted) {
        if (info.count < tracked_from) continue;
        if (may_merge(pair)) queue.Push(pair, info.count);
        pairs.try_emplace(pair, std::move(info));
      }
    };
    keep(CountBytePairs(words, parallelism));
    auto current_count = [&pairs](PairKey p) -> int64_t {
      auto it = pairs.find(p);
      return it == pairs.end() ? 0 : it->second.count;
    };

    // 4. Merge the most frequent pair until the vocabulary is full or no pair is left.
    Rewriter<Symbol> rewriter(words, parallelism, min_indexed_length);
    // The next merge's pair when it was known before this merge's changes were applied (step
    // 4e), taken out of the table; and its changes once its words are rewritten.
    std::optional<PairKey> next_pair;
    typename PairTable::node_type next_node;
    MergeChanges* next_changes = nullptr;
    while (tokens.merges() < max_merges) {
      PairKey best;
      typename PairTable::node_type node;
      MergeChanges* changes = std::exchange(next_changes, nullptr);
      if (next_pair) {
        best = *std::exchange(next_pair, std::nullopt);
        node = std::move(next_node);
      } else {
        // 4a. The most frequent pair; ties go to the greater pair of byte strings.
        std::optional<PairKey> top = queue.PopMax(current_count);
        if (tracked_from > 1 && (!top || current_count(*top) < tracked_from)) {
          tracked_from = 1;
          keep(CountPairs(words, rewriter.indexed(), parallelism));
          top = queue.PopMax(current_count);
        }
        if (!top) break;
        // The most frequent pair is below the minimum, so every other is too.
        if (static_cast<uint64_t>(current_count(*top)) < rules.min_frequency) break;
        best = *top;
        node = pairs.extract(best);
      }

      // 4b. Record the merge, the token it makes and how often the pair occurred.
      const uint32_t left = PairLeft(best), right = PairRight(best);
      const uint32_t token = tokens.Add(left, right, static_cast<uint64_t>(node.mapped().count));

      // 4c. Rewrite every word that holds the pair; each rewrite reports the neighbours of the
      //     occurrences it merges.
      if (changes == nullptr) {
        // The first words of the pair likely merged next (the queue's top) are fetched now, so
        // that their misses overlap this merge: most merges are small, rewritten on one
        // thread, and each begins with a miss per word until its own prefetches are ahead.
        if (const std::optional<PairKey> next = queue.Top()) {
          if (auto it = pairs.find(*next); it != pairs.end()) {
            const WordList& next_words = it->second.words;
            for (size_t i = 0; i < std::min<size_t>(next_words.size(), kNextWords); ++i) {
              words.Prefetch(next_words[i]);
            }
          }
        }
        changes = &rewriter.Merge(node.mapped().words, left, right, token);
      }

      // 4d. Apply the changes to the counts, and queue the new pairs. Their slots in the large
      //     pair table miss the caches: each is fetched some entries ahead, so misses overlap.
      auto gained = [&](Side side, uint32_t n) {
        return side == Side::kLeft ? MakePair(n, token) : MakePair(token, n);
      };
      auto lost = [&](Side side, uint32_t n) {
        return side == Side::kLeft ? MakePair(n, left) : MakePair(right, n);
      };
      // Calls fn(side, n) for each touched neighbour, with the pair of the one kAhead on
      // prefetched, so that about that many misses are in flight. (Prefetching all of a
      // merge's pairs first, these updates took 0.40-0.50 s of a web run against 0.31-0.37 s:
      // bench/RESULTS.md.)
      auto for_each_touched = [&](auto pair_of, auto fn) {
        constexpr size_t kAhead = 16;
        for (const Side side : {Side::kLeft, Side::kRight}) {
          const std::vector<uint32_t>& touched = changes->touched(side);
          for (size_t i = 0; i < touched.size() && i < kAhead; ++i) {
            pairs.prefetch(pair_of(side, touched[i]));
          }
          for (size_t i = 0; i < touched.size(); ++i) {
            if (i + kAhead < touched.size()) pairs.prefetch(pair_of(side, touched[i + kAhead]));
            fn(side, touched[i]);
          }
        }
      };
      auto apply_changes = [&] {
        // The gains first: each is a new pair (it holds the new token; no two sides make the
        // same one, since a right neighbour is never the new token), its word list complete.
        // Then the losses, which may take back part of a gain: (t, a) where "a b a b" merged.
        for_each_touched(gained, [&](Side side, uint32_t n) {
          MergeChanges::Moved& moved = changes->at(side, n);
          if (moved.count < tracked_from) return;  // too few to be kept
          const PairKey pair = gained(side, n);
          PairInfo& info = pairs[pair];
          info.count += moved.count;
          info.words = std::move(moved.words);
          if (may_merge(pair)) queue.Push(pair, info.count);
        });
        for_each_touched(lost, [&](Side side, uint32_t n) {
          const PairKey pair = lost(side, n);
          if (pair == best) return;  // merging (a, a): gone already
          auto it = pairs.find(pair);
          if (it == pairs.end()) return;  // a pair not kept
          it->second.count -= changes->at(side, n).count;
          if (it->second.count <= 0) pairs.erase(it);
        });
      };

      // 4e. The next merge's pair is often known before these changes are applied: the
      //     queue's best now stays the best if they lower no count of it (it is no (P, a) or
      //     (b, N)) and make no pair that outranks it (a gained pair counts at most its entry's
      //     count). Its words, when too few to split (and not too few to hand over), are then
      //     rewritten on another worker while this one applies the changes: most merges are
      //     that small, and the changes are applied on one thread (the merge phase of web 1 GB
      //     to 32k in 0.93-0.99 of the time, bench/RESULTS.md). Only where sure: the merges
      //     are the same for any number of workers.
      if (Workers(parallelism) > 1 && tokens.merges() < max_merges) {
        if (const std::optional<PairKey> top = queue.PopMax(current_count)) {
          const int64_t count = current_count(*top);
          bool sure = count >= tracked_from &&
                      static_cast<uint64_t>(count) >= rules.min_frequency &&
                      PairRight(*top) != left && PairLeft(*top) != right;
          for (const Side side : {Side::kLeft, Side::kRight}) {
            for (size_t i = 0; sure && i < changes->touched(side).size(); ++i) {
              const uint32_t n = changes->touched(side)[i];
              const int64_t gain = changes->at(side, n).count;
              sure = gain < count || !queue.Outranks(gained(side, n), gain, *top, count);
            }
          }
          if (sure) {
            next_pair = top;
            next_node = pairs.extract(*top);
          } else {
            queue.Push(*top, count);
          }
        }
      }
      if (next_pair && next_node.mapped().words.size() >= kMinWordsBeside &&
          !rewriter.Splits(next_node.mapped().words.size())) {
        RunParts(parallelism, 2, [&](size_t part) {
          if (part == 0) return apply_changes();
          next_changes = &rewriter.MergeBeside(next_node.mapped().words, PairLeft(*next_pair),
                                               PairRight(*next_pair), token + 1, *changes);
        });
      } else {
        apply_changes();
      }
      if (progress && tokens.merges() % 1000 == 0) progress(tokens.merges());
      if (cancel != nullptr && tokens.merges() % 64 == 0 &&
          cancel->load(std::memory_order_relaxed)) {
        break;
      }
    }
  }
  if (progress && tokens.merges() % 1000 != 0) progress(tokens.merges());  // the end

  return tokens;
}

// The words of a NarrowWordTable with 32-bit symbols (they fit: a word takes fewer 32-bit
// units than 16-bit ones).
WordTable Widen(const NarrowWordTable& narrow) {
  WordTable wide;
  size_t units = 0;
  for (uint32_t w : narrow.ids()) units += WordTable::Units(narrow.length(w));
  wide.Reserve(narrow.size(), units);
  std::string bytes;
  for (uint32_t w : narrow.ids()) {
    const uint16_t* s = narrow.symbols(w);
    bytes.assign(s, s + narrow.length(w));  // every symbol is still a byte
    wide.Add(bytes, narrow.count(w));
  }
  return wide;
}

}  // namespace

TokenTree LearnMergeTree(WordTable& words, size_t max_merges,
                         const std::function<void(size_t)>& progress,
                         const Parallelism& parallelism, const std::atomic<bool>* cancel,
                         const MergeRules& rules, size_t min_indexed_length) {
  return LearnMergeTreeOf(words, max_merges, progress, parallelism, cancel, rules,
                          min_indexed_length);
}

TokenTree LearnMergeTree(NarrowWordTable& words, size_t max_merges,
                         const std::function<void(size_t)>& progress,
                         const Parallelism& parallelism, const std::atomic<bool>* cancel,
                         const MergeRules& rules, size_t min_indexed_length) {
  if (max_merges > NarrowWordTable::kMaxSymbol + 1 - 256 ||
      words.longest() >= std::max<size_t>(min_indexed_length, 2)) {
    WordTable wide = Widen(words);
    words = NarrowWordTable();
    return LearnMergeTreeOf(wide, max_merges, progress, parallelism, cancel, rules,
                            min_indexed_length);
  }
  return LearnMergeTreeOf(words, max_merges, progress, parallelism, cancel, rules,
                          min_indexed_length);
}

Merges SpellMerges(const TokenTree& tokens) {
  Merges merges;
  merges.reserve(tokens.merges());
  std::string left, right;
  for (size_t i = 0; i < tokens.merges(); ++i) {
    const auto [l, r] = tokens.parts(static_cast<uint32_t>(256 + i));
    merges.emplace_back(tokens.Bytes(l, &left), tokens.Bytes(r, &right));
  }
  return merges;
}

Merges LearnMerges(WordTable& words, size_t max_merges, const std::function<void(size_t)>& progress,
                   const Parallelism& parallelism, const std::atomic<bool>* cancel,
                   const MergeRules& rules, size_t min_indexed_length) {
  return SpellMerges(
      LearnMergeTree(words, max_merges, progress, parallelism, cancel, rules, min_indexed_length));
}

Merges LearnMerges(NarrowWordTable& words, size_t max_merges,
                   const std::function<void(size_t)>& progress, const Parallelism& parallelism,
                   const std::atomic<bool>* cancel, const MergeRules& rules,
                   size_t min_indexed_length) {
  return SpellMerges(
      LearnMergeTree(words, max_merges, progress, parallelism, cancel, rules, min_indexed_length));
}

}  // namespace bpeforge::internal
