#include <iterator>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/pretokenize/pretokenizer.h"

namespace bpeforge::internal {

namespace {

// The one table of pattern names: the CLI, the library and the manifest all read it.
struct NamedPattern {
  Pattern pattern;
  absl::string_view name;
  absl::string_view tiktoken_name;  // also accepted
};
constexpr NamedPattern kNamedPatterns[] = {
    {Pattern::kGpt2, "gpt2", "gpt2"},
    {Pattern::kCl100k, "cl100k", "cl100k_base"},
    {Pattern::kO200k, "o200k", "o200k_base"},
};

}  // namespace

std::optional<Pattern> PatternNamed(absl::string_view name) {
  for (const NamedPattern& p : kNamedPatterns) {
    if (name == p.name || name == p.tiktoken_name) return p.pattern;
  }
  return std::nullopt;
}

std::string PatternNames() {
  std::string out;
  const size_t n = std::size(kNamedPatterns);
  for (size_t i = 0; i < n; ++i) {
    absl::StrAppend(&out, i == 0 ? "" : i + 1 == n ? " or " : ", ", kNamedPatterns[i].name);
  }
  return out;
}

absl::StatusOr<Pattern> ParsePattern(absl::string_view name) {
  if (std::optional<Pattern> pattern = PatternNamed(name)) return *pattern;
  if (name == "custom") return Pattern::kCustom;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown pattern \"", name, "\" (expected ", PatternNames(), ")"));
}

absl::string_view PatternName(Pattern pattern) {
  for (const NamedPattern& p : kNamedPatterns) {
    if (p.pattern == pattern) return p.name;
  }
  return "custom";
}

absl::string_view PatternRegex(Pattern pattern) {
  switch (pattern) {
    case Pattern::kGpt2:
      return R"('(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
    case Pattern::kCl100k:
      return R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|)"
             R"( ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    case Pattern::kO200k:
      return R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+)"
             R"((?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+)"
             R"([\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}|)"
             R"( ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    case Pattern::kCustom:
      break;
  }
  return "";
}

absl::string_view PortableRegex(Pattern pattern) {
  switch (pattern) {
    case Pattern::kGpt2:
      return R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
    case Pattern::kCl100k:
      return R"(('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)|)"
             R"([^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|)"
             R"(\s+(?!\S)|\s+)";
    case Pattern::kO200k:
      return R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+)"
             R"(('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|)"
             R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*)"
             R"(('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|)"
             R"(\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    case Pattern::kCustom:
      break;
  }
  return "";
}

std::optional<Pattern> PatternOfRegex(absl::string_view regex) {
  for (Pattern p : {Pattern::kGpt2, Pattern::kCl100k, Pattern::kO200k}) {
    if (regex == PatternRegex(p) || regex == PortableRegex(p)) return p;
  }
  return std::nullopt;
}

}  // namespace bpeforge::internal
