#include "core/pretokenize/safe_cut.h"

#include <algorithm>
#include <cstdint>

#include "core/internal/utf8.h"
#include "core/pretokenize/unicode/char_class.h"

namespace bpeforge::internal {
namespace {

namespace u = unicode;

// The class of the character that ends right before `pos` (0 < pos), or -1 if the bytes
// there do not end a well-formed one.
int ClassEndingAt(absl::string_view text, size_t pos) {
  const auto b = static_cast<unsigned char>(text[pos - 1]);
  if (b < 0x80) return u::kAsciiClass[b];
  size_t start = pos - 1;
  while (start > 0 && pos - start < 4 && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) {
    --start;
  }
  char32_t cp;
  if (DecodeUtf8(text.substr(start, pos - start), &cp) != pos - start) return -1;
  return u::ClassOf(cp);
}

// The class of the character that starts at `pos` (< text.size()), or -1 if the bytes there
// do not start a well-formed one (or it is cut off at the text's end).
int ClassStartingAt(absl::string_view text, size_t pos) {
  const auto b = static_cast<unsigned char>(text[pos]);
  if (b < 0x80) return u::kAsciiClass[b];
  char32_t cp;
  if (DecodeUtf8(text.substr(pos), &cp) == 0) return -1;
  return u::ClassOf(cp);
}

// Whether the pre-tokenizer of a built-in pattern restarts at `pos` (IsSafeCut's rules).
bool PreTokenizerRestarts(absl::string_view text, size_t pos, Pattern pattern) {
  const auto before = static_cast<unsigned char>(text[pos - 1]);
  const auto after = static_cast<unsigned char>(text[pos]);
  if (after == ' ' || after == '\n') {
    const int cls = ClassEndingAt(text, pos);
    if (cls < 0) return false;
    if (pattern == Pattern::kGpt2 && after == '\n') return (cls & u::kSpace) == 0;
    return (cls & u::kLetter) != 0;
  }
  if (before != '\n' || after == '/') return false;
  const int cls_after = ClassStartingAt(text, pos);
  if (cls_after < 0 || (cls_after & u::kSpace) != 0) return false;
  if (pattern != Pattern::kGpt2) return true;
  if (pos < 2) return false;
  const int cls_before = ClassEndingAt(text, pos - 1);
  return cls_before >= 0 && (cls_before & u::kSpace) == 0;
}

}  // namespace

bool IsSafeCut(absl::string_view text, size_t pos, const SpecialTokens& specials, Pattern pattern) {
  if (pos == 0 || pos >= text.size()) return false;
  const auto before = static_cast<unsigned char>(text[pos - 1]);
  const auto after = static_cast<unsigned char>(text[pos]);
  if (specials.ContainsBigram(before, after)) return false;
  if (pattern != Pattern::kCustom && PreTokenizerRestarts(text, pos, pattern)) return true;
  SpecialTokens::Match m;
  return specials.MatchAt(text, pos, &m);
}

size_t NextChunkEnd(absl::string_view text, size_t begin, const SpecialTokens& specials,
                    size_t target, Pattern pattern) {
  size_t end = std::min(begin + std::max<size_t>(target, 1), text.size());
  if (pattern == Pattern::kCustom) {
    // Cut only where a special token starts: those are found by FindNext, not byte by byte (a
    // file without special tokens is one chunk at once, where the byte-by-byte search took
    // seconds of a file of tens of MB before any counting began).
    while (end < text.size()) {
      const SpecialTokens::Match m = specials.FindNext(text, end);
      if (m.pos == absl::string_view::npos) return text.size();
      if (IsSafeCut(text, m.pos, specials, pattern)) return m.pos;
      end = m.pos + 1;
    }
    return end;
  }
  while (end < text.size() && !IsSafeCut(text, end, specials, pattern)) ++end;
  return end;
}

std::vector<size_t> FindChunkBounds(absl::string_view text, const SpecialTokens& specials,
                                    size_t target, Pattern pattern) {
  std::vector<size_t> bounds = {0};
  do {
    bounds.push_back(NextChunkEnd(text, bounds.back(), specials, target, pattern));
  } while (bounds.back() < text.size());
  return bounds;
}

}  // namespace bpeforge::internal
