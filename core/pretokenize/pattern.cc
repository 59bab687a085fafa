#include "absl/strings/str_cat.h"
#include "core/pretokenize/pretokenizer.h"

namespace bpeforge::internal {

absl::StatusOr<Pattern> ParsePattern(absl::string_view name) {
  if (name == "gpt2") return Pattern::kGpt2;
  if (name == "cl100k" || name == "cl100k_base") return Pattern::kCl100k;
  if (name == "o200k" || name == "o200k_base") return Pattern::kO200k;
  if (name == "custom") return Pattern::kCustom;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown pattern \"", name, "\" (expected gpt2, cl100k or o200k)"));
}

absl::string_view PatternName(Pattern pattern) {
  switch (pattern) {
    case Pattern::kGpt2:
      return "gpt2";
    case Pattern::kCl100k:
      return "cl100k";
    case Pattern::kO200k:
      return "o200k";
    case Pattern::kCustom:
      return "custom";
  }
  return "";
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
