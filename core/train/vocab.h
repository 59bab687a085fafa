// Building the id -> bytes table from special tokens and merges, in either id layout.
#ifndef BPEFORGE_CORE_TRAIN_VOCAB_H_
#define BPEFORGE_CORE_TRAIN_VOCAB_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/internal/types.h"

namespace bpeforge::internal {

// What each id of `layout` stands for, in id order: a byte b (as b), merge i (as 256 + i, its
// token's number in a TokenTree) or special token s (as kSpecialNode | s).
inline constexpr uint32_t kSpecialNode = 1u << 31;
std::vector<uint32_t> LayoutNodes(size_t special_tokens, size_t merges, IdLayout layout);

// The vocabulary: 256 single bytes, `special_tokens` (distinct, in order), and one token
// per merge (left + right), numbered as `layout` says.
Vocab BuildVocab(const std::vector<std::string>& special_tokens, const Merges& merges,
                 IdLayout layout);

// Whether `vocab` is what BuildVocab makes of the same arguments, found without building it
// (a vocabulary's bytes can be many times the corpus).
bool IsBuiltVocab(const Vocab& vocab, const std::vector<std::string>& special_tokens,
                  const Merges& merges, IdLayout layout);

absl::StatusOr<IdLayout> ParseIdLayout(absl::string_view name);  // "bytes-first" or "hf"
absl::string_view IdLayoutName(IdLayout layout);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_TRAIN_VOCAB_H_
