// Plain value types shared by the trainer, the tokenizer and the file formats.
#ifndef BPEFORGE_CORE_TYPES_H_
#define BPEFORGE_CORE_TYPES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bpeforge {

using TokenId = uint32_t;

// One learned merge: the byte strings of the left and right token.
using Merge = std::pair<std::string, std::string>;
using Merges = std::vector<Merge>;

// id -> token bytes. Ids are dense, 0..size()-1.
using Vocab = std::vector<std::string>;

// How ids are assigned to the 256 bytes, the special tokens and the merges.
enum class IdLayout {
  kBytesFirst,  // byte b -> id b, then special tokens in the given order, then merges.
  kHf,          // special tokens, the 256 bytes in GPT-2 byte-to-unicode order, then merges.
};

}  // namespace bpeforge

#endif  // BPEFORGE_CORE_TYPES_H_
