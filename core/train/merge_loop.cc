#include "core/train/merge_loop.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "core/internal/huge_pages.h"
#include "core/train/indexed_word.h"
#include "core/train/pair_queue.h"

namespace bpeforge::internal {
namespace {

// What the merge loop knows about one pair: its current count, and the words that may
// contain it (the inverted index; entries can be stale, MergeWord checks each word).
// Most pairs occur in a handful of words: their lists live inline, with no allocation (the
// same 24 bytes as a std::vector).
using WordList = absl::InlinedVector<uint32_t, 4>;
struct PairInfo {
  int64_t count = 0;
  WordList words;
};
using PairTable = absl::flat_hash_map<PairKey, PairInfo, absl::Hash<PairKey>, std::equal_to<>,
                                      HugePageAllocator<std::pair<const PairKey, PairInfo>>>;

// Count changes caused by one merge, gathered in a small map and applied to the big one once
// per distinct pair: a merge touches many occurrences but few distinct neighbour pairs.
// Every pair whose count grows contains the new symbol, so it is new, and its word list is
// complete when the merge ends.
using Changes = absl::flat_hash_map<PairKey, PairInfo>;

// Adds the counts and word lists of `part` into `total`. Parts are built from disjoint sets
// of words, so the concatenated lists still hold each word once.
template <typename Total, typename Part>
void AddPart(Total& total, const Part& part) {
  for (const auto& [pair, info] : part) {
    PairInfo& sum = total[pair];
    sum.count += info.count;
    sum.words.insert(sum.words.end(), info.words.begin(), info.words.end());
  }
}

void Record(Changes& changes, PairKey pair, int64_t delta, uint32_t word) {
  PairInfo& c = changes[pair];
  c.count += delta;
  if (delta > 0 && (c.words.empty() || c.words.back() != word)) c.words.push_back(word);
}

// Rewrites every `left right` in word w (left to right, non-overlapping) as `merged`. Each
// step is a local rewrite P a b N -> P t N of the current sequence: pairs (P,a) (a,b) (b,N)
// go, (P,t) (t,N) come. (a,b) itself is dropped wholesale after the merge.
void MergeWord(WordTable& words, uint32_t w, uint32_t left, uint32_t right, uint32_t merged,
               Changes& changes) {
  uint32_t* s = words.symbols(w);
  const uint32_t n = words.length(w);
  const auto f = static_cast<int64_t>(words.count(w));
  uint32_t out = 0;
  for (uint32_t i = 0; i < n;) {
    if (i + 1 < n && s[i] == left && s[i + 1] == right) {
      if (out > 0) {
        Record(changes, MakePair(s[out - 1], left), -f, w);
        Record(changes, MakePair(s[out - 1], merged), f, w);
      }
      if (i + 2 < n) {
        Record(changes, MakePair(right, s[i + 2]), -f, w);
        Record(changes, MakePair(merged, s[i + 2]), f, w);
      }
      s[out++] = merged;
      i += 2;
    } else {
      s[out++] = s[i++];
    }
  }
  words.set_length(w, out);
}

// The words long enough to be indexed, by id. Built before the first merge and read-only as
// a map afterwards, so the parts of a merge may rewrite their (disjoint) words at once.
using IndexedWords = absl::flat_hash_map<uint32_t, IndexedWord>;

IndexedWords IndexLongWords(const WordTable& words, size_t min_length) {
  IndexedWords indexed;
  for (uint32_t w : words.ids()) {
    if (words.length(w) >= min_length) {
      indexed.try_emplace(w, words.symbols(w), words.length(w));
    }
  }
  return indexed;
}

// MergeWord for any word: an indexed one keeps its length (its positions) and is rewritten
// through its index.
void Rewrite(WordTable& words, IndexedWords& indexed, size_t min_indexed, uint32_t w, uint32_t left,
             uint32_t right, uint32_t merged, Changes& changes) {
  if (words.length(w) < min_indexed) return MergeWord(words, w, left, right, merged, changes);
  const auto f = static_cast<int64_t>(words.count(w));
  indexed.find(w)->second.Merge(words.symbols(w), left, right, merged, [&](PairKey pair, int sign) {
    Record(changes, pair, sign * f, w);
  });
}

// The pairs of words[ids[begin..end)).
PairTable CountPairs(const WordTable& words, size_t begin, size_t end) {
  PairTable pairs;
  const std::vector<WordTable::WordId>& ids = words.ids();
  for (size_t k = begin; k < end; ++k) {
    const uint32_t w = ids[k];
    const uint32_t* s = words.symbols(w);
    const auto f = static_cast<int64_t>(words.count(w));
    for (uint32_t i = 0; i + 1 < words.length(w); ++i) {
      PairInfo& p = pairs[MakePair(s[i], s[i + 1])];
      p.count += f;
      if (p.words.empty() || p.words.back() != w) p.words.push_back(w);
    }
  }
  return pairs;
}

// The pairs of all words, counted in `workers` parts at once.
PairTable CountPairs(const WordTable& words, size_t workers, const Parallelism& parallelism) {
  const size_t n = words.size();
  if (workers == 1 || n < parallelism.min_split_words) return CountPairs(words, 0, n);
  std::vector<PairTable> parts(workers);
  parallelism.run(workers, [&](size_t part) {
    parts[part] = CountPairs(words, n * part / workers, n * (part + 1) / workers);
  });
  for (size_t part = 1; part < workers; ++part) {
    AddPart(parts[0], parts[part]);
    PairTable().swap(parts[part]);
  }
  return std::move(parts[0]);
}

}  // namespace

Merges LearnMerges(WordTable& words, size_t max_merges, const std::function<void(size_t)>& progress,
                   const Parallelism& parallelism, const std::atomic<bool>* cancel,
                   const MergeRules& rules, size_t min_indexed_length) {
  std::vector<std::string> token_bytes(256);
  for (int b = 0; b < 256; ++b) token_bytes[b] = std::string(1, static_cast<char>(b));

  const size_t workers = parallelism.run ? std::max<size_t>(parallelism.workers, 1) : 1;
  PairTable pairs = CountPairs(words, workers, parallelism);
  min_indexed_length = std::max<size_t>(min_indexed_length, 2);
  IndexedWords indexed = IndexLongWords(words, min_indexed_length);
  // A pair that would make too long a token is counted like any other but never queued, so
  // it is passed over (Hugging Face's max_token_length).
  auto may_merge = [&](PairKey p) {
    return rules.max_token_length == 0 ||
           token_bytes[PairLeft(p)].size() + token_bytes[PairRight(p)].size() <=
               rules.max_token_length;
  };
  PairQueue queue(token_bytes);
  for (const auto& [pair, info] : pairs) {
    if (may_merge(pair)) queue.Push(pair, info.count);
  }
  auto current_count = [&pairs](PairKey p) -> int64_t {
    auto it = pairs.find(p);
    return it == pairs.end() ? 0 : it->second.count;
  };

  Merges merges;
  std::vector<Changes> changes(workers);  // one per part of a merge's words
  while (merges.size() < max_merges) {
    std::optional<PairKey> best = queue.PopMax(current_count);
    if (!best) break;
    // The most frequent pair is below the minimum, so every other is too.
    if (static_cast<uint64_t>(current_count(*best)) < rules.min_frequency) break;
    const uint32_t left = PairLeft(*best), right = PairRight(*best);
    const auto merged = static_cast<uint32_t>(token_bytes.size());
    merges.emplace_back(token_bytes[left], token_bytes[right]);
    token_bytes.push_back(token_bytes[left] + token_bytes[right]);

    // A pair's word list holds each word once (lists are built one whole word at a time), so
    // the parts rewrite disjoint words and only their change maps need adding up.
    auto node = pairs.extract(*best);
    const WordList& visit = node.mapped().words;
    const size_t parts =
        visit.size() >= std::max<size_t>(parallelism.min_split_words, 1) ? workers : 1;
    auto rewrite_part = [&](size_t part) {
      constexpr size_t kAhead = 8;  // words in flight: the walk is bound by memory latency
      const size_t begin = visit.size() * part / parts, end = visit.size() * (part + 1) / parts;
      for (size_t i = begin; i < end; ++i) {
        if (i + kAhead < end) words.Prefetch(visit[i + kAhead]);
        Rewrite(words, indexed, min_indexed_length, visit[i], left, right, merged, changes[part]);
      }
    };
    if (parts == 1) {
      rewrite_part(0);
    } else {
      parallelism.run(parts, rewrite_part);
      for (size_t part = 1; part < parts; ++part) {
        AddPart(changes[0], changes[part]);
        changes[part].clear();
      }
    }
    for (auto& [pair, change] : changes[0]) {
      if (pair == *best) continue;
      auto it = pairs.try_emplace(pair).first;
      PairInfo& info = it->second;
      info.count += change.count;
      if (!change.words.empty()) {  // a new pair: its list is complete
        info.words = std::move(change.words);
        if (info.count > 0 && may_merge(pair)) queue.Push(pair, info.count);
      }
      if (info.count <= 0) pairs.erase(it);
    }
    changes[0].clear();
    if (progress && merges.size() % 1000 == 0) progress(merges.size());
    if (cancel != nullptr && merges.size() % 64 == 0 && cancel->load(std::memory_order_relaxed)) {
      break;
    }
  }
  return merges;
}

}  // namespace bpeforge::internal
