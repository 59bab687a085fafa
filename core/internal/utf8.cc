#include "core/internal/utf8.h"

#include <cstdint>

#include "simdjson.h"

namespace bpeforge::internal {

size_t DecodeUtf8(absl::string_view s, char32_t* cp) {
  if (s.empty()) return 0;
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const uint8_t b0 = p[0];
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  size_t len;
  char32_t v;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte (Unicode table 3-7)
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
    v = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    v = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    v = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (s.size() < len) return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  v = (v << 6) | (p[1] & 0x3F);
  for (size_t i = 2; i < len; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (p[i] & 0x3F);
  }
  *cp = v;
  return len;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::optional<size_t> FindInvalidUtf8(absl::string_view s) {
  // simdjson's validator checks 32 or 64 bytes a step, with the kernel chosen at run time:
  // checking character by character was a large share of pre-tokenizing other scripts than
  // Latin. It only says whether the text is well-formed, so an ill-formed one
  // is searched again for the offset to report.
  if (simdjson::validate_utf8(s.data(), s.size())) return std::nullopt;
  for (size_t i = 0; i < s.size();) {
    char32_t cp;
    const size_t len = DecodeUtf8(s.substr(i), &cp);
    if (len == 0) return i;
    i += len;
  }
  return std::nullopt;
}

std::string ReplaceInvalidUtf8(absl::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    char32_t cp;
    size_t len = DecodeUtf8(bytes.substr(i), &cp);
    if (len > 0) {
      out.append(bytes.data() + i, len);
      i += len;
      continue;
    }
    // Skip the maximal prefix of a valid sequence (at least one byte), emit one U+FFFD.
    size_t skip = 1;
    const auto b0 = static_cast<uint8_t>(bytes[i]);
    size_t want = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC2 ? 2 : 1;
    while (skip < want && i + skip < bytes.size()) {
      // Extend while the prefix can still become a valid sequence (Unicode table 3-7).
      const auto b = static_cast<uint8_t>(bytes[i + skip]);
      uint8_t lo = 0x80, hi = 0xBF;
      if (skip == 1) {
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
        if (b0 > 0xF4) break;
      }
      if (b < lo || b > hi) break;
      ++skip;
    }
    out.append("\xEF\xBF\xBD");
    i += skip;
  }
  return out;
}

}  // namespace bpeforge::internal
