#include "core/encode/encode_tally.h"

#include <algorithm>

namespace bpeforge::internal {

EncodeTally::EncodeTally(const BpeCodec& tokenizer)
    : tokenizer_(&tokenizer),
      saved_(tokenizer.rank_limit()),
      id_counts_(tokenizer.id_limit()),
      class_bytes_(kTextClassLimit),
      class_tokens_(kTextClassLimit) {}

uint32_t EncodeTally::Add(absl::string_view piece, uint64_t count, TextClass text_class) {
  tokenizer_->TraceMerges(piece, &trace_);
  unjoined_ += count * piece.size();
  // The joins up to the first of rank `whole` or more are made below the pre-token's own rank;
  // from there on it is one token, which saves the rest of its bytes at once.
  uint32_t highest = 0;
  uint64_t joined = 0;
  for (const uint32_t rank : trace_.ranks) {
    highest = std::max(highest, rank);
    if (highest >= trace_.whole) break;
    saved_[highest] += count;
    ++joined;
  }
  if (trace_.whole != UINT32_MAX) saved_[trace_.whole] += count * (piece.size() - joined - 1);
  for (const TokenId id : trace_.ids) id_counts_[id] += count;
  const auto tokens = static_cast<uint32_t>(trace_.ids.size());
  class_bytes_[text_class] += count * piece.size();
  class_tokens_[text_class] += count * tokens;
  return tokens;
}

void EncodeTally::AddSpecial(size_t index, uint64_t count) {
  unjoined_ += count;
  id_counts_[tokenizer_->special_ids()[index]] += count;
  class_bytes_[kSpecialTokenText] += count * tokenizer_->special_tokens().tokens()[index].size();
  class_tokens_[kSpecialTokenText] += count;
}

void EncodeTally::MergeFrom(const EncodeTally& other) {
  unjoined_ += other.unjoined_;
  auto add = [](std::vector<uint64_t>& to, const std::vector<uint64_t>& from) {
    for (size_t i = 0; i < to.size(); ++i) to[i] += from[i];
  };
  add(saved_, other.saved_);
  add(id_counts_, other.id_counts_);
  add(class_bytes_, other.class_bytes_);
  add(class_tokens_, other.class_tokens_);
}

uint64_t EncodeTally::TokensBelowRank(uint32_t rank) const {
  uint64_t saved = 0;
  for (size_t r = 0; r < std::min<size_t>(rank, saved_.size()); ++r) saved += saved_[r];
  return unjoined_ - saved;
}

}  // namespace bpeforge::internal
