// Pre-tokenization: splitting text into the pieces inside which merges may happen.
//
// The patterns, by name and regex, are in pattern.h. Every pattern matches at every
// position, so the pre-tokens tile the text exactly.
#ifndef BPEFORGE_CORE_PRETOKENIZE_PRETOKENIZER_H_
#define BPEFORGE_CORE_PRETOKENIZE_PRETOKENIZER_H_

#include <atomic>
#include <memory>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/internal/types.h"
#include "core/pretokenize/pattern.h"

namespace bpeforge::internal {

// The built-in patterns whose matcher classifies 64 ASCII bytes at a time (block_starts.h).
enum class BlockMatcher { kNone, kGpt2, kCl100k, kO200k };

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;

  // Calls `sink` with every pre-token of `text`, in order. `text` must be valid UTF-8
  // (callers validate first); on invalid bytes the result is unspecified but memory-safe.
  void Split(absl::string_view text, absl::FunctionRef<void(absl::string_view)> sink) const {
    SplitUntil(text, sink, nullptr);
  }
  // The same, but gives up soon after `stop` (when given) reads true, the pre-tokens then
  // incomplete (the caller that set it discards them): a custom regex runs at a few MB/s over
  // text that has no cut but special tokens, and a long such text could not be stopped for
  // seconds. The built-in matchers are fast enough to finish.
  virtual void SplitUntil(absl::string_view text, absl::FunctionRef<void(absl::string_view)> sink,
                          const std::atomic<bool>* stop) const = 0;

  // The block matcher this is, if any: ForEachPreToken (inline_split.h) runs its loop with the
  // sink inlined.
  BlockMatcher block_matcher() const { return block_matcher_; }

 protected:
  explicit PreTokenizer(BlockMatcher block_matcher = BlockMatcher::kNone)
      : block_matcher_(block_matcher) {}

 private:
  BlockMatcher block_matcher_;
};

// The reference definition: Boost.Regex over ICU, slow but obviously right. Not for kCustom.
std::unique_ptr<PreTokenizer> MakeRegexPreTokenizer(Pattern pattern);

// The production pre-tokenizer: a hand-written matcher that yields exactly the pre-tokens
// of the reference. Not for kCustom.
std::unique_ptr<PreTokenizer> MakePreTokenizer(Pattern pattern);

// A custom pattern, written as for Python's `regex` module, run by Boost.Regex over ICU.
// \p{..} takes Unicode general categories (L, Lu, N, Nd, ... or their long names) and \s is
// Python's white space, inside and outside brackets; \P{..} and \S only outside them. Text
// between two matches (or a match of nothing) becomes a pre-token of its own, so that the
// pieces always tile the text (as Hugging Face's Split does; tiktoken would drop it). Fails,
// naming the problem, when the regex does not compile.
absl::StatusOr<std::unique_ptr<PreTokenizer>> MakeCustomPreTokenizer(absl::string_view regex);

// The pre-tokenizer for `pattern`, or for a custom one `custom_regex`.
absl::StatusOr<std::unique_ptr<PreTokenizer>> MakeAnyPreTokenizer(Pattern pattern,
                                                                  absl::string_view custom_regex);

// Whether text under `pattern` is cut where its pre-tokenizer restarts (the built-in ones;
// each has its rules in core/pretokenize/safe_cut.h): a custom regex is cut only at special
// tokens.
inline bool HasContentCuts(Pattern pattern) { return pattern != Pattern::kCustom; }

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_PRETOKENIZE_PRETOKENIZER_H_
