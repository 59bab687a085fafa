#include "core/internal/file_status.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace bpeforge::internal {

absl::Status ErrnoStatus(int err, absl::string_view what, absl::string_view path) {
  absl::StatusCode code = absl::StatusCode::kInternal;
  switch (err) {
    case ENOENT:
      code = absl::StatusCode::kNotFound;
      break;
    case EACCES:
    case EPERM:
    case EROFS:
      code = absl::StatusCode::kPermissionDenied;
      break;
    case ENOTDIR:
    case EISDIR:
    case EEXIST:
      code = absl::StatusCode::kFailedPrecondition;
      break;
    case ENOSPC:
    case EDQUOT:
      code = absl::StatusCode::kResourceExhausted;
      break;
    default:
      break;
  }
  absl::Status status(code, absl::StrCat(what, " ", path, ": ", std::strerror(err)));
  status.SetPayload(kErrnoPayloadUrl, absl::Cord(std::to_string(err)));
  status.SetPayload(kPathPayloadUrl, absl::Cord(path));
  return status;
}

absl::Status Prefixed(absl::string_view prefix, const absl::Status& status) {
  absl::Status out(status.code(), absl::StrCat(prefix, ": ", status.message()));
  status.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

}  // namespace bpeforge::internal
