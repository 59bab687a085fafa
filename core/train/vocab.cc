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
  for (uint32_t node : LayoutNodes(special_tokens.size(), merges.size(), layout)) {
    if (node & kSpecialNode) {
      visit(special_tokens[node & ~kSpecialNode], "");
    } else if (node < 256) {
      visit(absl::string_view(&bytes[node], 1), "");
    } else {
      visit(merges[node - 256].first, merges[node - 256].second);
    }
  }
}

}  // namespace

std::vector<uint32_t> LayoutNodes(size_t special_tokens, size_t merges, IdLayout layout) {
  std::vector<uint32_t> nodes;
  nodes.reserve(256 + special_tokens + merges);
  auto add_specials = [&] {
    for (size_t s = 0; s < special_tokens; ++s) nodes.push_back(kSpecialNode | uint32_t(s));
  };
  if (layout == IdLayout::kHf) {
    add_specials();
    for (uint8_t b : BytesInGpt2Order()) nodes.push_back(b);
  } else {
    for (uint32_t b = 0; b < 256; ++b) nodes.push_back(b);
    add_specials();
  }
  for (size_t i = 0; i < merges; ++i) nodes.push_back(static_cast<uint32_t>(256 + i));
  return nodes;
}

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
