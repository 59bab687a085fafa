// GPT-2's reversible mapping between bytes and printable Unicode characters, used by
// vocab.json and merges.txt so that every token is a printable string without spaces.
#ifndef BPEFORGE_CORE_FORMATS_BYTE_UNICODE_H_
#define BPEFORGE_CORE_FORMATS_BYTE_UNICODE_H_

#include <array>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bpeforge::internal {

// The code point GPT-2 shows for byte b.
char32_t ByteToCodePoint(uint8_t b);

// The 256 bytes in the order of GPT-2's bytes_to_unicode() table: printable ranges
// first, then the rest. The Hugging Face byte-level trainer numbers bytes in this order.
const std::array<uint8_t, 256>& BytesInGpt2Order();

// Bytes -> GPT-2 visible form (UTF-8).
std::string BytesToGpt2(absl::string_view bytes);

// GPT-2 visible form -> bytes. Fails on invalid UTF-8 or a character outside the table.
absl::StatusOr<std::string> Gpt2ToBytes(absl::string_view visible);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_FORMATS_BYTE_UNICODE_H_
