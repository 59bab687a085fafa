#include "core/train/vocab.h"

#include <array>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/internal/byte_unicode.h"

namespace bpeforge::internal {

namespace {

// Calls visit(head, tail) for each token in id order; the token's bytes are head + tail.
template <typename Visit>
void ForEachToken(const std::vector<std::string>& special_tokens, const Merges& merges,
                  IdLayout layout, Visit visit) {
  std::array<char, 256> bytes;
  for (int b = 0; b < 256; ++b) bytes[b] = static_cast<char>(b);
  auto byte = [&](uint8_t b) { return absl::string_view(&bytes[b], 1); };
  if (layout == IdLayout::kHf) {
    for (const std::string& s : special_tokens) visit(s, "");
    for (uint8_t b : BytesInGpt2Order()) visit(byte(b), "");
  } else {
    for (int b = 0; b < 256; ++b) visit(byte(b), "");
    for (const std::string& s : special_tokens) visit(s, "");
  }
  for (const Merge& m : merges) visit(m.first, m.second);
}

}  // namespace

Vocab BuildVocab(const std::vector<std::string>& special_tokens, const Merges& merges,
                 IdLayout layout) {
  Vocab vocab;
  vocab.reserve(256 + special_tokens.size() + merges.size());
  ForEachToken(special_tokens, merges, layout, [&](absl::string_view head, absl::string_view tail) {
    vocab.push_back(absl::StrCat(head, tail));
  });
  return vocab;
}

bool IsBuiltVocab(const Vocab& vocab, const std::vector<std::string>& special_tokens,
                  const Merges& merges, IdLayout layout) {
  if (vocab.size() != 256 + special_tokens.size() + merges.size()) return false;
  size_t id = 0;
  bool same = true;
  ForEachToken(special_tokens, merges, layout, [&](absl::string_view head, absl::string_view tail) {
    const absl::string_view token = vocab[id++];
    same = same && token.size() == head.size() + tail.size() && absl::StartsWith(token, head) &&
           absl::EndsWith(token, tail);
  });
  return same;
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
