// Pieces of a pre-tokenized text, and a printable form of texts and pieces for failure
// messages; shared by the pre-tokenizer tests.
#ifndef BPEFORGE_TESTS_PIECES_H_
#define BPEFORGE_TESTS_PIECES_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/pretokenize/pretokenizer.h"

namespace bpeforge::internal {

using Pieces = std::vector<std::string>;

inline constexpr Pattern kAllPatterns[] = {Pattern::kGpt2, Pattern::kCl100k, Pattern::kO200k};

inline Pieces Split(const PreTokenizer& pretokenizer, absl::string_view text) {
  Pieces pieces;
  pretokenizer.Split(text, [&](absl::string_view piece) { pieces.emplace_back(piece); });
  return pieces;
}

// Printable form of a text for failure messages: controls and non-ASCII bytes as \xNN.
inline std::string Escaped(absl::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out + "\"";
}

inline std::string Escaped(const Pieces& pieces) {
  std::string out = "[";
  for (const std::string& piece : pieces) out += Escaped(piece) + " ";
  return out + "]";
}

}  // namespace bpeforge::internal

#endif  // BPEFORGE_TESTS_PIECES_H_
