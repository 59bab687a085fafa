#include "core/formats/manifest.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "core/internal/atomic_file.h"
#include "core/internal/status_macros.h"
#include "core/train/vocab.h"

namespace bpeforge::internal {

std::string FormatManifestJson(const Manifest& manifest) {
  nlohmann::ordered_json j;
  j["format"] = "bpeforge";
  j["version"] = 1;
  j["pattern"] = std::string(PatternName(manifest.pattern));
  if (manifest.pattern == Pattern::kCustom) j["pattern_regex"] = manifest.custom_regex;
  j["special_tokens"] = manifest.special_tokens;
  j["layout"] = manifest.ids_from_vocab_json ? std::string(kVocabFile)
                                             : std::string(IdLayoutName(manifest.layout));
  j["vocab_size"] = manifest.vocab_size;
  if (manifest.min_frequency > 0) j["min_frequency"] = manifest.min_frequency;
  if (manifest.max_token_length > 0) j["max_token_length"] = manifest.max_token_length;
  j["vocab"] = kVocabFile;
  j["merges"] = kMergesFile;
  return j.dump(2) + "\n";
}

absl::StatusOr<Manifest> ParseManifest(absl::string_view text, absl::string_view path) {
  try {
    const nlohmann::json j = nlohmann::json::parse(text.begin(), text.end());
    if (j.value("format", "") != "bpeforge") {
      return absl::InvalidArgumentError(absl::StrCat(path, ": not a bpeforge manifest"));
    }
    Manifest m;
    absl::StatusOr<Pattern> pattern = ParsePattern(j.at("pattern").get<std::string>());
    if (!pattern.ok())
      return absl::InvalidArgumentError(absl::StrCat(path, ": ", pattern.status().message()));
    m.pattern = *pattern;
    if (m.pattern == Pattern::kCustom) {
      m.custom_regex = j.at("pattern_regex").get<std::string>();
      if (m.custom_regex.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(path, ": \"pattern_regex\" is empty"));
      }
    }
    m.special_tokens = j.at("special_tokens").get<std::vector<std::string>>();
    for (size_t i = 0; i < m.special_tokens.size(); ++i) {
      if (m.special_tokens[i].empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": special token ", i + 1, " is empty"));
      }
    }
    const std::string layout_name = j.at("layout").get<std::string>();
    if (layout_name == kVocabFile) {
      m.ids_from_vocab_json = true;
    } else {
      absl::StatusOr<IdLayout> layout = ParseIdLayout(layout_name);
      if (!layout.ok())
        return absl::InvalidArgumentError(absl::StrCat(path, ": ", layout.status().message()));
      m.layout = *layout;
    }
    m.vocab_size = j.at("vocab_size").get<size_t>();
    m.min_frequency = j.value("min_frequency", uint64_t{0});
    m.max_token_length = j.value("max_token_length", size_t{0});
    return m;
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": malformed manifest: ", e.what()));
  }
}

absl::StatusOr<Manifest> ReadManifest(const std::string& path) {
  std::string text;
  BPEFORGE_RETURN_IF_ERROR(ReadFile(path, &text));
  return ParseManifest(text, path);
}

}  // namespace bpeforge::internal
