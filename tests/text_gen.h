// Seeded random text for property tests: small alphabets (many ties), long runs, Unicode
// from several scripts, white-space edge cases and special tokens.
#ifndef BPEFORGE_TESTS_TEXT_GEN_H_
#define BPEFORGE_TESTS_TEXT_GEN_H_

#include <cstdint>
#include <string>
#include <vector>

namespace bpeforge::internal::testing {

struct TextGenOptions {
  size_t fragments = 200;                   // how many fragments to concatenate
  std::vector<std::string> special_tokens;  // sprinkled between fragments
  bool unicode = true;                      // include non-ASCII fragments
};

// Deterministic for a given seed; always valid UTF-8.
std::string RandomText(uint64_t seed, const TextGenOptions& options);

}  // namespace bpeforge::internal::testing

#endif  // BPEFORGE_TESTS_TEXT_GEN_H_
