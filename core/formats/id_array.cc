#include "core/formats/id_array.h"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "core/internal/atomic_file.h"
#include "core/internal/status_macros.h"

namespace bpeforge::internal {

std::string IdsSidecarPath(const std::string& ids_path) { return ids_path + ".json"; }

std::string FormatIdsSidecar(const IdsSidecar& sidecar) {
  nlohmann::ordered_json j;
  j["format"] = "bpeforge-ids";
  j["version"] = 1;
  j["dtype"] = sidecar.type == IdType::kUint16 ? "uint16" : "uint32";
  j["count"] = sidecar.count;
  j["tokenizer"] = sidecar.fingerprint;
  return j.dump(2) + "\n";
}

absl::StatusOr<std::optional<IdsSidecar>> ReadIdsSidecar(const std::string& ids_path) {
  const std::string path = IdsSidecarPath(ids_path);
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  std::string text;
  BPEFORGE_RETURN_IF_ERROR(ReadFile(path, &text));
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", why));
  };
  if (!j.is_object() || j.value("format", "") != "bpeforge-ids") {
    return bad("not a bpeforge id sidecar (expected \"format\": \"bpeforge-ids\")");
  }
  IdsSidecar sidecar;
  const std::string dtype = j.value("dtype", "");
  if (dtype != "uint16" && dtype != "uint32") return bad("\"dtype\" must be uint16 or uint32");
  sidecar.type = dtype == "uint16" ? IdType::kUint16 : IdType::kUint32;
  if (!j.contains("count") || !j["count"].is_number_unsigned()) {
    return bad("\"count\" must be a non-negative integer");
  }
  sidecar.count = j["count"].get<uint64_t>();
  sidecar.fingerprint = j.value("tokenizer", "");
  return sidecar;
}

}  // namespace bpeforge::internal
