// The small manifest written beside vocab.json and merges.txt, so that a trained directory
// says how to use it (pattern, special tokens, id layout) without further flags.
#ifndef BPEFORGE_CORE_FORMATS_MANIFEST_H_
#define BPEFORGE_CORE_FORMATS_MANIFEST_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/internal/types.h"
#include "core/pretokenize/pretokenizer.h"

namespace bpeforge::internal {

inline constexpr char kManifestFile[] = "bpeforge.json";
inline constexpr char kVocabFile[] = "vocab.json";
inline constexpr char kMergesFile[] = "merges.txt";

struct Manifest {
  Pattern pattern = Pattern::kGpt2;
  std::vector<std::string> special_tokens;
  IdLayout layout = IdLayout::kBytesFirst;
  size_t vocab_size = 0;
  // Ids that follow no layout (a tokenizer made from any vocab): they are vocab.json's, and the
  // manifest says "layout": "vocab.json".
  bool ids_from_vocab_json = false;
  // The training options, written only when set (so that default runs keep their bytes).
  uint64_t min_frequency = 0;
  size_t max_token_length = 0;
  std::string custom_regex = "";  // "pattern": "custom", "pattern_regex": the regex
};

std::string FormatManifestJson(const Manifest& manifest);
absl::StatusOr<Manifest> ReadManifest(const std::string& path);
absl::StatusOr<Manifest> ParseManifest(absl::string_view text, absl::string_view path);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_FORMATS_MANIFEST_H_
