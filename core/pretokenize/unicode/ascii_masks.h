// The classes of 64 ASCII bytes at once, as bit masks (bit i is byte i), for the
// pre-tokenizer's block path: with the classes of a whole block in registers, token
// boundaries come out of a few shifts and ands instead of a branch per byte. One classifier
// per SIMD path (core/internal/simd.h): sixteen bytes at a time with SSE2, thirty-two with
// AVX2, and all 64 with AVX-512, whose compares give the bit masks themselves.
#ifndef BPEFORGE_CORE_PRETOKENIZE_UNICODE_ASCII_MASKS_H_
#define BPEFORGE_CORE_PRETOKENIZE_UNICODE_ASCII_MASKS_H_

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/internal/simd.h"
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

// Reads p[0..63]. The baseline path's classifier. Always inlined, as are the others: out of
// line, it would compute every mask, where a pattern's arithmetic uses some.
[[gnu::always_inline]] inline AsciiMasks ClassifyAscii64(const uint8_t* p) {
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

#if defined(__x86_64__)
BPEFORGE_SIMD_TARGET_BEGIN_AVX2

// As BytesInRange, for 32 bytes.
inline __m256i BytesInRange32(__m256i x, uint8_t lo, uint8_t hi) {
  const __m256i shifted = _mm256_sub_epi8(x, _mm256_set1_epi8(static_cast<char>(lo + 128)));
  return _mm256_cmpgt_epi8(_mm256_set1_epi8(static_cast<char>(hi - lo - 127)), shifted);
}

// The top bits of the bytes of two 32-byte halves, as one mask.
inline uint64_t Bits64(__m256i lo, __m256i hi) {
  return static_cast<uint32_t>(_mm256_movemask_epi8(lo)) |
         uint64_t{static_cast<uint32_t>(_mm256_movemask_epi8(hi))} << 32;
}

// ClassifyAscii64 with AVX2.
[[gnu::always_inline]] inline AsciiMasks ClassifyAscii64Avx2(const uint8_t* p) {
  const __m256i x[2] = {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)),
                        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32))};
  __m256i letter[2], upper[2], digit[2], space[2], blank[2], newline[2], apostrophe[2], slash[2];
  for (int i = 0; i < 2; ++i) {
    blank[i] = _mm256_cmpeq_epi8(x[i], _mm256_set1_epi8(' '));
    letter[i] = BytesInRange32(_mm256_or_si256(x[i], _mm256_set1_epi8(0x20)), 'a', 'z');
    upper[i] = BytesInRange32(x[i], 'A', 'Z');
    digit[i] = BytesInRange32(x[i], '0', '9');
    space[i] = _mm256_or_si256(blank[i], BytesInRange32(x[i], '\t', '\r'));
    newline[i] = _mm256_or_si256(_mm256_cmpeq_epi8(x[i], _mm256_set1_epi8('\r')),
                                 _mm256_cmpeq_epi8(x[i], _mm256_set1_epi8('\n')));
    apostrophe[i] = _mm256_cmpeq_epi8(x[i], _mm256_set1_epi8('\''));
    slash[i] = _mm256_cmpeq_epi8(x[i], _mm256_set1_epi8('/'));
  }
  AsciiMasks m;
  m.letter = Bits64(letter[0], letter[1]);
  m.upper = Bits64(upper[0], upper[1]);
  m.digit = Bits64(digit[0], digit[1]);
  m.space = Bits64(space[0], space[1]);
  m.blank = Bits64(blank[0], blank[1]);
  m.newline = Bits64(newline[0], newline[1]);
  m.apostrophe = Bits64(apostrophe[0], apostrophe[1]);
  m.slash = Bits64(slash[0], slash[1]);
  m.non_ascii = Bits64(x[0], x[1]);
  return m;
}

BPEFORGE_SIMD_TARGET_END
BPEFORGE_SIMD_TARGET_BEGIN_AVX512

// The bytes of x that lie in [lo, hi], as a mask.
inline uint64_t BytesInRange64(__m512i x, uint8_t lo, uint8_t hi) {
  return _mm512_cmple_epu8_mask(_mm512_sub_epi8(x, _mm512_set1_epi8(static_cast<char>(lo))),
                                _mm512_set1_epi8(static_cast<char>(hi - lo)));
}

inline uint64_t BytesEqual64(__m512i x, char c) {
  return _mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(c));
}

// ClassifyAscii64 with AVX-512: one load, and each class a single compare into a mask.
[[gnu::always_inline]] inline AsciiMasks ClassifyAscii64Avx512(const uint8_t* p) {
  const __m512i x = _mm512_loadu_si512(p);
  AsciiMasks m;
  m.blank = BytesEqual64(x, ' ');
  m.letter = BytesInRange64(_mm512_or_si512(x, _mm512_set1_epi8(0x20)), 'a', 'z');
  m.upper = BytesInRange64(x, 'A', 'Z');
  m.digit = BytesInRange64(x, '0', '9');
  m.space = m.blank | BytesInRange64(x, '\t', '\r');
  m.newline = BytesEqual64(x, '\r') | BytesEqual64(x, '\n');
  m.apostrophe = BytesEqual64(x, '\'');
  m.slash = BytesEqual64(x, '/');
  m.non_ascii = _mm512_movepi8_mask(x);
  return m;
}

BPEFORGE_SIMD_TARGET_END
#endif  // defined(__x86_64__)

}  // namespace bpeforge::unicode

#endif  // BPEFORGE_CORE_PRETOKENIZE_UNICODE_ASCII_MASKS_H_
