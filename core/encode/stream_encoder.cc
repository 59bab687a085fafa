#include "core/encode/stream_encoder.h"

#include <algorithm>

#include "core/pretokenize/safe_cut.h"

namespace bpeforge::internal {
namespace {

// CutAtPreTokens keeps this many trailing pre-tokens, and this many bytes beyond the longest
// special token: a pattern decides a pre-token by looking at most at the next two pre-tokens
// and a few characters (a contraction, the character after white space), so everything
// before them is final.
constexpr size_t kKeepPreTokens = 4;
constexpr size_t kKeepBytes = 64;

}  // namespace

StreamEncoder::StreamEncoder(const BpeCodec& tokenizer, size_t max_pending, size_t cache_entries)
    : tokenizer_(tokenizer), max_pending_(std::max<size_t>(max_pending, 1)), cache_(cache_entries) {
  for (const std::string& s : tokenizer.special_tokens().tokens()) {
    max_special_ = std::max(max_special_, s.size());
  }
  fallback_at_ = max_pending_;
}

void StreamEncoder::Push(absl::string_view piece, std::vector<TokenId>* out) {
  pending_.append(piece.data(), piece.size());
  // A position's verdict can only change while a special token or the character starting
  // there is incomplete, so only the last positions already scanned that such can span are
  // looked at again.
  const size_t lookback = std::max<size_t>(max_special_, 4);
  size_t pos = std::max<size_t>(1, scanned_ > lookback ? scanned_ - lookback : 0);
  size_t cut = 0;
  for (; pos < pending_.size(); ++pos) {
    if (IsSafeCut(pending_, pos, tokenizer_.special_tokens(), tokenizer_.pattern())) cut = pos;
  }
  scanned_ = pending_.size();
  if (cut > 0) Emit(cut, out);
  if (pending_.size() > fallback_at_) CutAtPreTokens(out);
}

void StreamEncoder::Finish(std::vector<TokenId>* out) {
  tokenizer_.Encode(pending_, &cache_, out);
  pending_.clear();
  scanned_ = 0;
  fallback_at_ = max_pending_;
}

void StreamEncoder::Emit(size_t cut, std::vector<TokenId>* out) {
  tokenizer_.Encode(absl::string_view(pending_).substr(0, cut), &cache_, out);
  pending_.erase(0, cut);
  scanned_ = scanned_ > cut ? scanned_ - cut : 0;
  fallback_at_ = max_pending_;
}

void StreamEncoder::CutAtPreTokens(std::vector<TokenId>* out) {
  const SpecialTokens& specials = tokenizer_.special_tokens();
  const absl::string_view text = pending_;
  // A special-token match is final once every token that could start there fits in the
  // text; the pre-tokenizer starts over after it.
  size_t decided = 0;
  SpecialTokens::Match next;
  while (!specials.empty()) {
    next = specials.FindNext(text, decided);
    if (next.pos == absl::string_view::npos || next.pos + max_special_ > text.size()) break;
    decided = next.pos + next.len;
  }
  if (decided > 0) return Emit(decided, out);
  // How far a custom regex looks ahead is not known, so its text waits for a special token.
  if (!HasContentCuts(tokenizer_.pattern())) {
    fallback_at_ = pending_.size() * 2;
    return;
  }

  // Ordinary text up to the first undecided special token, trimmed to a character start.
  size_t end = std::min(next.pos, text.size());
  end -= std::min<size_t>(end, 4);
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  std::vector<size_t> bounds;  // where each pre-token ends
  tokenizer_.pretokenizer().Split(text.substr(0, end), [&](absl::string_view piece) {
    bounds.push_back(static_cast<size_t>(piece.data() + piece.size() - text.data()));
  });
  size_t cut = 0;
  for (size_t i = 0; i + kKeepPreTokens < bounds.size(); ++i) {
    if (bounds[i] + kKeepBytes + max_special_ > end) break;
    cut = bounds[i];
  }
  if (cut == 0) {
    // One pre-token fills the window; try again when the text has doubled, not on every push.
    fallback_at_ = pending_.size() * 2;
    return;
  }
  // The pieces of this pass, not a new pass over text[0:cut], which could end differently.
  size_t begin = 0;
  for (size_t bound : bounds) {
    if (bound > cut) break;
    tokenizer_.EncodePreToken(text.substr(begin, bound - begin), &cache_, out);
    begin = bound;
  }
  pending_.erase(0, cut);
  scanned_ = scanned_ > cut ? scanned_ - cut : 0;
  fallback_at_ = max_pending_;
}

void EncodeIterable(const BpeCodec& tokenizer, absl::FunctionRef<bool(absl::string_view*)> next,
                    absl::FunctionRef<void(absl::Span<const TokenId>)> sink) {
  StreamEncoder encoder(tokenizer);
  std::vector<TokenId> ids;
  absl::string_view piece;
  while (next(&piece)) {
    ids.clear();
    encoder.Push(piece, &ids);
    if (!ids.empty()) sink(ids);
  }
  ids.clear();
  encoder.Finish(&ids);
  if (!ids.empty()) sink(ids);
}

}  // namespace bpeforge::internal
