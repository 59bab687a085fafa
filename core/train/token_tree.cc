#include "core/train/token_tree.h"

#include <algorithm>
#include <cstring>

namespace bpeforge::internal {

TokenTree::TokenTree() : head_(256), length_(256, 1) {
  for (int b = 0; b < 256; ++b) head_[b] = std::string(1, static_cast<char>(b));
}

uint32_t TokenTree::Add(uint32_t left, uint32_t right, uint64_t count) {
  const auto id = static_cast<uint32_t>(size());
  std::string head = head_[left];
  if (head.size() < kHeadBytes) {
    head.append(head_[right], 0, std::min(head_[right].size(), kHeadBytes - head.size()));
  }
  head_.push_back(std::move(head));
  length_.push_back(length_[left] + length_[right]);
  parts_.emplace_back(left, right);
  counts_.push_back(count);
  return id;
}

// A token's stored pieces, left to right: depth first, left part first, with a stack of our
// own (a chain of merges can be as deep as there are merges). A long token costs about one
// step per stored piece of it, not one per byte.
class TokenTree::Pieces {
 public:
  Pieces(const TokenTree& tree, uint32_t id) : tree_(tree), stack_{id} {}
  // The next piece; empty after the last.
  absl::string_view Next() {
    while (!stack_.empty()) {
      const uint32_t t = stack_.back();
      stack_.pop_back();
      if (tree_.length_[t] <= kHeadBytes) return tree_.head_[t];
      const auto [left, right] = tree_.parts(t);
      stack_.push_back(right);
      stack_.push_back(left);
    }
    return {};
  }

 private:
  const TokenTree& tree_;
  std::vector<uint32_t> stack_;
};

absl::string_view TokenTree::Bytes(uint32_t id, std::string* scratch) const {
  if (length_[id] <= kHeadBytes) return head_[id];
  scratch->clear();
  AppendBytes(id, scratch);
  return *scratch;
}

void TokenTree::AppendBytes(uint32_t id, std::string* out) const {
  out->reserve(out->size() + length_[id]);
  Pieces pieces(*this, id);
  for (absl::string_view piece = pieces.Next(); !piece.empty(); piece = pieces.Next()) {
    out->append(piece.data(), piece.size());
  }
}

int TokenTree::Compare(uint32_t a, uint32_t b) const {
  const int c = absl::string_view(head_[a]).compare(head_[b]);
  // Heads that differ decide: either at a byte both hold, or one is a whole short token and a
  // prefix of the other's head (a long token's head is full), so it is the lesser.
  if (c != 0) return c;
  const bool a_whole = length_[a] <= kHeadBytes, b_whole = length_[b] <= kHeadBytes;
  if (a_whole || b_whole) return a_whole == b_whole ? 0 : (a_whole ? -1 : 1);
  Pieces pieces_a(*this, a), pieces_b(*this, b);
  absl::string_view x = pieces_a.Next(), y = pieces_b.Next();
  while (!x.empty() && !y.empty()) {
    const size_t n = std::min(x.size(), y.size());
    if (const int d = std::memcmp(x.data(), y.data(), n); d != 0) return d;
    x.remove_prefix(n);
    y.remove_prefix(n);
    if (x.empty()) x = pieces_a.Next();
    if (y.empty()) y = pieces_b.Next();
  }
  return x.empty() ? (y.empty() ? 0 : -1) : 1;
}

}  // namespace bpeforge::internal
