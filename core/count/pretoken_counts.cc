#include "core/count/pretoken_counts.h"

#include <optional>

#include "core/pretokenize/inline_split.h"

namespace bpeforge::internal {
namespace {

uint64_t Count(absl::string_view text, const SpecialTokens& specials,
               const PreTokenizer& pretokenizer, PreTokenCounts& counts) {
  uint64_t seen = 0;
  specials.Split(
      text,
      [&](absl::string_view piece) {
        ForEachPreToken(pretokenizer, piece, [&](absl::string_view token) {
          ++counts[token];
          ++seen;
        });
      },
      [](size_t) {});
  return seen;
}

// The packed counter takes its pre-tokens one by one while its table is small and in batches
// (views into `text`, which outlives them) once it prefers them; the choice is made per piece.
// One by one, they go through `recent`, a cache of recent pre-tokens, if there is one; else a
// text of a chunk's size makes its own, while a short one (a JSON Lines document counted on
// its own) would not repay the cache's setup.
constexpr size_t kCacheFromBytes = 256 << 10;
template <typename Loop>
[[gnu::noinline]] uint64_t CountWith(Loop loop, absl::string_view text,
                                     const SpecialTokens& specials, CountingTable& counts,
                                     CountingTable::RecentCache* recent, uint64_t* special_counts) {
  uint64_t seen = 0;
  absl::string_view batch[CountingTable::Batches::kBatch];
  const char* const end = text.data() + text.size();  // every token lies in text
  std::optional<CountingTable::Batches> own_batches;  // without a cache, made when first needed
  std::optional<CountingTable::RecentCache> own;
  if (recent == nullptr && text.size() >= kCacheFromBytes) recent = &own.emplace(counts);
  specials.Split(
      text,
      [&](absl::string_view piece) {
        if (!counts.PrefersBatches()) {
          loop(piece, [&](absl::string_view token) {
            if (recent != nullptr) {
              recent->Add(token, end);
            } else {
              counts.Add(token, end);
            }
            ++seen;
          });
          return;
        }
        CountingTable::Batches& batches =
            recent != nullptr ? recent->batches()
                              : (own_batches ? *own_batches : own_batches.emplace(counts));
        size_t n = 0;
        loop(piece, [&](absl::string_view token) {
          batch[n++] = token;
          if (n == CountingTable::Batches::kBatch) {
            batches.Add(batch, n, end);
            seen += n;
            n = 0;
          }
        });
        batches.Add(batch, n, end);
        seen += n;
      },
      [special_counts](size_t index) {
        if (special_counts != nullptr) ++special_counts[index];
      });
  return seen;
}

uint64_t Count(absl::string_view text, const SpecialTokens& specials,
               const PreTokenizer& pretokenizer, CountingTable& counts,
               CountingTable::RecentCache* recent, uint64_t* special_counts,
               const std::atomic<bool>* stop) {
  return WithLoop(
      pretokenizer,
      [&](auto loop) { return CountWith(loop, text, specials, counts, recent, special_counts); },
      stop);
}

}  // namespace

uint64_t CountPreTokens(absl::string_view text, const SpecialTokens& specials,
                        const PreTokenizer& pretokenizer, PreTokenCounts* counts) {
  return Count(text, specials, pretokenizer, *counts);
}

uint64_t CountPreTokens(absl::string_view text, const SpecialTokens& specials,
                        const PreTokenizer& pretokenizer, CountingTable* counts) {
  return Count(text, specials, pretokenizer, *counts, nullptr, nullptr, nullptr);
}

uint64_t CountPreTokens(absl::string_view text, const SpecialTokens& specials,
                        const PreTokenizer& pretokenizer, CountingTable::RecentCache* recent,
                        uint64_t* special_counts, const std::atomic<bool>* stop) {
  return Count(text, specials, pretokenizer, recent->table(), recent, special_counts, stop);
}

uint64_t ScanPreTokens(absl::string_view text, const SpecialTokens& specials,
                       const PreTokenizer& pretokenizer) {
  uint64_t seen = 0;
  specials.Split(
      text,
      [&](absl::string_view piece) {
        ForEachPreToken(pretokenizer, piece, [&](absl::string_view) { ++seen; });
      },
      [](size_t) {});
  return seen;
}

}  // namespace bpeforge::internal
