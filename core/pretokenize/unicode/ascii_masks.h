// The classes of 64 ASCII bytes at once, as bit masks (bit i is byte i), for the
// pre-tokenizer's block path: with the classes of a whole block in registers, token
// boundaries come out of a few shifts and ands instead of a branch per byte.
#ifndef BPEFORGE_CORE_PRETOKENIZE_UNICODE_ASCII_MASKS_H_
#define BPEFORGE_CORE_PRETOKENIZE_UNICODE_ASCII_MASKS_H_

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/pretokenize/unicode/char_class.h"

namespace bpeforge::unicode {

struct AsciiMasks {
  uint64_t letter;      // A-Z a-z
  uint64_t upper;       // A-Z
  uint64_t digit;       // 0-9
  uint64_t space;       // \t \n \v \f \r and ' ' (the ASCII White_Space characters)
  uint64_t blank;       // ' '
  uint64_t newline;     // \r \n
  uint64_t apostrophe;  // '
  uint64_t slash;       // /
  uint64_t non_ascii;   // bytes >= 0x80; the other masks say nothing about these bytes
};

#if defined(__SSE2__)
// 0xFF in each byte of x that lies in [lo, hi], 0 in the others: x is in [lo, hi] iff
// x - lo - 128, as a signed byte, is below hi - lo - 127.
inline __m128i BytesInRange(__m128i x, uint8_t lo, uint8_t hi) {
  const __m128i shifted = _mm_sub_epi8(x, _mm_set1_epi8(static_cast<char>(lo + 128)));
  return _mm_cmplt_epi8(shifted, _mm_set1_epi8(static_cast<char>(hi - lo - 127)));
}
#endif

// Reads p[0..63].
inline AsciiMasks ClassifyAscii64(const uint8_t* p) {
  AsciiMasks m{};
#if defined(__SSE2__)
  auto bits = [](__m128i v, int i) {
    return static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(v))) << (16 * i);
  };
  for (int i = 0; i < 4; ++i) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i));
    const __m128i blank = _mm_cmpeq_epi8(x, _mm_set1_epi8(' '));
    m.letter |= bits(BytesInRange(_mm_or_si128(x, _mm_set1_epi8(0x20)), 'a', 'z'), i);
    m.digit |= bits(BytesInRange(x, '0', '9'), i);
    m.space |= bits(_mm_or_si128(blank, BytesInRange(x, '\t', '\r')), i);
    m.blank |= bits(blank, i);
    m.newline |= bits(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('\r')),
                                   _mm_cmpeq_epi8(x, _mm_set1_epi8('\n'))),
                      i);
    m.apostrophe |= bits(_mm_cmpeq_epi8(x, _mm_set1_epi8('\'')), i);
    m.slash |= bits(_mm_cmpeq_epi8(x, _mm_set1_epi8('/')), i);
    m.upper |= bits(BytesInRange(x, 'A', 'Z'), i);
    m.non_ascii |= bits(x, i);
  }
#else
  for (int i = 0; i < 64; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    if (p[i] >= 0x80) {
      m.non_ascii |= bit;
      continue;
    }
    const uint8_t cls = kAsciiClass[p[i]];
    if (cls & kLetter) m.letter |= bit;
    if (cls & kNumber) m.digit |= bit;
    if (cls & kSpace) m.space |= bit;
    if (p[i] == ' ') m.blank |= bit;
    if (cls & kNewline) m.newline |= bit;
    if (p[i] == '\'') m.apostrophe |= bit;
    if (p[i] == '/') m.slash |= bit;
    if (p[i] >= 'A' && p[i] <= 'Z') m.upper |= bit;
  }
#endif
  return m;
}

}  // namespace bpeforge::unicode

#endif  // BPEFORGE_CORE_PRETOKENIZE_UNICODE_ASCII_MASKS_H_
