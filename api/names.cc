// The public names of patterns, id layouts and id types.
#include "absl/strings/str_cat.h"
#include "bpeforge/bpeforge.h"
#include "core/pretokenizer.h"
#include "core/vocab.h"

namespace bpeforge {

absl::StatusOr<Pattern> ParsePattern(absl::string_view name) {
  return internal::ParsePattern(name);
}
absl::string_view PatternName(Pattern pattern) { return internal::PatternName(pattern); }
absl::string_view PatternRegex(Pattern pattern) { return internal::PatternRegex(pattern); }
absl::Status CheckCustomPattern(absl::string_view regex) {
  return internal::MakeCustomPreTokenizer(regex).status();
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

}  // namespace bpeforge
