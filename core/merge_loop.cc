#include "core/merge_loop.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "core/pair_queue.h"

namespace bpeforge {
namespace {

// Pair counts plus the inverted index pair -> words that (may) contain it. Index lists can
// hold stale or repeated word ids; Merge() checks each word it visits.
class PairStats {
 public:
  void Add(PairKey pair, int64_t delta, uint32_t word) {
    counts_[pair] += delta;
    if (delta > 0) {
      std::vector<uint32_t>& words = index_[pair];
      if (words.empty() || words.back() != word) words.push_back(word);
      grown_.push_back(pair);
    }
  }
  absl::flat_hash_map<PairKey, int64_t>& counts() { return counts_; }
  std::vector<uint32_t> TakeWords(PairKey pair) {
    auto node = index_.extract(pair);
    return node.empty() ? std::vector<uint32_t>{} : std::move(node.mapped());
  }
  // Pairs whose count grew since the last call (with repeats).
  std::vector<PairKey> TakeGrown() { return std::exchange(grown_, {}); }

 private:
  absl::flat_hash_map<PairKey, int64_t> counts_;
  absl::flat_hash_map<PairKey, std::vector<uint32_t>> index_;
  std::vector<PairKey> grown_;
};

// Rewrites every `left right` in word w (left to right, non-overlapping) as `merged`,
// updating the counts of the neighbouring pairs. Each step is a local rewrite
// P a b N -> P t N of the current sequence: pairs (P,a) (a,b) (b,N) go, (P,t) (t,N) come.
void MergeWord(WordTable& words, uint32_t w, uint32_t left, uint32_t right, uint32_t merged,
               PairStats& stats) {
  uint32_t* s = words.symbols(w);
  const uint32_t n = words.length(w);
  const int64_t f = static_cast<int64_t>(words.count(w));
  uint32_t out = 0;
  for (uint32_t i = 0; i < n;) {
    if (i + 1 < n && s[i] == left && s[i + 1] == right) {
      stats.Add(MakePair(left, right), -f, w);
      if (out > 0) {
        stats.Add(MakePair(s[out - 1], left), -f, w);
        stats.Add(MakePair(s[out - 1], merged), f, w);
      }
      if (i + 2 < n) {
        stats.Add(MakePair(right, s[i + 2]), -f, w);
        stats.Add(MakePair(merged, s[i + 2]), f, w);
      }
      s[out++] = merged;
      i += 2;
    } else {
      s[out++] = s[i++];
    }
  }
  words.set_length(w, out);
}

}  // namespace

Merges LearnMerges(WordTable& words, size_t max_merges,
                   const std::function<void(size_t)>& progress) {
  std::vector<std::string> token_bytes(256);
  for (int b = 0; b < 256; ++b) token_bytes[b] = std::string(1, static_cast<char>(b));

  PairStats stats;
  for (uint32_t w = 0; w < words.size(); ++w) {
    const uint32_t* s = words.symbols(w);
    for (uint32_t i = 0; i + 1 < words.length(w); ++i) {
      stats.Add(MakePair(s[i], s[i + 1]), static_cast<int64_t>(words.count(w)), w);
    }
  }
  PairQueue queue(token_bytes);
  for (const auto& [pair, count] : stats.counts()) queue.Push(pair, count);
  stats.TakeGrown();

  Merges merges;
  std::vector<uint32_t> visited_in(words.size(), UINT32_MAX);  // merge number of last visit
  while (merges.size() < max_merges) {
    std::optional<PairKey> best = queue.PopMax(stats.counts());
    if (!best) break;
    const uint32_t left = PairLeft(*best), right = PairRight(*best);
    const auto merged = static_cast<uint32_t>(token_bytes.size());
    merges.emplace_back(token_bytes[left], token_bytes[right]);
    token_bytes.push_back(token_bytes[left] + token_bytes[right]);

    const auto step = static_cast<uint32_t>(merges.size());
    for (uint32_t w : stats.TakeWords(*best)) {
      if (visited_in[w] == step) continue;
      visited_in[w] = step;
      MergeWord(words, w, left, right, merged, stats);
    }
    stats.counts().erase(*best);
    std::vector<PairKey> grown = stats.TakeGrown();
    std::sort(grown.begin(), grown.end());
    grown.erase(std::unique(grown.begin(), grown.end()), grown.end());
    for (PairKey p : grown) {
      auto it = stats.counts().find(p);
      if (it != stats.counts().end() && it->second > 0) queue.Push(p, it->second);
    }
    if (progress && merges.size() % 1000 == 0) progress(merges.size());
  }
  return merges;
}

}  // namespace bpeforge
