// The vectorised search for a pair of symbols in a word, which the merge loop runs on every
// word it visits.
//
//   const uint32_t at = FindPair<uint32_t>(symbols, length, left, right, /*before=*/0);
//   if (at == length) { /* the pair is not in the word */ }
#ifndef BPEFORGE_CORE_TRAIN_FIND_PAIR_H_
#define BPEFORGE_CORE_TRAIN_FIND_PAIR_H_

#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bpeforge::internal {

// The place of the first `left right` in s[0..n), or n; the `before` symbols before s may be
// read too (a word's count and length, in its record). Where SSE2 is there, 16 bytes of
// symbols are compared at a time: many visits find the pair gone, and a word is then passed
// over with one or two tests instead of a branch on every symbol. Nothing past the word is
// read: the word after it may be another thread's to rewrite.
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

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_FIND_PAIR_H_
