// Pre-tokenizing with the consumer inlined into the scanner's loop.
//
// PreTokenizer::Split calls its sink through a function reference: one indirect call per
// pre-token, which also keeps the compiler from scheduling the consumer's loads among the
// scanner's. The hot consumers (counting, encoding) call ForEachPreToken instead: for the
// built-in patterns with a block matcher it runs the same loop as a template on the sink, for
// other pre-tokenizers it falls back to Split. Both give the same pre-tokens
// (fast_pretokenizer.cc runs this loop). The loop is compiled once per SIMD path
// (block_loop-inl.h, core/internal/simd.h), each with the sink inlined.
//
//   ForEachPreToken(pretokenizer, text, [&](absl::string_view token) { ++counts[token]; });
#ifndef BPEFORGE_CORE_PRETOKENIZE_INLINE_SPLIT_H_
#define BPEFORGE_CORE_PRETOKENIZE_INLINE_SPLIT_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>

#include "absl/strings/string_view.h"
#include "core/internal/simd.h"
#include "core/pretokenize/block_starts.h"
#include "core/pretokenize/pretokenizer.h"
#include "core/pretokenize/unicode/ascii_masks.h"

namespace bpeforge::internal {

// The one-at-a-time matcher of `kMatcher` (fast_pretokenizer.cc).
template <BlockMatcher kMatcher>
inline const uint8_t* NextPreToken(const uint8_t* p, const uint8_t* end) {
  if constexpr (kMatcher == BlockMatcher::kGpt2) return match_internal::NextGpt2(p, end);
  if constexpr (kMatcher == BlockMatcher::kCl100k) return match_internal::NextCl100k(p, end);
  return match_internal::NextO200k(p, end);
}

}  // namespace bpeforge::internal

// The loop, once per SIMD path (block_loop-inl.h).
#define BPEFORGE_BLOCK_LOOP_PATH simd_baseline
#define BPEFORGE_BLOCK_LOOP_CLASSIFY unicode::ClassifyAscii64
#include "core/pretokenize/block_loop-inl.h"
#undef BPEFORGE_BLOCK_LOOP_PATH
#undef BPEFORGE_BLOCK_LOOP_CLASSIFY
#if defined(__x86_64__)
BPEFORGE_SIMD_TARGET_BEGIN_AVX2
#define BPEFORGE_BLOCK_LOOP_PATH simd_avx2
#define BPEFORGE_BLOCK_LOOP_CLASSIFY unicode::ClassifyAscii64Avx2
#include "core/pretokenize/block_loop-inl.h"
#undef BPEFORGE_BLOCK_LOOP_PATH
#undef BPEFORGE_BLOCK_LOOP_CLASSIFY
BPEFORGE_SIMD_TARGET_END
BPEFORGE_SIMD_TARGET_BEGIN_AVX512
#define BPEFORGE_BLOCK_LOOP_PATH simd_avx512
#define BPEFORGE_BLOCK_LOOP_CLASSIFY unicode::ClassifyAscii64Avx512
#include "core/pretokenize/block_loop-inl.h"
#undef BPEFORGE_BLOCK_LOOP_PATH
#undef BPEFORGE_BLOCK_LOOP_CLASSIFY
BPEFORGE_SIMD_TARGET_END
#endif

namespace bpeforge::internal {

// A block matcher's loop on the active SIMD path. Each path's loop is compiled with the sink
// inlined, so a consumer's work per pre-token takes the path's instructions too; the path is
// looked up once per text.
template <BlockMatcher kMatcher, typename Sink>
void SplitInBlocks(absl::string_view text, Sink&& sink) {
#if defined(__x86_64__)
  switch (ActiveSimdPath()) {
    case SimdPath::kAvx512:
      return simd_avx512::SplitInBlocks<kMatcher>(text, sink);
    case SimdPath::kAvx2:
      return simd_avx2::SplitInBlocks<kMatcher>(text, sink);
    case SimdPath::kBaseline:
      break;
  }
#endif
  simd_baseline::SplitInBlocks<kMatcher>(text, sink);
}

// The pre-tokenizer's loop, as a value of a type: loop(text, sink).
template <BlockMatcher kMatcher>
struct BlockLoop {
  template <typename Sink>
  void operator()(absl::string_view text, Sink&& sink) const {
    SplitInBlocks<kMatcher>(text, sink);
  }
};
using Gpt2Loop = BlockLoop<BlockMatcher::kGpt2>;
using Cl100kLoop = BlockLoop<BlockMatcher::kCl100k>;
using O200kLoop = BlockLoop<BlockMatcher::kO200k>;
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
// (a call per pre-token). `stop` is for the pre-tokenizers that take it
// (PreTokenizer::SplitUntil).
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
