#include "core/pretokenize/pattern.h"

#include <iterator>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"

namespace bpeforge::internal {

namespace {

// The one table of the built-in patterns: the CLI, the library, the manifest and the
// exporters all read it. `regex` is the pattern as written for Python's `regex` module (and
// tiktoken); `portable_regex` the same pre-tokenizer in a form that JavaScript, Oniguruma
// (Hugging Face) and Rust all compile alike: (?i:'s|...) spelled out case by case.
struct NamedPattern {
  Pattern pattern;
  absl::string_view name;
  absl::string_view tiktoken_name;  // also accepted
  absl::string_view regex;
  absl::string_view portable_regex;
};
constexpr NamedPattern kNamedPatterns[] = {
    {Pattern::kGpt2, "gpt2", "gpt2",
     R"('(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)",
     R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)"},
    {Pattern::kCl100k, "cl100k", "cl100k_base",
     R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|)"
     R"( ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     R"(('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)|)"
     R"([^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|)"
     R"(\s+(?!\S)|\s+)"},
    {Pattern::kO200k, "o200k", "o200k_base",
     R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+)"
     R"((?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+)"
     R"([\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}|)"
     R"( ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+)"
     R"(('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|)"
     R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*)"
     R"(('s|'S|'t|'T|'re|'rE|'Re|'RE|'ve|'vE|'Ve|'VE|'m|'M|'ll|'lL|'Ll|'LL|'d|'D)?|)"
     R"(\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)"},
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
  for (const NamedPattern& p : kNamedPatterns) {
    if (p.pattern == pattern) return p.regex;
  }
  return "";
}

absl::string_view PortableRegex(Pattern pattern) {
  for (const NamedPattern& p : kNamedPatterns) {
    if (p.pattern == pattern) return p.portable_regex;
  }
  return "";
}

std::optional<Pattern> PatternOfRegex(absl::string_view regex) {
  for (const NamedPattern& p : kNamedPatterns) {
    if (regex == p.regex || regex == p.portable_regex) return p.pattern;
  }
  return std::nullopt;
}

}  // namespace bpeforge::internal
