// Pre-tokenizing with the consumer inlined into the scanner's loop.
//
// PreTokenizer::Split calls its sink through a function reference: one indirect call per
// pre-token, which also keeps the compiler from scheduling the consumer's loads among the
// scanner's. The hot consumers (counting, encoding) call ForEachPreToken instead: for GPT-2's
// block matcher it runs the same loop as a template on the sink, for other pre-tokenizers it
// falls back to Split. Both give the same pre-tokens (fast_pretokenizer.cc runs this loop).
//
//   ForEachPreToken(pretokenizer, text, [&](absl::string_view token) { ++counts[token]; });
#ifndef BPEFORGE_CORE_PRETOKENIZE_INLINE_SPLIT_H_
#define BPEFORGE_CORE_PRETOKENIZE_INLINE_SPLIT_H_

#include <algorithm>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "core/pretokenize/pretokenizer.h"
#include "core/pretokenize/unicode/ascii_masks.h"
#include "core/pretokenize/unicode/char_class.h"

namespace bpeforge::internal {
namespace gpt2_internal {

using Byte = uint8_t;

// GPT-2: '(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// The end of the pre-token that starts at p < end (fast_pretokenizer.cc).
const Byte* NextGpt2(const Byte* p, const Byte* end);

// GPT-2's contractions '(?:[sdmt]|ll|ve|re) at p: the match length, or 0.
inline int Gpt2ContractionLength(const Byte* p, const Byte* end) {
  if (end - p < 2 || p[0] != '\'') return 0;
  const Byte b = p[1];
  if (b == 's' || b == 'd' || b == 'm' || b == 't') return 2;
  if (end - p >= 3 &&
      ((b == 'l' && p[2] == 'l') || (b == 'v' && p[2] == 'e') || (b == 'r' && p[2] == 'e'))) {
    return 3;
  }
  return 0;
}

// GPT-2 on ASCII text, 64 bytes at a time. Where no contraction is involved, whether byte i
// starts a pre-token depends only on the classes of bytes i-1, i and i+1:
//   - a run of letters, digits or others starts at its first byte, or at the byte before
//     when that is ' ' (" ?" takes it, and a space before a non-space always starts one);
//   - a white-space run starts a pre-token, and when a non-space follows a run of two or
//     more, so does the run's last byte (\s+(?!\S) gives it back).
// A contraction matters only where an apostrophe starts a pre-token: it then swallows the
// letter run start after the apostrophe and ends one or two letters later.
//
// Returns the starts among p[0..63] as bits, given that p starts a pre-token and that p[64]
// is readable. Bits from the first non-ASCII byte minus one on are left clear: a start
// depends on the byte after it, and the masks know nothing of non-ASCII characters.
// `*last_non_ascii` is the offset of the block's last non-ASCII byte (p[64] included), or
// -1 if it has none.
inline uint64_t Gpt2BlockStarts(const Byte* p, const Byte* end, int* last_non_ascii) {
  namespace u = unicode;
  const u::AsciiMasks m = u::ClassifyAscii64(p);
  uint64_t decided = ~uint64_t{0};
  *last_non_ascii = -1;
  if (m.non_ascii != 0 || p[64] >= 0x80) {
    *last_non_ascii = p[64] >= 0x80 ? 64 : 63 - __builtin_clzll(m.non_ascii);
    const int first = m.non_ascii != 0 ? __builtin_ctzll(m.non_ascii) : 64;
    if (first < 2) return 1;
    decided = (uint64_t{1} << (first - 1)) - 1;
  }
  const uint64_t space_at_64 = p[64] < 0x80 && (u::kAsciiClass[p[64]] & u::kSpace) != 0;
  const uint64_t space_after = (m.space >> 1) | (space_at_64 << 63);
  const uint64_t other = ~(m.letter | m.digit | m.space);
  auto run_starts = [](uint64_t x) { return x & ~(x << 1); };
  uint64_t starts =
      ((run_starts(m.letter) | run_starts(m.digit) | run_starts(other)) & ~(m.blank << 1)) |
      run_starts(m.space) | (m.space & (m.space << 1) & ~space_after) | 1;
  for (uint64_t a = m.apostrophe & starts & decided; a != 0; a &= a - 1) {
    const int i = __builtin_ctzll(a);
    const int n = Gpt2ContractionLength(p + i, end);
    if (n == 0) continue;
    starts &= ~(uint64_t{2} << i);  // the letter after the apostrophe is inside
    if (i + n < 64) starts |= m.letter & (uint64_t{1} << (i + n));  // letters go on after it
  }
  return starts & decided;
}

}  // namespace gpt2_internal

// The GPT-2 matcher: whole blocks of ASCII through Gpt2BlockStarts, one pre-token at a time
// through NextGpt2 where a block decides nothing (non-ASCII text, a pre-token longer than
// the block) and in the last 64 bytes. Calls sink(token) for every pre-token, in order.
template <typename Sink>
void SplitGpt2(absl::string_view text, Sink&& sink) {
  using gpt2_internal::Byte;
  const auto* p = reinterpret_cast<const Byte*>(text.data());
  const Byte* const end = p + text.size();
  auto emit = [&sink](const Byte* from, const Byte* to) {
    sink(absl::string_view(reinterpret_cast<const char*>(from), static_cast<size_t>(to - from)));
  };
  while (end - p > 64) {
    int last_non_ascii;
    uint64_t later = gpt2_internal::Gpt2BlockStarts(p, end, &last_non_ascii) & ~uint64_t{1};
    if (later == 0) {
      // Past the block's non-ASCII bytes one pre-token at a time, so that text in other
      // scripts pays for one block classification per block, not per pre-token.
      const Byte* const resume = p + std::max(last_non_ascii, 0);
      do {
        const Byte* q = gpt2_internal::NextGpt2(p, end);
        emit(p, q);
        p = q;
      } while (p <= resume && p < end);
      continue;
    }
    const Byte* from = p;
    for (; later != 0; later &= later - 1) {
      const Byte* to = p + __builtin_ctzll(later);
      emit(from, to);
      from = to;
    }
    p = from;  // the pre-token that starts here may go on past the block
  }
  while (p < end) {
    const Byte* q = gpt2_internal::NextGpt2(p, end);
    emit(p, q);
    p = q;
  }
}

// pretokenizer.Split(text, sink), with `sink` inlined where the pre-tokenizer is GPT-2's
// block matcher.
template <typename Sink>
void ForEachPreToken(const PreTokenizer& pretokenizer, absl::string_view text, Sink&& sink) {
  if (pretokenizer.is_gpt2_blocks()) {
    SplitGpt2(text, sink);
  } else {
    pretokenizer.Split(text, sink);
  }
}

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_PRETOKENIZE_INLINE_SPLIT_H_
