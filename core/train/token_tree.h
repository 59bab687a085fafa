// Tokens as the merge loop makes them: the 256 single bytes, then one token per merge, each the
// concatenation of two earlier tokens. Only the first kHeadBytes of a token are stored; a longer
// token is spelled out from its two parts when it is asked for.
//
// Why: text with no safe cut (a file of one letter) makes tokens of megabytes, and the bytes of
// its vocabulary come to eight or more times the file; stored whole, they were the peak of
// training. As a tree the vocabulary costs about 64 bytes a token whatever its length.
//
//   TokenTree tree;                         // ids 0-255: the bytes
//   uint32_t ab = tree.Add('a', 'b');       // 256: "ab"
//   uint32_t abab = tree.Add(ab, ab);       // 257: "abab"
//   std::string scratch;
//   absl::string_view s = tree.Bytes(abab, &scratch);       // "abab"
//   int order = tree.Compare(ab, abab);                      // < 0
#ifndef BPEFORGE_CORE_TRAIN_TOKEN_TREE_H_
#define BPEFORGE_CORE_TRAIN_TOKEN_TREE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"

namespace bpeforge::internal {

class TokenTree {
 public:
  // Tokens of at most this many bytes are stored whole; longer ones keep this many as a prefix,
  // which settles most comparisons without spelling them out.
  static constexpr size_t kHeadBytes = 64;

  TokenTree();  // the 256 single bytes

  // Appends the token `left` + `right` and returns its id. `count`: how often the pair
  // occurred when it was merged (the merge loop knows it; 0 where not known).
  uint32_t Add(uint32_t left, uint32_t right, uint64_t count = 0);

  size_t size() const { return length_.size(); }
  uint64_t length(uint32_t id) const { return length_[id]; }
  // The two parts of a token made by a merge (id >= 256).
  std::pair<uint32_t, uint32_t> parts(uint32_t id) const { return parts_[id - 256]; }
  size_t merges() const { return parts_.size(); }
  // The count given to Add for merge i (token 256 + i).
  uint64_t merge_count(size_t i) const { return counts_[i]; }

  // The token's bytes: a view of what is stored for a short token, else spelled into *scratch.
  absl::string_view Bytes(uint32_t id, std::string* scratch) const;
  // Appends the token's bytes to *out.
  void AppendBytes(uint32_t id, std::string* out) const;
  // Compares two tokens' bytes lexicographically (as unsigned bytes): < 0, 0 or > 0. Long tokens
  // with equal prefixes are walked piece by piece up to their first difference, never spelled
  // out whole.
  int Compare(uint32_t a, uint32_t b) const;

 private:
  class Pieces;

  std::vector<std::string> head_;                     // the bytes, or their first kHeadBytes
  std::vector<uint64_t> length_;                      // in bytes
  std::vector<std::pair<uint32_t, uint32_t>> parts_;  // of token 256 + i
  std::vector<uint64_t> counts_;                      // of merge i
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_TOKEN_TREE_H_
