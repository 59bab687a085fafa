// How the writers of tokenizer files see a vocabulary: one token at a time, by id, and each
// merge's two parts. Either a vocabulary held as bytes (a model a user made or loaded), or
// training's tree of tokens (core/train/token_tree.h), spelled out as each token is asked
// for, so that writing a vocabulary many times the corpus (a file of one letter) never holds
// it whole.
//
//   TreeSpelling tokens(trained.tokens, trained.special_tokens, IdLayout::kBytesFirst);
//   std::string scratch;
//   for (size_t id = 0; id < tokens.size(); ++id) Use(tokens.Token(id, &scratch));
//   FirstIds first(tokens);  // which id comes first for each distinct byte string
#ifndef BPEFORGE_CORE_FORMATS_TOKEN_SPELLING_H_
#define BPEFORGE_CORE_FORMATS_TOKEN_SPELLING_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "core/internal/types.h"
#include "core/train/token_tree.h"

namespace bpeforge::internal {

class TokenSpelling {
 public:
  virtual ~TokenSpelling() = default;
  virtual size_t size() const = 0;    // ids are 0 .. size() - 1
  virtual size_t merges() const = 0;  // in rank order
  // The bytes of token `id`: a view of the vocabulary, or spelled into *scratch.
  virtual absl::string_view Token(size_t id, std::string* scratch) const = 0;
  // The two parts of merge `i`, the same way.
  virtual absl::string_view MergeLeft(size_t i, std::string* scratch) const = 0;
  virtual absl::string_view MergeRight(size_t i, std::string* scratch) const = 0;
};

// A vocabulary and merges held as bytes (both must outlive it).
class VocabSpelling final : public TokenSpelling {
 public:
  VocabSpelling(const Vocab& vocab, const Merges& merges) : vocab_(vocab), merges_(merges) {}
  size_t size() const override { return vocab_.size(); }
  size_t merges() const override { return merges_.size(); }
  absl::string_view Token(size_t id, std::string*) const override { return vocab_[id]; }
  absl::string_view MergeLeft(size_t i, std::string*) const override { return merges_[i].first; }
  absl::string_view MergeRight(size_t i, std::string*) const override { return merges_[i].second; }

 private:
  const Vocab& vocab_;
  const Merges& merges_;
};

// Training's tree with its special tokens (distinct), numbered as `layout` says: the ids that
// BuildVocab (core/train/vocab.h) gives the same merges. Both must outlive it.
class TreeSpelling final : public TokenSpelling {
 public:
  TreeSpelling(const TokenTree& tree, const std::vector<std::string>& special_tokens,
               IdLayout layout);
  size_t size() const override { return node_.size(); }
  size_t merges() const override { return tree_.merges(); }
  absl::string_view Token(size_t id, std::string* scratch) const override;
  absl::string_view MergeLeft(size_t i, std::string* scratch) const override;
  absl::string_view MergeRight(size_t i, std::string* scratch) const override;

 private:
  const TokenTree& tree_;
  const std::vector<std::string>& special_tokens_;
  std::vector<uint32_t> node_;  // LayoutNodes: id -> tree token, or kSpecialNode | special
};

// The first id of each distinct byte string of a spelling (two merges can build the same
// bytes; encoding emits the first). Found by a hash of the bytes, every match checked in full.
class FirstIds {
 public:
  // Once `cancel` (when given) reads true, it stops looking (the caller gives up).
  explicit FirstIds(const TokenSpelling& tokens, const std::atomic<bool>* cancel = nullptr);
  // The first id whose bytes are `bytes`, if any.
  std::optional<TokenId> Find(absl::string_view bytes) const;
  bool IsFirst(TokenId id) const { return !later_[id]; }

 private:
  const TokenSpelling* tokens_;
  absl::flat_hash_map<uint64_t, absl::InlinedVector<TokenId, 1>> by_hash_;
  std::vector<bool> later_;  // ids whose bytes an earlier id has
  mutable std::string scratch_;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_FORMATS_TOKEN_SPELLING_H_
