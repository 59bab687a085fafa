#include "core/formats/own_files.h"

#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "core/formats/counts_file.h"
#include "core/formats/manifest.h"
#include "core/internal/atomic_file.h"

namespace bpeforge::internal {
namespace {

// The "format" of a JSON object in a regular file of at most 64 KB (manifests and sidecars
// are a few hundred bytes; a large .json in a corpus folder is data, not read whole here).
std::string FormatOfSmallJson(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (64 << 10)) return "";
  std::string text;
  if (!ReadFile(path, &text).ok()) return "";
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("format") || !j["format"].is_string()) return "";
  return j["format"].get<std::string>();
}

}  // namespace

bool IsTokenizerFolder(const std::string& dir) {
  return FormatOfSmallJson(absl::StrCat(dir, "/", kManifestFile)) == "bpeforge";
}

bool IsIdsSidecar(const std::string& path) { return FormatOfSmallJson(path) == "bpeforge-ids"; }

bool IsCountsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char start[kCountsMagic.size()];
  return in.read(start, sizeof start) && absl::string_view(start, sizeof start) == kCountsMagic;
}

}  // namespace bpeforge::internal
