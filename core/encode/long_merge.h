// tiktoken's byte pair merge for a pre-token of any length: the adjacent pair of parts whose
// joined bytes have the lowest rank is joined, the leftmost of equal ranks first, until no pair
// is a token. The quadratic scan (BpeCodec's short pieces) would take hours on a pre-token of
// megabytes (a file of one letter, a long DNA sequence); this takes O(n log n) time and about
// 8 bytes of memory per byte of the piece: 4 for the parts, 4 for each pair waiting to be
// joined.
//
//   MergeLongPiece(
//       piece, [&](absl::string_view bytes) { return RankOf(bytes); },  // kNoRank: no token
//       [&](absl::string_view part) { out->push_back(IdOf(part)); }, stop);
#ifndef BPEFORGE_CORE_ENCODE_LONG_MERGE_H_
#define BPEFORGE_CORE_ENCODE_LONG_MERGE_H_

#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace bpeforge::internal {

// What `rank_of` returns for bytes that are no token.
inline constexpr uint32_t kNoRank = std::numeric_limits<uint32_t>::max();

// Merges `piece` (two bytes or more) by the ranks `rank_of` gives its pairs' bytes, then calls
// `emit` with its parts in order. Returns false, having emitted nothing, if `stop` (when given)
// read true first. `on_join` (when given) hears the rank of each join, in order.
bool MergeLongPiece(absl::string_view piece, absl::FunctionRef<uint32_t(absl::string_view)> rank_of,
                    absl::FunctionRef<void(absl::string_view)> emit, const std::atomic<bool>* stop,
                    std::optional<absl::FunctionRef<void(uint32_t)>> on_join = std::nullopt);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_ENCODE_LONG_MERGE_H_
