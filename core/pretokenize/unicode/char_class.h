// Character classes of the pre-tokenization patterns, one byte per code point.
//
// The tables behind ClassOf are generated at build time from ICU by gen_unicode_tables.cc,
// so the classes follow the Unicode version of the ICU the project is built with.
#ifndef BPEFORGE_CORE_PRETOKENIZE_UNICODE_CHAR_CLASS_H_
#define BPEFORGE_CORE_PRETOKENIZE_UNICODE_CHAR_CLASS_H_

#include <cstddef>
#include <cstdint>

namespace bpeforge::unicode {

// Bits of a class byte. A code point with none of them (punctuation, symbols, controls,
// unassigned, surrogates) is "other", as is any byte that does not decode.
enum CharClassBit : uint8_t {
  kLetter = 1 << 0,  // \p{L}
  kNumber = 1 << 1,  // \p{N}
  // \s as Python's `regex` module (and tiktoken) reads it: the Unicode White_Space property.
  // That excludes U+001C..U+001F, which ICU's u_isspace (and so Boost's \s) counts as space.
  kSpace = 1 << 2,
  // o200k's two word classes: [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] and [\p{Ll}\p{Lm}\p{Lo}\p{M}].
  // Letters without case (Lm, Lo) and marks belong to both.
  kUpperOrUncased = 1 << 3,
  kLowerOrUncased = 1 << 4,
  kNewline = 1 << 5,  // \r or \n
};

// Code points are looked up in two stages: kBlockIndex maps cp >> kBlockBits to a block of
// kBlocks, where blocks with equal contents are stored once (about 220 of the 8704 differ,
// so a byte indexes them and the tables take some 37 KB).
inline constexpr int kBlockBits = 7;
inline constexpr size_t kBlockSize = size_t{1} << kBlockBits;
inline constexpr size_t kBlockIndexSize = 0x110000 >> kBlockBits;

extern const uint8_t kAsciiClass[128];
extern const uint8_t kBlockIndex[kBlockIndexSize];
extern const uint8_t kBlocks[];

// `cp` must be at most U+10FFFF.
inline uint8_t ClassOf(char32_t cp) {
  return kBlocks[size_t{kBlockIndex[cp >> kBlockBits]} * kBlockSize + (cp & (kBlockSize - 1))];
}

}  // namespace bpeforge::unicode

#endif  // BPEFORGE_CORE_PRETOKENIZE_UNICODE_CHAR_CLASS_H_
