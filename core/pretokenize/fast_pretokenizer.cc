// The production pre-tokenizer: a hand-written matcher for each pattern that reproduces the
// leftmost-first, backtracking semantics of Python's `regex` module. Each Next* function
// returns the end of the pre-token that starts at `p`, trying the pattern's alternatives in
// order; where a greedy quantifier could give characters back, the comment says why the
// chosen end is the one backtracking would find first.
#include <cstdint>
#include <memory>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/pretokenize/block_starts.h"
#include "core/pretokenize/inline_split.h"
#include "core/pretokenize/pretokenizer.h"
#include "core/pretokenize/unicode/ascii_masks.h"
#include "core/pretokenize/unicode/char_class.h"

namespace bpeforge::internal {
namespace {

namespace u = unicode;

using Byte = uint8_t;

// One decoded character: its class bits and its length in bytes.
struct Char {
  uint8_t cls;
  uint8_t len;
};

bool IsContinuation(Byte b) { return (b & 0xC0) == 0x80; }

// Decodes the non-ASCII character at p < end. Bytes that do not start a complete sequence
// are one-byte "other" characters, so invalid input is split but never over-read.
[[gnu::noinline]] Char DecodeNonAscii(const Byte* p, const Byte* end) {
  constexpr Char kInvalid = {0, 1};
  const Byte b0 = p[0];
  const size_t avail = static_cast<size_t>(end - p);
  char32_t cp;
  uint8_t len;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    if (avail < 2 || !IsContinuation(p[1])) return kInvalid;
    cp = (char32_t{b0 & 0x1Fu} << 6) | (p[1] & 0x3Fu);
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    if (avail < 3 || !IsContinuation(p[1]) || !IsContinuation(p[2])) return kInvalid;
    cp = (char32_t{b0 & 0x0Fu} << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    len = 3;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    if (avail < 4 || !IsContinuation(p[1]) || !IsContinuation(p[2]) || !IsContinuation(p[3])) {
      return kInvalid;
    }
    cp = (char32_t{b0 & 0x07u} << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) |
         (p[3] & 0x3Fu);
    if (cp > 0x10FFFF) return kInvalid;
    len = 4;
  } else {
    return kInvalid;
  }
  return {u::ClassOf(cp), len};
}

// DecodeNonAscii, with two- and three-byte characters (Latin, Greek, Cyrillic, Arabic, CJK...)
// decoded inline: a call per character cost a fifth of pre-tokenizing Cyrillic text.
inline Char NonAsciiAt(const Byte* p, const Byte* end) {
  const Byte b0 = p[0];
  if (b0 >= 0xC2 && b0 <= 0xDF && end - p >= 2 && IsContinuation(p[1])) {
    return {u::ClassOf((char32_t{b0 & 0x1Fu} << 6) | (p[1] & 0x3Fu)), 2};
  }
  if (b0 >= 0xE0 && b0 <= 0xEF && end - p >= 3 && IsContinuation(p[1]) && IsContinuation(p[2])) {
    return {u::ClassOf((char32_t{b0 & 0x0Fu} << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu)), 3};
  }
  return DecodeNonAscii(p, end);
}

inline Char CharAt(const Byte* p, const Byte* end) {
  if (*p < 0x80) return {u::kAsciiClass[*p], 1};
  return NonAsciiAt(p, end);
}

// Class of the character at p, or 0 ("other", matching nothing) at the end of the text.
// Callers only test it against letter/number/space bits, which end-of-text must fail.
inline uint8_t ClassAt(const Byte* p, const Byte* end) { return p < end ? CharAt(p, end).cls : 0; }

constexpr uint8_t kLetterNumberSpace = u::kLetter | u::kNumber | u::kSpace;

inline bool IsOther(uint8_t cls) { return (cls & kLetterNumberSpace) == 0; }
// [^\r\n\p{L}\p{N}]: the optional one-character prefix of a word in cl100k and o200k.
inline bool IsWordPrefix(uint8_t cls) {
  return (cls & (u::kLetter | u::kNumber | u::kNewline)) == 0;
}

// End of the run of characters from p whose class satisfies `in_run`. Runs are mostly
// ASCII, so the inner loop looks at bytes and decodes only when it meets a non-ASCII one.
template <typename Pred>
inline const Byte* SkipWhile(const Byte* p, const Byte* end, Pred in_run) {
  while (true) {
    while (p < end && *p < 0x80 && in_run(u::kAsciiClass[*p])) ++p;
    if (p == end || *p < 0x80) return p;
    const Char c = NonAsciiAt(p, end);
    if (!in_run(c.cls)) return p;
    p += c.len;
  }
}

// End of the run of characters from p whose class has a bit of `mask`.
inline const Byte* SkipAny(const Byte* p, const Byte* end, uint8_t mask) {
  return SkipWhile(p, end, [mask](uint8_t cls) { return (cls & mask) != 0; });
}

// End of the run of [^\s\p{L}\p{N}] characters from p.
inline const Byte* SkipOther(const Byte* p, const Byte* end) { return SkipWhile(p, end, IsOther); }

// End of the run of bytes from p that lie in [lo, hi] once or-ed with `fold`: the ASCII part
// of a letter run, sixteen bytes at a time where SSE2 is there. Finding a word's end without
// a loop branch per byte saves the mispredicted loop exit that would otherwise cost about as
// much as the rest of the word.
inline const Byte* SkipAsciiRange(const Byte* p, const Byte* end, Byte fold, Byte lo, Byte hi) {
#if defined(__SSE2__)
  const __m128i fold16 = _mm_set1_epi8(static_cast<char>(fold));
  while (end - p >= 16) {
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i inside = u::BytesInRange(_mm_or_si128(bytes, fold16), lo, hi);
    const unsigned outside = ~_mm_movemask_epi8(inside) & 0xFFFFu;
    if (outside != 0) return p + __builtin_ctz(outside);
    p += 16;
  }
#endif
  while (p < end && static_cast<Byte>((*p | fold) - lo) <= hi - lo) ++p;
  return p;
}

// End of the run of letters (\p{L}) from p.
inline const Byte* SkipLetters(const Byte* p, const Byte* end) {
  return SkipAny(SkipAsciiRange(p, end, 0x20, 'a', 'z'), end, u::kLetter);
}

// End of the run of [\p{Ll}\p{Lm}\p{Lo}\p{M}] characters from p.
inline const Byte* SkipLowerOrUncased(const Byte* p, const Byte* end) {
  return SkipAny(SkipAsciiRange(p, end, 0, 'a', 'z'), end, u::kLowerOrUncased);
}

// \p{N}{1,3} at p, whose first character is a number.
inline const Byte* SkipUpToThreeNumbers(const Byte* p, const Byte* end) {
  for (int i = 0; i < 3 && p < end; ++i) {
    const Char c = CharAt(p, end);
    if ((c.cls & u::kNumber) == 0) break;
    p += c.len;
  }
  return p;
}

inline const Byte* SkipBytesIn(const Byte* p, const Byte* end, Byte a, Byte b, Byte c) {
  while (p < end && (*p == a || *p == b || *p == c)) ++p;
  return p;
}

// The white-space alternatives at p, whose first character is white space:
//   cl100k/o200k only: \s*[\r\n]+  (ends after the run's last \r or \n, if it has one)
//   \s+(?!\S)  the whole run at the end of the text; before a non-space character the
//              run gives back its last character, which must leave at least one
//   \s+        the single white-space character before a non-space one
inline const Byte* MatchSpace(const Byte* p, const Byte* end, bool newline_alternative) {
  const Byte* last_start = p;
  const Byte* after_newline = nullptr;
  const Byte* q = p;
  while (q < end) {
    const Char c = CharAt(q, end);
    if ((c.cls & u::kSpace) == 0) break;
    if (c.cls & u::kNewline) after_newline = q + 1;
    last_start = q;
    q += c.len;
  }
  if (newline_alternative && after_newline != nullptr) return after_newline;
  if (q == end || last_start == p) return q;
  return last_start;
}

// (?i:'s|'t|'re|'ve|'m|'ll|'d) at p: the end of the contraction, or nullptr. Under Python's
// simple case folding U+017F LATIN SMALL LETTER LONG S (C5 BF) matches 's' too; nothing else
// outside ASCII folds to these letters.
inline const Byte* MatchContractionIgnoreCase(const Byte* p, const Byte* end) {
  if (end - p < 2 || p[0] != '\'') return nullptr;
  const Byte b = p[1] | 0x20;  // ASCII lower case; the non-letters this maps match nothing
  if (b == 's' || b == 't' || b == 'm' || b == 'd') return p + 2;
  if (p[1] == 0xC5 && end - p >= 3 && p[2] == 0xBF) return p + 3;
  if (end - p < 3) return nullptr;
  const Byte b2 = p[2] | 0x20;
  if ((b == 'r' && b2 == 'e') || (b == 'v' && b2 == 'e') || (b == 'l' && b2 == 'l')) {
    return p + 3;
  }
  return nullptr;
}

// The alternatives cl100k and o200k share after their word alternatives:
//   \p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n<trailing>]*|\s*[\r\n]+|\s+(?!\S)|\s+
// where <trailing> is nothing for cl100k and '/' for o200k.
const Byte* NextNumberOtherOrSpace(const Byte* p, const Byte* end, Char c, Byte trailing) {
  if (c.cls & u::kNumber) return SkipUpToThreeNumbers(p, end);
  const Byte* other_start = nullptr;
  if (p[0] == ' ' && IsOther(ClassAt(p + 1, end))) {
    other_start = p + 1;
  } else if (IsOther(c.cls)) {
    other_start = p;
  }
  if (other_start != nullptr) {
    return SkipBytesIn(SkipOther(other_start, end), end, '\r', '\n', trailing);
  }
  return MatchSpace(p, end, /*newline_alternative=*/true);
}

// o200k's two word alternatives, tried in order:
//   P? U* W+ C?  and  P? U+ W* C?
// with P = [^\r\n\p{L}\p{N}], U = [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}],
// W = [\p{Ll}\p{Lm}\p{Lo}\p{M}], C = the case-insensitive contractions.
// Returns the end of the match, or nullptr.
const Byte* MatchO200kWord(const Byte* p, const Byte* end, Char c) {
  const bool has_prefix = IsWordPrefix(c.cls);
  const Byte* starts[2] = {p + c.len, p};  // with the prefix first: "?" is greedy
  const int first = has_prefix ? 0 : 1;
  auto with_contraction = [end](const Byte* q) {
    const Byte* after = MatchContractionIgnoreCase(q, end);
    return after != nullptr ? after : q;
  };
  // P? U* W+ C?: U* takes its whole run; if a W character follows, W+ takes the W run after
  // it. Otherwise U* gives characters back until W+ can start on one that is in both U and
  // W; W+ then ends right after it, since the next character ends the U run and is not W.
  for (int i = first; i < 2; ++i) {
    const Byte* q = starts[i];
    const Byte* after_last_both = nullptr;
    while (q < end) {
      const Char d = CharAt(q, end);
      if ((d.cls & u::kUpperOrUncased) == 0) break;
      q += d.len;
      if (d.cls & u::kLowerOrUncased) after_last_both = q;
    }
    if (ClassAt(q, end) & u::kLowerOrUncased) {
      return with_contraction(SkipLowerOrUncased(q, end));
    }
    if (after_last_both != nullptr) return with_contraction(after_last_both);
  }
  // P? U+ W* C?: nothing here needs to backtrack once U+ has matched.
  for (int i = first; i < 2; ++i) {
    const Byte* q = SkipAny(starts[i], end, u::kUpperOrUncased);
    if (q != starts[i]) return with_contraction(SkipLowerOrUncased(q, end));
  }
  return nullptr;
}

}  // namespace

// GPT-2: '(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
const Byte* match_internal::NextGpt2(const Byte* p, const Byte* end) {
  if (const int n = Gpt2ContractionLength(p, end)) return p + n;
  // The classes are disjoint, so " ?" takes the space exactly when the character after it
  // starts one of the three runs.
  if (p[0] == ' ' && end - p >= 2) {
    const Char next = CharAt(p + 1, end);
    if (next.cls & u::kLetter) return SkipLetters(p + 1 + next.len, end);
    if (next.cls & u::kNumber) return SkipAny(p + 1 + next.len, end, u::kNumber);
    if (IsOther(next.cls)) return SkipOther(p + 1 + next.len, end);
  }
  const Char c = CharAt(p, end);
  if (c.cls & u::kLetter) return SkipLetters(p + c.len, end);
  if (c.cls & u::kNumber) return SkipAny(p + c.len, end, u::kNumber);
  if (IsOther(c.cls)) return SkipOther(p + c.len, end);
  return MatchSpace(p, end, /*newline_alternative=*/false);
}

// cl100k: (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//         ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
const Byte* match_internal::NextCl100k(const Byte* p, const Byte* end) {
  if (const Byte* q = MatchContractionIgnoreCase(p, end)) return q;
  const Char c = CharAt(p, end);
  if (c.cls & u::kLetter) return SkipLetters(p + c.len, end);
  if (IsWordPrefix(c.cls) && (ClassAt(p + c.len, end) & u::kLetter)) {
    return SkipLetters(p + c.len, end);
  }
  return NextNumberOtherOrSpace(p, end, c, '\r');
}

// o200k: P?U*W+C?|P?U+W*C?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
const Byte* match_internal::NextO200k(const Byte* p, const Byte* end) {
  const Char c = CharAt(p, end);
  if (IsWordPrefix(c.cls) || (c.cls & (u::kUpperOrUncased | u::kLowerOrUncased))) {
    if (const Byte* q = MatchO200kWord(p, end, c)) return q;
  }
  return NextNumberOtherOrSpace(p, end, c, '/');
}

namespace {

// A built-in pattern's matcher: `Loop` (inline_split.h) is its loop, which the hot consumers
// inline instead of calling Split.
template <typename Loop, BlockMatcher kMatcher>
class BlockPreTokenizer : public PreTokenizer {
 public:
  BlockPreTokenizer() : PreTokenizer(kMatcher) {}
  void SplitUntil(absl::string_view text, absl::FunctionRef<void(absl::string_view)> sink,
                  const std::atomic<bool>*) const override {
    Loop{}(text, sink);
  }
};

}  // namespace

std::unique_ptr<PreTokenizer> MakePreTokenizer(Pattern pattern) {
  switch (pattern) {
    case Pattern::kGpt2:
      return std::make_unique<BlockPreTokenizer<Gpt2Loop, BlockMatcher::kGpt2>>();
    case Pattern::kCl100k:
      return std::make_unique<BlockPreTokenizer<Cl100kLoop, BlockMatcher::kCl100k>>();
    case Pattern::kO200k:
      return std::make_unique<BlockPreTokenizer<O200kLoop, BlockMatcher::kO200k>>();
    case Pattern::kCustom:
      break;  // MakeCustomPreTokenizer
  }
  return nullptr;
}

}  // namespace bpeforge::internal
