#include "core/pretokenize/special_tokens.h"

#include <algorithm>
#include <cstring>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/internal/utf8.h"

namespace bpeforge::internal {

absl::Status ValidateSpecialTokens(const std::vector<std::string>& tokens) {
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].empty()) {
      return absl::InvalidArgumentError(absl::StrCat("special token ", i + 1, " is empty"));
    }
    if (std::optional<size_t> bad = FindInvalidUtf8(tokens[i])) {
      return absl::InvalidArgumentError(absl::StrCat("special token \"",
                                                     absl::CHexEscape(tokens[i]),
                                                     "\" is not valid UTF-8 (byte ", *bad, ")"));
    }
  }
  return absl::OkStatus();
}

SpecialTokens::SpecialTokens(const std::vector<std::string>& tokens) {
  absl::flat_hash_set<std::string> seen;
  for (const std::string& t : tokens) {
    if (t.empty() || !seen.insert(t).second) continue;
    tokens_.push_back(t);
  }
  by_length_.resize(tokens_.size());
  for (size_t i = 0; i < tokens_.size(); ++i) by_length_[i] = i;
  int distinct_first_bytes = 0;
  std::stable_sort(by_length_.begin(), by_length_.end(),
                   [&](size_t a, size_t b) { return tokens_[a].size() > tokens_[b].size(); });
  for (const std::string& t : tokens_) {
    if (first_byte_[static_cast<unsigned char>(t[0])] == false) ++distinct_first_bytes;
    first_byte_[static_cast<unsigned char>(t[0])] = true;
    for (size_t i = 1; i < t.size(); ++i) {
      bigrams_.set(static_cast<size_t>(static_cast<unsigned char>(t[i - 1])) * 256 +
                   static_cast<unsigned char>(t[i]));
    }
  }
  // With a single first byte (the usual "<|...|>" tokens) memchr finds candidates at
  // memory speed.
  if (distinct_first_bytes == 1) single_first_byte_ = static_cast<unsigned char>(tokens_[0][0]);
}

bool SpecialTokens::MatchAt(absl::string_view text, size_t pos, Match* match) const {
  if (pos >= text.size() || !first_byte_[static_cast<unsigned char>(text[pos])]) return false;
  for (size_t i : by_length_) {
    const std::string& t = tokens_[i];
    if (text.size() - pos >= t.size() && std::memcmp(text.data() + pos, t.data(), t.size()) == 0) {
      *match = Match{pos, t.size(), i};
      return true;
    }
  }
  return false;
}

SpecialTokens::Match SpecialTokens::FindNext(absl::string_view text, size_t from) const {
  if (tokens_.empty()) return Match{};
  Match m;
  size_t pos = from;
  while (pos < text.size()) {
    if (single_first_byte_ >= 0) {
      const void* hit = std::memchr(text.data() + pos, single_first_byte_, text.size() - pos);
      if (hit == nullptr) break;
      pos = static_cast<size_t>(static_cast<const char*>(hit) - text.data());
    }
    if (MatchAt(text, pos, &m)) return m;
    ++pos;
  }
  return Match{};
}

void SpecialTokens::Split(absl::string_view text,
                          absl::FunctionRef<void(absl::string_view)> on_text,
                          absl::FunctionRef<void(size_t index)> on_special) const {
  size_t pos = 0;
  while (pos <= text.size()) {
    Match m = FindNext(text, pos);
    size_t end = m.pos == absl::string_view::npos ? text.size() : m.pos;
    if (end > pos) on_text(text.substr(pos, end - pos));
    if (m.pos == absl::string_view::npos) break;
    on_special(m.index);
    pos = m.pos + m.len;
  }
}

}  // namespace bpeforge::internal
