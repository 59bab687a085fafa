// The built-in pre-tokenizer patterns, by name and by regex, from one table (pattern.cc).
//
//   gpt2    '(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   cl100k  GPT-4's, o200k GPT-4o's (see PatternRegex), with the semantics of Python's
//           `regex` module.
//
//   std::optional<Pattern> p = PatternNamed("cl100k_base");  // Pattern::kCl100k
//   absl::string_view name = PatternName(*p);                 // "cl100k"
#ifndef BPEFORGE_CORE_PRETOKENIZE_PATTERN_H_
#define BPEFORGE_CORE_PRETOKENIZE_PATTERN_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/internal/types.h"

namespace bpeforge::internal {

// The built-in pattern named `name` ("gpt2", "cl100k", "o200k", or tiktoken's "cl100k_base",
// "o200k_base"), if any.
std::optional<Pattern> PatternNamed(absl::string_view name);
// The names, for messages: "gpt2, cl100k or o200k".
std::string PatternNames();
// PatternNamed, or "custom" (as manifests write it); otherwise an error listing the names.
absl::StatusOr<Pattern> ParsePattern(absl::string_view name);
absl::string_view PatternName(Pattern pattern);
// The pattern as written for Python's `regex` module (and tiktoken).
absl::string_view PatternRegex(Pattern pattern);
// The same pattern in a form that JavaScript, Oniguruma (Hugging Face) and Rust (tiktoken)
// all compile to the same pre-tokens: (?i:'s|...) spelled out case by case. Written into
// exported tokenizer files.
absl::string_view PortableRegex(Pattern pattern);
// The pattern a regex spells (either form above), or nullopt.
std::optional<Pattern> PatternOfRegex(absl::string_view regex);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_PRETOKENIZE_PATTERN_H_
