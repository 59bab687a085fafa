// What a tokenizer does to a text, added up from the text's distinct pre-tokens and their
// counts (no need to encode the text itself): its tokens at every vocabulary size the merges
// allow, how often each id comes out, and the bytes and tokens of each kind of text.
//
// The vocabulary sizes come from one pass: a vocabulary cut to the tokens ranked below T (a
// training stopped after its first T - 256 merges makes exactly those merges) encodes a
// pre-token by the longest prefix of the full encoding's joins whose ranks are all below T
// (BpeCodec::MergeTrace). So each join saves one token at every T above the highest rank
// of the joins up to it, and adding those savings up by that rank gives every size at once.
//
//   EncodeTally tally(tokenizer);
//   for (const auto& [pretoken, n] : counts) tally.Add(pretoken, n, ClassifyText(pretoken));
//   uint64_t all = tally.tokens();                  // = the ids encoding gives the text
//   uint64_t at_1000 = tally.TokensBelowRank(1000);  // with the first 744 merges only
#ifndef BPEFORGE_CORE_ENCODE_ENCODE_TALLY_H_
#define BPEFORGE_CORE_ENCODE_ENCODE_TALLY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/encode/bpe_codec.h"
#include "core/pretokenize/text_class.h"

namespace bpeforge::internal {

class EncodeTally {
 public:
  explicit EncodeTally(const BpeCodec& tokenizer);

  // Adds `count` occurrences of the pre-token `piece`, of class `text_class`; returns the
  // number of tokens it encodes to.
  uint32_t Add(absl::string_view piece, uint64_t count, TextClass text_class);
  // Adds `count` occurrences of special token `index` (of tokenizer.special_tokens()), which
  // is one token whatever the vocabulary's size.
  void AddSpecial(size_t index, uint64_t count);
  // Adds another tally of the same tokenizer (one per worker).
  void MergeFrom(const EncodeTally& other);

  // The tokens of everything added.
  uint64_t tokens() const { return TokensBelowRank(UINT32_MAX); }
  // The same with only the tokens ranked below `rank` (at least tokenizer.byte_rank_limit()).
  uint64_t TokensBelowRank(uint32_t rank) const;
  // How often each id came out, by id.
  const std::vector<uint64_t>& id_counts() const { return id_counts_; }
  // Bytes and tokens of each class, by TextClass.
  const std::vector<uint64_t>& class_bytes() const { return class_bytes_; }
  const std::vector<uint64_t>& class_tokens() const { return class_tokens_; }

 private:
  const BpeCodec* tokenizer_;
  BpeCodec::MergeTrace trace_;
  // Every token counted as its bytes, before any join (special tokens as one).
  uint64_t unjoined_ = 0;
  // saved_[r]: tokens that joins save at every rank limit above r.
  std::vector<uint64_t> saved_;
  std::vector<uint64_t> id_counts_;
  std::vector<uint64_t> class_bytes_, class_tokens_;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_ENCODE_ENCODE_TALLY_H_
