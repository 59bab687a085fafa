// The block matchers' loop for one SIMD path. inline_split.h includes this file once per path,
// each time in a namespace of its own and, beyond the baseline, between the path's target
// pragmas (core/internal/simd.h), having defined
//   BPEFORGE_BLOCK_LOOP_PATH      the namespace: simd_baseline, simd_avx2 or simd_avx512
//   BPEFORGE_BLOCK_LOOP_CLASSIFY  the path's classifier (unicode/ascii_masks.h)
// so it has no include guard, and includes nothing. Each function defined here takes the
// path's instructions, and so does everything it inlines: the block's bit arithmetic
// (block_starts.h) and the consumer's sink.

namespace bpeforge::internal::BPEFORGE_BLOCK_LOOP_PATH {

// The pre-token starts in the block at p (block_starts.h), classified on this path.
template <BlockMatcher kMatcher>
[[gnu::always_inline]] inline uint64_t BlockStarts(const uint8_t* p, const uint8_t* end,
                                                   int* last_non_ascii) {
  const unicode::AsciiMasks m = BPEFORGE_BLOCK_LOOP_CLASSIFY(p);
  if constexpr (kMatcher == BlockMatcher::kGpt2) {
    return match_internal::Gpt2BlockStarts(m, p, end, last_non_ascii);
  } else if constexpr (kMatcher == BlockMatcher::kCl100k) {
    return match_internal::Cl100kBlockStarts(m, p, end, last_non_ascii);
  } else {
    return match_internal::O200kBlockStarts(m, p, end, last_non_ascii);
  }
}

// BlockStarts for the last 64 bytes or fewer of a text, [p, end), bit 0 left out: they are
// copied into a block padded with spaces. Every piece between special tokens ends so (a
// TinyStories story every 800 bytes or so), and one pre-token at a time they took 14% of a
// scan of such text. A space after the text decides what the text's end decides: a run of
// white space at the end stays whole, and a start depends on the bytes after it only through
// whether they are white space. Out of line: the loop's own call of BlockStarts is the one
// to inline.
template <BlockMatcher kMatcher>
[[gnu::noinline]] uint64_t PaddedBlockStarts(const uint8_t* p, const uint8_t* end) {
  alignas(64) uint8_t block[128];
  const auto n = static_cast<size_t>(end - p);  // 1 to 64
  std::memcpy(block, p, n);
  std::memset(block + n, ' ', sizeof(block) - n);
  int last_non_ascii;
  const uint64_t in_text = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  return BlockStarts<kMatcher>(block, block + n, &last_non_ascii) & in_text & ~uint64_t{1};
}

// A block matcher: whole blocks of ASCII through BlockStarts, the last 64 bytes or fewer as a
// padded block, one pre-token at a time through NextPreToken where a block decides nothing
// (non-ASCII text, a pre-token longer than the block, the text's last pre-token). Calls
// sink(token) for every pre-token, in order.
template <BlockMatcher kMatcher, typename Sink>
void SplitInBlocks(absl::string_view text, Sink&& sink) {
  using Byte = uint8_t;
  const auto* p = reinterpret_cast<const Byte*>(text.data());
  const Byte* const end = p + text.size();
  auto emit = [&sink](const Byte* from, const Byte* to) {
    // Pre-tokens are never empty. Told so, the compiler drops the length check of the hardened
    // string_view, two instructions of the few each pre-token costs here.
    const ptrdiff_t length = to - from;
    if (length <= 0) __builtin_unreachable();
    sink(absl::string_view(reinterpret_cast<const char*>(from), static_cast<size_t>(length)));
  };
  // The paths one pre-token at a time are cold on English: their copy of the sink is kept out
  // of the loop's function, whose hot path is slower with it inlined there too.
  auto emit_cold = [&emit](const Byte* from, const Byte* to) __attribute__((noinline)) {
    emit(from, to);
  };
  while (end - p > 64) {
    int last_non_ascii;
    uint64_t later = BlockStarts<kMatcher>(p, end, &last_non_ascii) & ~uint64_t{1};
    if (later == 0) {
      // Past the block's non-ASCII bytes one pre-token at a time, so that text in other
      // scripts pays for one block classification per block, not per pre-token.
      const Byte* const resume = p + std::max(last_non_ascii, 0);
      do {
        const Byte* q = NextPreToken<kMatcher>(p, end);
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
    for (uint64_t later = PaddedBlockStarts<kMatcher>(p, end); later != 0; later &= later - 1) {
      const Byte* to = p + __builtin_ctzll(later);
      emit(from, to);
      from = to;
    }
    p = from;
  }
  while (p < end) {
    const Byte* q = NextPreToken<kMatcher>(p, end);
    emit_cold(p, q);
    p = q;
  }
}

}  // namespace bpeforge::internal::BPEFORGE_BLOCK_LOOP_PATH
