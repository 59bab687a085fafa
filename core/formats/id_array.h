// The on-disk id arrays of `encode` and `decode`: flat little-endian uint16 or uint32.
#ifndef BPEFORGE_CORE_FORMATS_ID_ARRAY_H_
#define BPEFORGE_CORE_FORMATS_ID_ARRAY_H_

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/internal/types.h"

namespace bpeforge::internal {

inline size_t IdWidth(IdType type) { return type == IdType::kUint16 ? 2 : 4; }

// The bytes of `ids` as little-endian integers of `width` bytes (callers checked they fit):
// the ids' own memory where they are already that (uint32 on a little-endian machine), else
// written into `*buffer`, which only grows. Encoding calls this once per chunk, and a buffer
// zeroed for every chunk (a string resized from empty), then filled, then copied by `write`,
// is a pass over the ids more than it needs.
inline absl::string_view IdBytes(absl::Span<const TokenId> ids, size_t width,
                                 std::vector<char>* buffer) {
  const size_t size = ids.size() * width;
  if constexpr (std::endian::native == std::endian::little) {
    if (width == sizeof(TokenId)) return {reinterpret_cast<const char*>(ids.data()), size};
  }
  if (buffer->size() < size) buffer->resize(size);
  char* p = buffer->data();
  if (std::endian::native == std::endian::little && width == 2) {
    for (TokenId id : ids) {
      const auto v = static_cast<uint16_t>(id);
      std::memcpy(p, &v, 2);
      p += 2;
    }
  } else {
    for (TokenId id : ids) {
      for (size_t b = 0; b < width; ++b) p[b] = static_cast<char>(id >> (8 * b));
      p += width;
    }
  }
  return {buffer->data(), size};
}

// Reads the id at `index` of a little-endian array of `width`-byte ids.
inline TokenId IdAt(const char* data, size_t index, size_t width) {
  const auto* p = reinterpret_cast<const unsigned char*>(data) + index * width;
  TokenId id = 0;
  for (size_t b = 0; b < width; ++b) id |= TokenId{p[b]} << (8 * b);
  return id;
}

// The sidecar IDS.json written beside an id file, so that decoding can check the id type, the
// count and the tokenizer: {"format": "bpeforge-ids", "version": 1, "dtype": "uint16",
// "count": N, "tokenizer": "ids-fnv1a64:..."}.
struct IdsSidecar {
  IdType type = IdType::kUint32;
  uint64_t count = 0;
  std::string fingerprint;
};
std::string IdsSidecarPath(const std::string& ids_path);
std::string FormatIdsSidecar(const IdsSidecar& sidecar);
// nullopt when there is no sidecar; an error naming the file when it is malformed.
absl::StatusOr<std::optional<IdsSidecar>> ReadIdsSidecar(const std::string& ids_path);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_FORMATS_ID_ARRAY_H_
