#include "core/train/vocab.h"

#include "absl/strings/str_cat.h"
#include "core/internal/byte_unicode.h"

namespace bpeforge::internal {

Vocab BuildVocab(const std::vector<std::string>& special_tokens, const Merges& merges,
                 IdLayout layout) {
  Vocab vocab;
  vocab.reserve(256 + special_tokens.size() + merges.size());
  if (layout == IdLayout::kHf) {
    vocab.insert(vocab.end(), special_tokens.begin(), special_tokens.end());
    for (uint8_t b : BytesInGpt2Order()) vocab.emplace_back(1, static_cast<char>(b));
  } else {
    for (int b = 0; b < 256; ++b) vocab.emplace_back(1, static_cast<char>(b));
    vocab.insert(vocab.end(), special_tokens.begin(), special_tokens.end());
  }
  for (const Merge& m : merges) vocab.push_back(m.first + m.second);
  return vocab;
}

absl::StatusOr<IdLayout> ParseIdLayout(absl::string_view name) {
  if (name == "bytes-first") return IdLayout::kBytesFirst;
  if (name == "hf") return IdLayout::kHf;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown id layout \"", name, "\" (expected bytes-first or hf)"));
}

absl::string_view IdLayoutName(IdLayout layout) {
  return layout == IdLayout::kHf ? "hf" : "bytes-first";
}

}  // namespace bpeforge::internal
