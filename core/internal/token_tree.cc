#include "core/internal/token_tree.h"

#include <algorithm>

namespace bpeforge::internal {

TokenTree::TokenTree() : head_(256), length_(256, 1) {
  for (int b = 0; b < 256; ++b) head_[b] = std::string(1, static_cast<char>(b));
}

uint32_t TokenTree::Add(uint32_t left, uint32_t right) {
  const auto id = static_cast<uint32_t>(size());
  std::string head = head_[left];
  if (head.size() < kHeadBytes) {
    head.append(head_[right], 0, std::min(head_[right].size(), kHeadBytes - head.size()));
  }
  head_.push_back(std::move(head));
  length_.push_back(length_[left] + length_[right]);
  parts_.emplace_back(left, right);
  return id;
}

absl::string_view TokenTree::Bytes(uint32_t id, std::string* scratch) const {
  if (length_[id] <= kHeadBytes) return head_[id];
  scratch->clear();
  AppendBytes(id, scratch);
  return *scratch;
}

void TokenTree::AppendBytes(uint32_t id, std::string* out) const {
  out->reserve(out->size() + length_[id]);
  // Depth first, left part first, with a stack of our own: a chain of merges can be as deep as
  // there are merges. The leaves are the stored tokens, so a long token costs about one step
  // per stored piece of it, not per byte.
  std::vector<uint32_t> stack = {id};
  while (!stack.empty()) {
    const uint32_t t = stack.back();
    stack.pop_back();
    if (length_[t] <= kHeadBytes) {
      out->append(head_[t]);
    } else {
      const auto [left, right] = parts(t);
      stack.push_back(right);
      stack.push_back(left);
    }
  }
}

int TokenTree::Compare(uint32_t a, uint32_t b, std::string* scratch_a,
                       std::string* scratch_b) const {
  const int c = absl::string_view(head_[a]).compare(head_[b]);
  // Heads that differ decide: either at a byte both hold, or one is a whole short token and a
  // prefix of the other's head (a long token's head is full), so it is the lesser.
  if (c != 0) return c;
  const bool a_whole = length_[a] <= kHeadBytes, b_whole = length_[b] <= kHeadBytes;
  if (a_whole || b_whole) return a_whole == b_whole ? 0 : (a_whole ? -1 : 1);
  return Bytes(a, scratch_a).compare(Bytes(b, scratch_b));
}

}  // namespace bpeforge::internal
