// Helpers shared by the libFuzzer targets.
#ifndef BPEFORGE_FUZZ_FUZZ_UTIL_H_
#define BPEFORGE_FUZZ_FUZZ_UTIL_H_

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/string_view.h"
#include "core/internal/utf8.h"

namespace bpeforge::internal::fuzz {

// The longest prefix of `bytes` that is valid UTF-8 (the pre-tokenizers' contract).
inline absl::string_view ValidPrefix(absl::string_view bytes) {
  std::optional<size_t> bad = FindInvalidUtf8(bytes);
  return bad.has_value() ? bytes.substr(0, *bad) : bytes;
}

// A finding: print what differed and abort, so that libFuzzer saves the input.
[[noreturn]] inline void Fail(const std::string& what) {
  std::fprintf(stderr, "FINDING: %s\n", what.c_str());
  std::abort();
}

}  // namespace bpeforge::internal::fuzz

#endif  // BPEFORGE_FUZZ_FUZZ_UTIL_H_
