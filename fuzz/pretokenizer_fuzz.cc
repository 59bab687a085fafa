// The fast pre-tokenizer against the Boost.Regex reference, for each pattern and on every SIMD
// path this CPU has: the same pre-tokens, in order, for any valid UTF-8 text (the first byte
// picks the pattern).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/internal/simd.h"
#include "core/pretokenize/pretokenizer.h"
#include "fuzz/fuzz_util.h"

namespace bpeforge::internal::fuzz {
namespace {

std::vector<std::string> Split(const PreTokenizer& p, absl::string_view text) {
  std::vector<std::string> out;
  p.Split(text, [&](absl::string_view piece) { out.emplace_back(piece); });
  return out;
}

}  // namespace
}  // namespace bpeforge::internal::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bpeforge;            // NOLINT
  using namespace bpeforge::internal;  // NOLINT
  static const Pattern kPatterns[] = {Pattern::kGpt2, Pattern::kCl100k, Pattern::kO200k};
  static const std::unique_ptr<PreTokenizer> fast[] = {MakePreTokenizer(kPatterns[0]),
                                                       MakePreTokenizer(kPatterns[1]),
                                                       MakePreTokenizer(kPatterns[2])};
  static const std::unique_ptr<PreTokenizer> reference[] = {MakeRegexPreTokenizer(kPatterns[0]),
                                                            MakeRegexPreTokenizer(kPatterns[1]),
                                                            MakeRegexPreTokenizer(kPatterns[2])};
  if (size == 0) return 0;
  const int which = data[0] % 3;
  const absl::string_view text =
      fuzz::ValidPrefix(absl::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  const std::vector<std::string> expected = fuzz::Split(*reference[which], text);
  for (int i = 0; i < kSimdPaths; ++i) {
    const auto path = static_cast<SimdPath>(i);
    if (!CpuHasSimdPath(path)) continue;
    const ScopedSimdPath active(path);
    if (fuzz::Split(*fast[which], text) != expected) {
      fuzz::Fail(absl::StrCat(PatternName(kPatterns[which]), " pre-tokens differ on ",
                              SimdPathName(path), ", on \"", absl::CHexEscape(text), "\""));
    }
  }
  return 0;
}
