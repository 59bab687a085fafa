#include "tests/reference_trainer.h"

#include <algorithm>
#include <map>
#include <set>

namespace bpeforge::internal::testing {
namespace {

// Python: re.split("|".join(map(re.escape, sorted(specials, key=len, reverse=True))), text)
std::vector<std::string> SplitOnSpecials(const std::string& text,
                                         std::vector<std::string> specials) {
  std::sort(specials.begin(), specials.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  std::vector<std::string> pieces;
  std::string current;
  size_t pos = 0;
  while (pos < text.size()) {
    const std::string* hit = nullptr;
    for (const std::string& s : specials) {
      if (!s.empty() && text.compare(pos, s.size(), s) == 0) {
        hit = &s;
        break;
      }
    }
    if (hit != nullptr) {
      pieces.push_back(current);
      current.clear();
      pos += hit->size();
    } else {
      current.push_back(text[pos++]);
    }
  }
  pieces.push_back(current);
  return pieces;
}

}  // namespace

Merges ReferenceTrain(const std::vector<std::string>& docs, size_t vocab_size,
                      const std::vector<std::string>& special_tokens, Pattern pattern,
                      uint64_t min_frequency, size_t max_token_length,
                      const std::string& custom_regex, std::vector<uint64_t>* merge_counts) {
  std::map<std::string, uint64_t> counts;
  std::unique_ptr<PreTokenizer> regex = pattern == Pattern::kCustom
                                            ? *MakeCustomPreTokenizer(custom_regex)
                                            : MakeRegexPreTokenizer(pattern);
  for (const std::string& doc : docs) {
    for (const std::string& piece : SplitOnSpecials(doc, special_tokens)) {
      regex->Split(piece, [&](absl::string_view t) { ++counts[std::string(t)]; });
    }
  }
  const size_t specials =
      std::set<std::string>(special_tokens.begin(), special_tokens.end()).size();
  const size_t max_merges = vocab_size > 256 + specials ? vocab_size - 256 - specials : 0;
  return ReferenceMerges(counts, max_merges, min_frequency, max_token_length, merge_counts);
}

Merges ReferenceMerges(const std::map<std::string, uint64_t>& counts, size_t max_merges,
                       uint64_t min_frequency, size_t max_token_length,
                       std::vector<uint64_t>* merge_counts) {
  std::vector<std::pair<std::vector<std::string>, uint64_t>> words;
  for (const auto& [word, n] : counts) {
    std::vector<std::string> symbols;
    for (char c : word) symbols.emplace_back(1, c);
    words.emplace_back(symbols, n);
  }
  Merges merges;
  if (merge_counts != nullptr) merge_counts->clear();
  while (merges.size() < max_merges) {
    std::map<std::pair<std::string, std::string>, uint64_t> pairs;
    for (const auto& [symbols, n] : words) {
      for (size_t i = 0; i + 1 < symbols.size(); ++i) {
        if (max_token_length == 0 ||
            symbols[i].size() + symbols[i + 1].size() <= max_token_length) {
          pairs[{symbols[i], symbols[i + 1]}] += n;
        }
      }
    }
    if (pairs.empty()) break;
    auto best = pairs.begin();
    for (auto it = pairs.begin(); it != pairs.end(); ++it) {
      // Higher count wins; on a tie the later (lexicographically greater) pair wins.
      if (it->second >= best->second) best = it;
    }
    if (best->second < min_frequency) break;
    const auto [left, right] = best->first;
    merges.emplace_back(left, right);
    if (merge_counts != nullptr) merge_counts->push_back(best->second);
    for (auto& [symbols, n] : words) {
      std::vector<std::string> out;
      for (size_t i = 0; i < symbols.size(); ++i) {
        if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
          out.push_back(left + right);
          ++i;
        } else {
          out.push_back(symbols[i]);
        }
      }
      symbols = std::move(out);
    }
  }
  return merges;
}

}  // namespace bpeforge::internal::testing
