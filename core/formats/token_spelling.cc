#include "core/formats/token_spelling.h"

#include "absl/hash/hash.h"
#include "core/train/vocab.h"

namespace bpeforge::internal {

TreeSpelling::TreeSpelling(const TokenTree& tree, const std::vector<std::string>& special_tokens,
                           IdLayout layout)
    : tree_(tree),
      special_tokens_(special_tokens),
      node_(LayoutNodes(special_tokens.size(), tree.merges(), layout)) {}

absl::string_view TreeSpelling::Token(size_t id, std::string* scratch) const {
  const uint32_t node = node_[id];
  if (node & kSpecialNode) return special_tokens_[node & ~kSpecialNode];
  return tree_.Bytes(node, scratch);
}

absl::string_view TreeSpelling::MergeLeft(size_t i, std::string* scratch) const {
  return tree_.Bytes(tree_.parts(static_cast<uint32_t>(256 + i)).first, scratch);
}

absl::string_view TreeSpelling::MergeRight(size_t i, std::string* scratch) const {
  return tree_.Bytes(tree_.parts(static_cast<uint32_t>(256 + i)).second, scratch);
}

FirstIds::FirstIds(const TokenSpelling& tokens, const std::atomic<bool>* cancel)
    : tokens_(&tokens), later_(tokens.size()) {
  std::string scratch;
  by_hash_.reserve(tokens.size());
  for (size_t id = 0; id < tokens.size(); ++id) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return;
    const absl::string_view bytes = tokens.Token(id, &scratch);
    auto& ids = by_hash_[absl::HashOf(bytes)];
    bool seen = false;
    for (TokenId earlier : ids) seen = seen || tokens.Token(earlier, &scratch_) == bytes;
    if (seen) {
      later_[id] = true;
    } else {
      ids.push_back(static_cast<TokenId>(id));
    }
  }
}

std::optional<TokenId> FirstIds::Find(absl::string_view bytes) const {
  auto it = by_hash_.find(absl::HashOf(bytes));
  if (it == by_hash_.end()) return std::nullopt;
  for (TokenId id : it->second) {
    if (tokens_->Token(id, &scratch_) == bytes) return id;
  }
  return std::nullopt;
}

}  // namespace bpeforge::internal
