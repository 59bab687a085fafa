// The special-token splitter against a naive one: at each position the longest token that
// starts there, else one byte of text. Input: up to three tokens, each ended by a 0x00 byte,
// then the text.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/pretokenize/special_tokens.h"
#include "fuzz/fuzz_util.h"

namespace bpeforge::internal::fuzz {
namespace {

// Text pieces as "t:..." and matches as "s:<index>", empty pieces left out.
std::vector<std::string> Naive(const std::vector<std::string>& tokens, absl::string_view text) {
  std::vector<std::string> out;
  std::string piece;
  for (size_t pos = 0; pos < text.size();) {
    size_t best = tokens.size();
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (text.substr(pos).substr(0, tokens[i].size()) == tokens[i] &&
          (best == tokens.size() || tokens[i].size() > tokens[best].size())) {
        best = i;
      }
    }
    if (best == tokens.size()) {
      piece += text[pos++];
      continue;
    }
    if (!piece.empty()) out.push_back("t:" + std::exchange(piece, ""));
    out.push_back(absl::StrCat("s:", best));
    pos += tokens[best].size();
  }
  if (!piece.empty()) out.push_back("t:" + piece);
  return out;
}

}  // namespace
}  // namespace bpeforge::internal::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bpeforge;            // NOLINT
  using namespace bpeforge::internal;  // NOLINT
  absl::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> tokens;
  while (tokens.size() < 3) {
    const size_t end = input.find('\0');
    if (end == absl::string_view::npos) break;
    if (end > 0) {
      const std::string token(input.substr(0, end));
      bool seen = false;
      for (const std::string& t : tokens) seen = seen || t == token;
      if (!seen) tokens.push_back(token);
    }
    input.remove_prefix(end + 1);
  }
  const SpecialTokens specials(tokens);
  std::vector<std::string> got;
  specials.Split(
      input, [&](absl::string_view piece) { got.push_back(absl::StrCat("t:", piece)); },
      [&](size_t index) { got.push_back(absl::StrCat("s:", index)); });
  if (got != fuzz::Naive(specials.tokens(), input)) {
    fuzz::Fail(absl::StrCat("split differs on \"", absl::CHexEscape(input), "\""));
  }
  return 0;
}
