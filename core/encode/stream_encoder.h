// Encoding text that arrives in pieces (lines of a file, network reads) with exactly the ids
// of encoding the whole, holding only a bounded tail.
#ifndef BPEFORGE_CORE_ENCODE_STREAM_ENCODER_H_
#define BPEFORGE_CORE_ENCODE_STREAM_ENCODER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/encode/bpe_codec.h"

namespace bpeforge::internal {

// Pieces may split the text anywhere, even inside a character or a special token. Text up to
// the last safe cut (IsSafeCut) is encoded at once; the rest waits for more. If no safe cut
// shows up within `max_pending` bytes (digits, CJK, long runs of punctuation), the encoder
// cuts between pre-tokens that more text can no longer change, keeping a small margin. So the
// held text stays near `max_pending`, unless a single pre-token is longer than that.
class StreamEncoder {
 public:
  // `cache_entries` bounds the cache of recent pre-tokens (0: none, for callers that must
  // not allocate as they go).
  explicit StreamEncoder(const BpeCodec& tokenizer, size_t max_pending = 1 << 20,
                         size_t cache_entries = 1 << 16);
  // Appends to *out the ids that are final once `piece` is added.
  void Push(absl::string_view piece, std::vector<TokenId>* out);
  // Appends the remaining ids; the encoder is then empty and may be reused.
  void Finish(std::vector<TokenId>* out);
  size_t pending_bytes() const { return pending_.size(); }

 private:
  void Emit(size_t cut, std::vector<TokenId>* out);
  void CutAtPreTokens(std::vector<TokenId>* out);

  const BpeCodec& tokenizer_;
  size_t max_pending_;
  size_t max_special_ = 0;  // length of the longest special token
  std::string pending_;
  size_t scanned_ = 0;      // positions below this were checked for safe cuts
  size_t fallback_at_ = 0;  // pending size that triggers CutAtPreTokens
  EncodeCache cache_;
};

// The ids of the concatenation of the pieces `next` yields (until it returns false), handed
// to `sink` in order as soon as they are final (tiktoken's encode_iterable).
void EncodeIterable(const BpeCodec& tokenizer, absl::FunctionRef<bool(absl::string_view*)> next,
                    absl::FunctionRef<void(absl::Span<const TokenId>)> sink);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_ENCODE_STREAM_ENCODER_H_
