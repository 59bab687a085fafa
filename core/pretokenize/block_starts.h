// Where pre-tokens start in 64 bytes of ASCII text, for the built-in patterns: the fast path
// of their matchers (block_scan-inl.h runs the loop). With the classes of a whole block as bit
// masks (unicode/ascii_masks.h), the starts come out of a few shifts and ands instead of a
// branch per byte.
//
// Each function takes the masks of p[0..63] and returns the starts among them as bits, given
// that p starts a pre-token and that p[64] is readable. Only the starts it can decide from the
// block's ASCII bytes are set: bits from the first non-ASCII byte minus one on are left clear,
// as are those of a white-space run that may go on past what the block knows (its split
// depends on where it ends). `*last_non_ascii` is the offset of the block's last non-ASCII
// byte (p[64] included), or -1. They are always inlined, so that each SIMD path's loop
// compiles them with its own instructions.
#ifndef BPEFORGE_CORE_PRETOKENIZE_BLOCK_STARTS_H_
#define BPEFORGE_CORE_PRETOKENIZE_BLOCK_STARTS_H_

#include <algorithm>
#include <cstdint>

#include "core/pretokenize/unicode/ascii_masks.h"
#include "core/pretokenize/unicode/char_class.h"

namespace bpeforge::internal::match_internal {

using Byte = uint8_t;

// The matchers of one pre-token at a time (fast_pretokenizer.cc): the end of the pre-token that
// starts at p < end.
const Byte* NextGpt2(const Byte* p, const Byte* end);
const Byte* NextCl100k(const Byte* p, const Byte* end);
const Byte* NextO200k(const Byte* p, const Byte* end);

// The bits below the block's first non-ASCII byte minus one (all of them when there is none),
// and *last_non_ascii as above. A start depends on the byte after it, and the masks know
// nothing of non-ASCII characters.
[[gnu::always_inline]] inline uint64_t DecidedBeforeNonAscii(const unicode::AsciiMasks& m,
                                                             const Byte* p, int* last_non_ascii) {
  *last_non_ascii = -1;
  if (m.non_ascii == 0 && p[64] < 0x80) return ~uint64_t{0};
  *last_non_ascii = p[64] >= 0x80 ? 64 : 63 - __builtin_clzll(m.non_ascii);
  const int first = m.non_ascii != 0 ? __builtin_ctzll(m.non_ascii) : 64;
  return first < 2 ? 0 : (uint64_t{1} << (first - 1)) - 1;
}

inline uint64_t RunStarts(uint64_t x) { return x & ~(x << 1); }

// Whether b is ASCII white space (\t \n \v \f \r or ' '), without a branch: on the byte after
// each block, a branch (on whether it is ASCII, before looking it up) mispredicted once in four
// blocks of English.
inline bool IsAsciiSpace(Byte b) { return (b == ' ') | (static_cast<Byte>(b - '\t') < 5); }

// GPT-2's contractions '(?:[sdmt]|ll|ve|re) at p: the match length, or 0.
[[gnu::always_inline]] inline int Gpt2ContractionLength(const Byte* p, const Byte* end) {
  if (end - p < 2 || p[0] != '\'') return 0;
  const Byte b = p[1];
  if (b == 's' || b == 'd' || b == 'm' || b == 't') return 2;
  if (end - p >= 3 &&
      ((b == 'l' && p[2] == 'l') || (b == 'v' && p[2] == 'e') || (b == 'r' && p[2] == 'e'))) {
    return 3;
  }
  return 0;
}

// The character at p < end, as its class and length; false where it does not decode (or runs
// past end). Only for the non-ASCII characters that FoldNonAscii folds into a block.
inline bool DecodeClass(const Byte* p, const Byte* end, uint8_t* cls, int* length) {
  auto continues = [](Byte b) { return (b & 0xC0) == 0x80; };
  const Byte b0 = p[0];
  const ptrdiff_t avail = end - p;
  char32_t cp;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    if (avail < 2 || !continues(p[1])) return false;
    cp = (char32_t{b0 & 0x1Fu} << 6) | (p[1] & 0x3Fu);
    *length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (avail < 3 || !continues(p[1]) || !continues(p[2])) return false;
    cp = (char32_t{b0 & 0x0Fu} << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    *length = 3;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (avail < 4 || !continues(p[1]) || !continues(p[2]) || !continues(p[3])) return false;
    cp = (char32_t{b0 & 0x07u} << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) |
         (p[3] & 0x3Fu);
    if (cp > 0x10FFFF) return false;
    *length = 4;
  } else {
    return false;
  }
  *cls = unicode::ClassOf(cp);
  return true;
}

// For a block of p that holds non-ASCII bytes (`non_ascii`): folds its characters into the
// letter and digit masks, every byte of a character taking the character's class, so that the
// block's bit arithmetic takes them as it takes ASCII (the others, with neither bit, are
// "other" there); and says whether the character at p[64] is white space. Fails, changing
// nothing, where a character of the block is white space (the arithmetic splits white-space
// runs by bytes, which a space of several bytes would break) or does not decode.
[[gnu::noinline]] inline bool FoldNonAscii(const Byte* p, const Byte* end, uint64_t non_ascii,
                                           uint64_t* letter, uint64_t* digit, bool* space_at_64) {
  uint64_t letters = 0, digits = 0;
  int length = 0;
  for (uint64_t todo = non_ascii; todo != 0;) {
    const int i = __builtin_ctzll(todo);
    uint8_t cls;
    if (!DecodeClass(p + i, end, &cls, &length) || (cls & unicode::kSpace) != 0) return false;
    const uint64_t bytes = ((uint64_t{1} << length) - 1) << i;  // those past the block drop
    if (cls & unicode::kLetter) letters |= bytes;
    if (cls & unicode::kNumber) digits |= bytes;
    todo &= ~bytes;
  }
  uint8_t after = 0;  // the class of the character at p[64]
  if (p[64] < 0x80) {
    after = unicode::kAsciiClass[p[64]];
  } else if (p[64] >= 0xC0 && !DecodeClass(p + 64, end, &after, &length)) {
    return false;
  }  // else p[64] continues a character of the block, which is no white space
  *space_at_64 = (after & unicode::kSpace) != 0;
  *letter |= letters;
  *digit |= digits;
  return true;
}

// GPT-2: '(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// Where no contraction is involved, whether byte i starts a pre-token depends only on the
// classes of bytes i-1, i and i+1:
//   - a run of letters, digits or others starts at its first byte, or at the byte before
//     when that is ' ' (" ?" takes it, and a space before a non-space always starts one);
//   - a white-space run starts a pre-token, and when a non-space follows a run of two or
//     more, so does the run's last byte (\s+(?!\S) gives it back).
// A contraction matters only where an apostrophe starts a pre-token: it then swallows the
// letter run start after the apostrophe and ends one or two letters later.
//
// Non-ASCII letters, numbers and others (not white space) join the arithmetic through
// FoldNonAscii; where that fails, the starts from the first non-ASCII byte minus one on are left
// undecided. The check is written out rather than through DecidedBeforeNonAscii: that version
// counted TinyStories-like text more slowly.
[[gnu::always_inline]] inline uint64_t Gpt2BlockStarts(const unicode::AsciiMasks& m, const Byte* p,
                                                       const Byte* end, int* last_non_ascii) {
  uint64_t decided = ~uint64_t{0};
  *last_non_ascii = -1;
  uint64_t letter = m.letter, digit = m.digit;
  bool space_at_64 = IsAsciiSpace(p[64]);
  if ((m.non_ascii != 0 || p[64] >= 0x80) &&
      !FoldNonAscii(p, end, m.non_ascii, &letter, &digit, &space_at_64)) {
    *last_non_ascii = p[64] >= 0x80 ? 64 : 63 - __builtin_clzll(m.non_ascii);
    const int first = m.non_ascii != 0 ? __builtin_ctzll(m.non_ascii) : 64;
    if (first < 2) return 1;
    decided = (uint64_t{1} << (first - 1)) - 1;
  }
  const uint64_t space_after = (m.space >> 1) | (uint64_t{space_at_64} << 63);
  const uint64_t other = ~(letter | digit | m.space);
  uint64_t starts = ((RunStarts(letter) | RunStarts(digit) | RunStarts(other)) & ~(m.blank << 1)) |
                    RunStarts(m.space) | (m.space & (m.space << 1) & ~space_after) | 1;
  for (uint64_t a = m.apostrophe & starts & decided; a != 0; a &= a - 1) {
    const int i = __builtin_ctzll(a);
    const int n = Gpt2ContractionLength(p + i, end);
    if (n == 0) continue;
    starts &= ~(uint64_t{2} << i);  // the letter after the apostrophe is inside
    if (i + n < 64) starts |= letter & (uint64_t{1} << (i + n));  // letters go on after it
  }
  return starts & decided;
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d) at p, in ASCII: the match length, or 0. (U+017F, which folds to
// 's', is not ASCII: a block leaves the apostrophe before it undecided.)
[[gnu::always_inline]] inline int ContractionLengthIgnoreCase(const Byte* p, const Byte* end) {
  if (end - p < 2 || p[0] != '\'') return 0;
  const Byte b = p[1] | 0x20;  // ASCII lower case; the non-letters this maps match nothing
  if (b == 's' || b == 't' || b == 'm' || b == 'd') return 2;
  if (end - p < 3) return 0;
  const Byte b2 = p[2] | 0x20;
  return (b == 'r' && b2 == 'e') || (b == 'v' && b2 == 'e') || (b == 'l' && b2 == 'l') ? 3 : 0;
}

// What cl100k and o200k share after their word alternatives, in a block:
//   \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n<trailing>]*|\s*[\r\n]+|\s+(?!\S)|\s+
// With letters L, digits D, white space S (newlines NL among it, the rest NN) and others O:
//   - a digit run starts a pre-token, and so does every third digit after;
//   - an O starts one unless the byte before is an O that O+ took or ' ' (" ?" took it);
//   - the NL (o200k: and '/') right after an O run belong to it. The rest of a white-space run
//     starts a pre-token; \s*[\r\n]+ ends after its last newline, and of the NN after that,
//     \s+(?!\S) gives the last byte back when there are two or more.
struct SharedStarts {
  uint64_t starts;        // digits, O and white space
  uint64_t other_starts;  // the O that start a pre-token (a word's prefix when a letter follows)
  uint64_t prefix;        // the bytes that are a word's prefix when a letter follows them
  uint64_t decided;       // narrowed where a white-space run may go on past the block
};

[[gnu::always_inline]] inline SharedStarts CommonStarts(const unicode::AsciiMasks& m, const Byte* p,
                                                        uint64_t decided, bool last_non_ascii,
                                                        uint64_t other, uint64_t trailing) {
  SharedStarts r;
  // A white-space run through the byte after the last decided one may go on past what the
  // block knows, and where it ends decides where it splits: leave it undecided.
  const bool space_at_64 = IsAsciiSpace(p[64]);
  const int known_last = std::min(63 - __builtin_clzll(decided) + 1, 63);
  if ((last_non_ascii || space_at_64) && ((m.space >> known_last) & 1) != 0) {
    const uint64_t non_space =
        ~m.space & (known_last == 63 ? ~uint64_t{0} : (uint64_t{2} << known_last) - 1);
    const int run_start = non_space == 0 ? 0 : 64 - __builtin_clzll(non_space);
    decided &= (uint64_t{1} << run_start) - 1;
  }
  r.decided = decided;
  const uint64_t non_newline_space = m.space & ~m.newline;
  // Digits: a run's first, then every third while the run goes on.
  const uint64_t digit4 = m.digit & (m.digit << 1) & (m.digit << 2) & (m.digit << 3);
  uint64_t digit_starts = RunStarts(m.digit);
  for (uint64_t g = digit_starts; (g = (g << 3) & digit4) != 0;) digit_starts |= g;
  // What an O run takes after it: a carry runs from each NL right after an O through the run
  // of NL and `trailing`. An NL after a taken '/' would start a second carry in the same
  // run, so those (rare) runs are followed one at a time.
  const uint64_t takes = m.newline | trailing;
  const uint64_t seeds = (other << 1) & m.newline;
  uint64_t taken = ((takes + seeds) ^ takes) & takes;
  if ((seeds & (trailing << 1)) != 0) {
    taken = 0;
    for (uint64_t c = seeds; c != 0; c &= c - 1) {
      const uint64_t seed = c & -c;
      if ((taken & seed) == 0) taken |= ((takes + seed) ^ takes) & takes;
    }
  }
  const uint64_t free_other = other & ~taken;
  r.other_starts = free_other & ~(free_other << 1) & ~(m.blank << 1);
  const uint64_t free_space = m.space & ~taken;
  const uint64_t space_after = m.space >> 1;  // bit 63: a run on into p[64] is undecided
  uint64_t space_starts =
      RunStarts(free_space) | (non_newline_space & (non_newline_space << 1) & ~space_after);
  // After a run's last newline: NN right after a newline whose NN run is not followed by one.
  for (uint64_t c = non_newline_space & (m.newline << 1); c != 0; c &= c - 1) {
    const int t = __builtin_ctzll(c);
    const uint64_t beyond = ~non_newline_space >> t;  // bit 0 is t, in the run
    const int run_end = beyond == 0 ? 64 : t + __builtin_ctzll(beyond);
    if (run_end == 64 || ((m.newline >> run_end) & 1) == 0) space_starts |= uint64_t{1} << t;
  }
  r.starts = digit_starts | r.other_starts | space_starts | 1;
  r.prefix = non_newline_space | r.other_starts;
  return r;
}

// cl100k: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//         ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// Besides CommonStarts: a letter run starts a pre-token unless the byte before is its prefix.
// A contraction at an apostrophe that starts a pre-token comes first, and letters after it
// start another.
[[gnu::always_inline]] inline uint64_t Cl100kBlockStarts(const unicode::AsciiMasks& m,
                                                         const Byte* p, const Byte* end,
                                                         int* last_non_ascii) {
  const uint64_t decided = DecidedBeforeNonAscii(m, p, last_non_ascii);
  if (decided == 0) return 1;
  const uint64_t other = ~(m.letter | m.digit | m.space);
  const SharedStarts c = CommonStarts(m, p, decided, *last_non_ascii >= 0, other, 0);
  uint64_t starts = c.starts | (RunStarts(m.letter) & ~(c.prefix << 1));
  for (uint64_t a = m.apostrophe & c.other_starts & c.decided; a != 0; a &= a - 1) {
    const int i = __builtin_ctzll(a);
    const int n = ContractionLengthIgnoreCase(p + i, end);
    if (n != 0 && i + n < 64) starts |= m.letter & (uint64_t{1} << (i + n));
  }
  return starts & c.decided;
}

// o200k: P?U*W+C?|P?U+W*C?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
// (P, U, W, C as in fast_pretokenizer.cc). In ASCII, U is A-Z and W is a-z, so a word is
// its prefix, a run of capitals, a run of lower case and a contraction, each but one optional.
// Besides CommonStarts: a letter run starts a pre-token unless the byte before is its prefix,
// and so does a capital after a lower-case letter. An apostrophe after a letter that starts a
// contraction belongs to the word (unless that letter ended a contraction itself), and letters
// after the contraction start another.
[[gnu::always_inline]] inline uint64_t O200kBlockStarts(const unicode::AsciiMasks& m, const Byte* p,
                                                        const Byte* end, int* last_non_ascii) {
  const uint64_t decided = DecidedBeforeNonAscii(m, p, last_non_ascii);
  if (decided == 0) return 1;
  const uint64_t other = ~(m.letter | m.digit | m.space);
  const SharedStarts c = CommonStarts(m, p, decided, *last_non_ascii >= 0, other, m.slash);
  const uint64_t lower = m.letter & ~m.upper;
  uint64_t starts = c.starts | (RunStarts(m.letter) & ~(c.prefix << 1)) | (m.upper & (lower << 1));
  int contraction_end = -1;
  for (uint64_t a = m.apostrophe & (m.letter << 1) & c.decided; a != 0; a &= a - 1) {
    const int i = __builtin_ctzll(a);
    if (i == contraction_end) continue;  // the word before took its contraction already
    const int n = ContractionLengthIgnoreCase(p + i, end);
    if (n == 0) continue;
    contraction_end = i + n;
    starts &= ~(((uint64_t{1} << n) - 1) << i);  // the apostrophe and the letters after it
    if (i + n < 64) starts |= m.letter & (uint64_t{1} << (i + n));
  }
  return starts & c.decided;
}

}  // namespace bpeforge::internal::match_internal

#endif  // BPEFORGE_CORE_PRETOKENIZE_BLOCK_STARTS_H_
