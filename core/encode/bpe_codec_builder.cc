// BpeCodec::Builder (bpe_codec.h): a tokenizer made one merge at a time.
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/encode/bpe_codec.h"
#include "core/internal/byte_unicode.h"

namespace bpeforge::internal {

BpeCodec::Builder::Builder(const std::vector<std::string>& special_tokens, IdLayout layout) {
  const size_t k = special_tokens.size();
  t_.decoder_.resize(256 + k);
  // As LayoutNodes: bytes then special tokens, or special tokens then the bytes in GPT-2's
  // order.
  for (size_t s = 0; s < k; ++s) {
    const TokenId id = static_cast<TokenId>(layout == IdLayout::kHf ? s : 256 + s);
    t_.decoder_[id] = special_tokens[s];
    specials_.push_back({special_tokens[s], id});
  }
  size_t next = layout == IdLayout::kHf ? k : 0;
  auto add_byte = [&](uint8_t b) {
    const std::string byte(1, static_cast<char>(b));
    t_.encoder_.try_emplace(byte, Entry{b, static_cast<TokenId>(next)});
    t_.decoder_[next++] = byte;
  };
  if (layout == IdLayout::kHf) {
    for (uint8_t b : BytesInGpt2Order()) add_byte(b);
  } else {
    for (int b = 0; b < 256; ++b) add_byte(static_cast<uint8_t>(b));
  }
}

std::optional<TokenId> BpeCodec::Builder::Find(absl::string_view bytes) const {
  if (bytes.size() > LongTokens::kStoredBytes) {
    std::optional<LongTokens::Found> found = t_.long_.Find(bytes, t_.decoder_);
    if (found.has_value()) return found->id;
    return std::nullopt;
  }
  auto it = t_.encoder_.find(bytes);
  if (it == t_.encoder_.end()) return std::nullopt;
  return it->second.id;
}

absl::Status BpeCodec::Builder::AddMerge(absl::string_view left, absl::string_view right) {
  const std::optional<TokenId> l = Find(left), r = Find(right);
  const size_t merge = t_.merge_ids_.size();
  if (!l.has_value() || !r.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("merge ", merge + 1, " uses a token that no earlier merge makes: \"",
                     absl::CHexEscape(l.has_value() ? right : left).substr(0, 100), "\""));
  }
  const auto id = static_cast<TokenId>(t_.decoder_.size());
  const auto rank = static_cast<uint32_t>(256 + merge);
  if (left.size() + right.size() <= LongTokens::kStoredBytes) {
    std::string joined = absl::StrCat(left, right);
    t_.encoder_.try_emplace(joined, Entry{rank, id});  // a repeated result keeps its first
    t_.decoder_.push_back(std::move(joined));
  } else {
    t_.decoder_.emplace_back();
    t_.long_.Add(id, *l, *r, rank, t_.decoder_);
  }
  t_.merge_ids_.emplace_back(*l, *r);
  t_.ranks_ = rank + 1;
  return absl::OkStatus();
}

bool BpeCodec::Builder::Is(TokenId id, absl::string_view bytes) const {
  if (t_.long_.contains(id)) return t_.long_.Equals(id, bytes, t_.decoder_);
  return id < t_.decoder_.size() && t_.decoder_[id] == bytes;
}

absl::StatusOr<BpeCodec> BpeCodec::Builder::Finish(const std::vector<std::string>& extra_specials,
                                                   Pattern pattern,
                                                   absl::string_view custom_regex) && {
  t_.pattern_ = pattern;
  t_.custom_regex_ = pattern == Pattern::kCustom ? std::string(custom_regex) : "";
  std::vector<SpecialToken> specials = std::move(specials_);
  // As Create gives them: the id of an ordinary token of the same bytes, else a new one.
  for (const std::string& s : extra_specials) specials.push_back({s, Find(s)});
  return BpeCodec::Finish(std::move(t_), specials);
}

}  // namespace bpeforge::internal
