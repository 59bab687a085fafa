// Small UTF-8 helpers: strict decoding (as Python's codec) and validation with an offset.
#ifndef BPEFORGE_CORE_INTERNAL_UTF8_H_
#define BPEFORGE_CORE_INTERNAL_UTF8_H_

#include <cstddef>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace bpeforge::internal {

// Decodes one code point at the start of `s`. Returns its length in bytes, or 0 if `s` does
// not start with a well-formed UTF-8 sequence (overlong forms, surrogates and values above
// U+10FFFF are rejected, as Python's strict decoder does).
size_t DecodeUtf8(absl::string_view s, char32_t* cp);

void AppendUtf8(char32_t cp, std::string* out);

// The offset of the first byte that is not part of well-formed UTF-8, if any.
std::optional<size_t> FindInvalidUtf8(absl::string_view s);

// Decodes `bytes` replacing every maximal ill-formed subsequence with U+FFFD, as Python's
// bytes.decode("utf-8", errors="replace") does.
std::string ReplaceInvalidUtf8(absl::string_view bytes);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_INTERNAL_UTF8_H_
