#include "input/stream_cutter.h"

#include <string.h>

#include <algorithm>
#include <utility>

#include "core/internal/status_macros.h"
#include "core/pretokenize/safe_cut.h"

namespace bpeforge::internal {

StreamCutter::StreamCutter(ByteSource& source, Mode mode, size_t target_bytes,
                           const SpecialTokens* specials, Pattern pattern)
    : source_(source),
      mode_(mode),
      target_(std::max<size_t>(target_bytes, 1)),
      block_(std::min<size_t>(1 << 20, std::max<size_t>(target_, 64))),
      specials_(specials),
      pattern_(pattern) {
  if (mode_ == Mode::kSafeCuts) {
    for (const std::string& s : specials_->tokens()) slack_ = std::max(slack_, s.size() + 1);
  }
}

absl::Status StreamCutter::ReadMore() {
  const size_t old = carry_.size();
  carry_.resize(old + block_);
  absl::StatusOr<size_t> n = source_.Read(carry_.data() + old, block_);
  carry_.resize(old + (n.ok() ? *n : 0));
  if (!n.ok()) return n.status();
  eof_ = *n == 0;
  return absl::OkStatus();
}

size_t StreamCutter::FindCut() {
  if (eof_) return carry_.size();
  size_t cut = 0;
  if (mode_ == Mode::kLines) {
    // Only the new bytes: a line longer than a block is not searched again and again.
    const size_t from = std::min(checked_, carry_.size());
    const void* newline = memrchr(carry_.data() + from, '\n', carry_.size() - from);
    if (newline != nullptr) cut = static_cast<const char*>(newline) - carry_.data() + 1;
  } else {
    const size_t floor = checked_ > slack_ ? checked_ - slack_ : 1;
    for (size_t pos = carry_.size() - 1; pos >= floor && pos > 0; --pos) {
      if (IsSafeCut(carry_, pos, *specials_, pattern_)) {
        cut = pos;
        break;
      }
    }
  }
  checked_ = carry_.size();
  return cut;
}

absl::StatusOr<std::optional<StreamCutter::Piece>> StreamCutter::Next() {
  for (;;) {
    if (!eof_ && carry_.size() < target_) {
      BPEFORGE_RETURN_IF_ERROR(ReadMore());
      continue;
    }
    const size_t cut = FindCut();
    if (cut == 0) {
      if (eof_) return std::nullopt;
      // No cut yet: read on (one long pre-token or line, or text without any).
      BPEFORGE_RETURN_IF_ERROR(ReadMore());
      continue;
    }
    Piece piece;
    piece.text.reserve(cut + kPadding);
    piece.text.assign(carry_, 0, cut);
    piece.offset = offset_;
    piece.first_line = line_;
    if (mode_ == Mode::kLines) line_ += std::count(piece.text.begin(), piece.text.end(), '\n');
    carry_.erase(0, cut);
    checked_ = 0;
    offset_ += cut;
    return piece;
  }
}

}  // namespace bpeforge::internal
