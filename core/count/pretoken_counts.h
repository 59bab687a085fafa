// Counting pre-tokens: the first phase of training.
#ifndef BPEFORGE_CORE_COUNT_PRETOKEN_COUNTS_H_
#define BPEFORGE_CORE_COUNT_PRETOKEN_COUNTS_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "core/count/counting_table.h"
#include "core/pretokenize/pretokenizer.h"
#include "core/pretokenize/special_tokens.h"

namespace bpeforge::internal {

// Pre-token bytes -> number of occurrences. Lookups take string_view, so counting an
// already-known pre-token allocates nothing.
using PreTokenCounts = absl::flat_hash_map<std::string, uint64_t>;

// Adds (pre-token, count) pairs to a large map, each slot fetched kAhead pairs before the pair
// lands in it: in a map of hundreds of MB nearly every slot misses the caches, and one at a
// time the misses queue. All are added once it goes out of scope. It keeps copies of the last
// kAhead pre-tokens, so the bytes passed need live only for the call.
//
//   { PrefetchingAdder add(&counts); for (...) add(word, n); }
class PrefetchingAdder {
 public:
  explicit PrefetchingAdder(PreTokenCounts* counts) : counts_(*counts) {}
  PrefetchingAdder(const PrefetchingAdder&) = delete;
  PrefetchingAdder& operator=(const PrefetchingAdder&) = delete;
  ~PrefetchingAdder() {
    for (size_t i = added_ > kAhead ? added_ - kAhead : 0; i < added_; ++i) AddDue(i);
  }
  void operator()(absl::string_view word, uint64_t n) {
    counts_.prefetch(word);
    if (added_ >= kAhead) AddDue(added_);
    ahead_[added_ % kAhead].first.assign(word.data(), word.size());
    ahead_[added_ % kAhead].second = n;
    ++added_;
  }

 private:
  static constexpr size_t kAhead = 16;
  void AddDue(size_t i) {
    auto& [word, n] = ahead_[i % kAhead];
    counts_[std::move(word)] += n;
  }
  PreTokenCounts& counts_;
  std::pair<std::string, uint64_t> ahead_[kAhead];
  size_t added_ = 0;
};

// Adds the pre-tokens of `text` to `counts`: special tokens are cut out (they never take
// part in merges) and every piece between them is pre-tokenized. Returns the number of
// pre-tokens seen.
uint64_t CountPreTokens(absl::string_view text, const SpecialTokens& specials,
                        const PreTokenizer& pretokenizer, PreTokenCounts* counts);
uint64_t CountPreTokens(absl::string_view text, const SpecialTokens& specials,
                        const PreTokenizer& pretokenizer, CountingTable* counts);
// The same into recent->table(), through `recent`, a cache that outlives the call: a worker
// that counts many short texts (JSON Lines documents) keeps one, where the call above makes
// one for each text of a chunk's size only. The table is complete once `recent` is destroyed.
// `special_counts`, if given (one per specials.tokens()), counts the special tokens cut out.
// Once `stop` (when given) reads true, counting may end early, the counts incomplete
// (PreTokenizer::SplitUntil): for the caller that set it, which discards them.
uint64_t CountPreTokens(absl::string_view text, const SpecialTokens& specials,
                        const PreTokenizer& pretokenizer, CountingTable::RecentCache* recent,
                        uint64_t* special_counts = nullptr,
                        const std::atomic<bool>* stop = nullptr);

// The same pass with nothing counted: splits on special tokens, pre-tokenizes and returns the
// number of pre-tokens. A benchmark's yardstick for what counting adds to the scan.
uint64_t ScanPreTokens(absl::string_view text, const SpecialTokens& specials,
                       const PreTokenizer& pretokenizer);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_COUNT_PRETOKEN_COUNTS_H_
