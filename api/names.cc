// The public names of patterns, id layouts and id types.
#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "bpeforge/bpeforge.h"
#include "core/internal/simd.h"
#include "core/internal/status_macros.h"
#include "core/pretokenize/pretokenizer.h"
#include "core/train/vocab.h"

namespace bpeforge {

absl::StatusOr<Pattern> ParsePattern(absl::string_view name) {
  return internal::ParsePattern(name);
}
absl::string_view PatternName(Pattern pattern) { return internal::PatternName(pattern); }
absl::string_view PatternRegex(Pattern pattern) { return internal::PatternRegex(pattern); }
absl::StatusOr<Pattern> ParsePatternOrRegex(absl::string_view value, std::string* custom_pattern) {
  custom_pattern->clear();
  if (std::optional<Pattern> named = internal::PatternNamed(value)) return *named;
  const bool bare_word = std::all_of(value.begin(), value.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
  });
  if (bare_word) {  // the empty string too
    return absl::InvalidArgumentError(absl::StrCat("\"", value,
                                                   "\" is no pattern name: a pattern is one of ",
                                                   internal::PatternNames(), ", or a regex"));
  }
  BPEFORGE_RETURN_IF_ERROR(internal::MakeCustomPreTokenizer(value).status());
  *custom_pattern = std::string(value);
  return Pattern::kCustom;
}
absl::StatusOr<IdLayout> ParseIdLayout(absl::string_view name) {
  return internal::ParseIdLayout(name);
}
absl::string_view IdLayoutName(IdLayout layout) { return internal::IdLayoutName(layout); }

absl::StatusOr<IdType> ParseIdType(absl::string_view name) {
  if (name == "uint16") return IdType::kUint16;
  if (name == "uint32") return IdType::kUint32;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown id type \"", name, "\" (expected uint16 or uint32)"));
}
absl::string_view IdTypeName(IdType type) { return type == IdType::kUint16 ? "uint16" : "uint32"; }

absl::string_view SimdPathInUse() { return internal::SimdPathName(internal::ActiveSimdPath()); }

}  // namespace bpeforge
