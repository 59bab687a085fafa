// Pre-tokenizing with the consumer inlined into the scanner's loop.
//
// PreTokenizer::Split calls its sink through a function reference: one indirect call per
// pre-token, which also keeps the compiler from scheduling the consumer's loads among the
// scanner's. The hot consumers (counting, encoding) call ForEachPreToken instead: for the
// built-in patterns with a block matcher it runs the same loop as a template on the sink, for
// other pre-tokenizers it falls back to Split. Both give the same pre-tokens
// (fast_pretokenizer.cc runs this loop).
//
//   ForEachPreToken(pretokenizer, text, [&](absl::string_view token) { ++counts[token]; });
#ifndef BPEFORGE_CORE_PRETOKENIZE_INLINE_SPLIT_H_
#define BPEFORGE_CORE_PRETOKENIZE_INLINE_SPLIT_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "absl/strings/string_view.h"
#include "core/pretokenize/block_starts.h"
#include "core/pretokenize/pretokenizer.h"

namespace bpeforge::internal {

// BlockStarts for the last 64 bytes or fewer of a text, [p, end), bit 0 left out: they are
// copied into a block padded with spaces. Every piece between special tokens ends so (a
// TinyStories story every 800 bytes or so), and one pre-token at a time they took 14% of a
// scan of such text. A space after the text decides what the text's end decides: a run of
// white space at the end stays whole, and a start depends on the bytes after it only through
// whether they are white space. Out of line: the loop's own call of BlockStarts is the one
// to inline.
template <uint64_t (*BlockStarts)(const uint8_t*, const uint8_t*, int*)>
[[gnu::noinline]] uint64_t PaddedBlockStarts(const uint8_t* p, const uint8_t* end) {
  alignas(64) uint8_t block[128];
  const auto n = static_cast<size_t>(end - p);  // 1 to 64
  std::memcpy(block, p, n);
  std::memset(block + n, ' ', sizeof(block) - n);
  int last_non_ascii;
  const uint64_t in_text = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  return BlockStarts(block, block + n, &last_non_ascii) & in_text & ~uint64_t{1};
}

// A block matcher: whole blocks of ASCII through BlockStarts (block_starts.h), the last 64
// bytes or fewer as a padded block, one pre-token at a time through Next where a block decides
// nothing (non-ASCII text, a pre-token longer than the block, the text's last pre-token).
// Calls sink(token) for every pre-token, in order.
template <uint64_t (*BlockStarts)(const uint8_t*, const uint8_t*, int*),
          const uint8_t* (*Next)(const uint8_t*, const uint8_t*), typename Sink>
void SplitInBlocks(absl::string_view text, Sink&& sink) {
  using Byte = uint8_t;
  const auto* p = reinterpret_cast<const Byte*>(text.data());
  const Byte* const end = p + text.size();
  auto emit = [&sink](const Byte* from, const Byte* to) {
    sink(absl::string_view(reinterpret_cast<const char*>(from), static_cast<size_t>(to - from)));
  };
  // The paths one pre-token at a time are cold on English: their copy of the sink is kept out
  // of the loop's function, whose hot path measured 5% slower with it inlined there too.
  auto emit_cold = [&emit](const Byte* from, const Byte* to) __attribute__((noinline)) {
    emit(from, to);
  };
  while (end - p > 64) {
    int last_non_ascii;
    uint64_t later = BlockStarts(p, end, &last_non_ascii) & ~uint64_t{1};
    if (later == 0) {
      // Past the block's non-ASCII bytes one pre-token at a time, so that text in other
      // scripts pays for one block classification per block, not per pre-token.
      const Byte* const resume = p + std::max(last_non_ascii, 0);
      do {
        const Byte* q = Next(p, end);
        emit_cold(p, q);
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
  if (p == end) return;
  // The last 64 bytes or fewer, as one block of their own (PaddedBlockStarts). Its last
  // pre-token, whose end the block may not have decided (non-ASCII bytes, white space), goes
  // on one pre-token at a time.
  {
    const Byte* from = p;
    for (uint64_t later = PaddedBlockStarts<BlockStarts>(p, end); later != 0; later &= later - 1) {
      const Byte* to = p + __builtin_ctzll(later);
      emit(from, to);
      from = to;
    }
    p = from;
  }
  while (p < end) {
    const Byte* q = Next(p, end);
    emit_cold(p, q);
    p = q;
  }
}

// The pre-tokenizer's loop, as a value of a type: loop(text, sink).
template <uint64_t (*BlockStarts)(const uint8_t*, const uint8_t*, int*),
          const uint8_t* (*Next)(const uint8_t*, const uint8_t*)>
struct BlockLoop {
  template <typename Sink>
  void operator()(absl::string_view text, Sink&& sink) const {
    SplitInBlocks<BlockStarts, Next>(text, sink);
  }
};
using Gpt2Loop = BlockLoop<match_internal::Gpt2BlockStarts, match_internal::NextGpt2>;
using Cl100kLoop = BlockLoop<match_internal::Cl100kBlockStarts, match_internal::NextCl100k>;
using O200kLoop = BlockLoop<match_internal::O200kBlockStarts, match_internal::NextO200k>;
struct SplitLoop {  // any other pre-tokenizer: its Split, a call per pre-token
  const PreTokenizer* pretokenizer;
  const std::atomic<bool>* stop;  // PreTokenizer::SplitUntil's
  template <typename Sink>
  void operator()(absl::string_view text, Sink&& sink) const {
    pretokenizer->SplitUntil(text, sink, stop);
  }
};

// fn(loop) with the loop of `pretokenizer`. A hot consumer makes `fn` call a function template
// of its own on the loop's type, kept out of line, so that each loop is compiled into its own
// function: with all of them in one, GCC stopped inlining counting's sink into GPT-2's loop
// (a call per pre-token, 7% of counting web text; bench/RESULTS.md). `stop` is for the
// pre-tokenizers that take it (PreTokenizer::SplitUntil).
template <typename Fn>
decltype(auto) WithLoop(const PreTokenizer& pretokenizer, Fn&& fn,
                        const std::atomic<bool>* stop = nullptr) {
  switch (pretokenizer.block_matcher()) {
    case BlockMatcher::kGpt2:
      return fn(Gpt2Loop{});
    case BlockMatcher::kCl100k:
      return fn(Cl100kLoop{});
    case BlockMatcher::kO200k:
      return fn(O200kLoop{});
    case BlockMatcher::kNone:
      break;
  }
  return fn(SplitLoop{&pretokenizer, stop});
}

// pretokenizer.Split(text, sink), with `sink` inlined where the pre-tokenizer is a block
// matcher.
template <typename Sink>
void ForEachPreToken(const PreTokenizer& pretokenizer, absl::string_view text, Sink&& sink) {
  WithLoop(pretokenizer, [&](auto loop) { loop(text, sink); });
}

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_PRETOKENIZE_INLINE_SPLIT_H_
