// Statuses for failed file-system calls. The code follows errno (kNotFound for ENOENT,
// kPermissionDenied for EACCES, ...), and the errno value and the path travel as payloads
// (kErrnoPayload, kPathPayload in bpeforge/bpeforge.h) so that front ends can report them
// exactly: Python raises OSError(errno, strerror, path), which picks FileNotFoundError,
// PermissionError, NotADirectoryError, ... by itself.
#ifndef BPEFORGE_CORE_INTERNAL_FILE_STATUS_H_
#define BPEFORGE_CORE_INTERNAL_FILE_STATUS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace bpeforge::internal {

inline constexpr absl::string_view kErrnoPayloadUrl = "bpeforge.errno";
inline constexpr absl::string_view kPathPayloadUrl = "bpeforge.path";

// "<what> <path>: <strerror(err)>", with the payloads.
absl::Status ErrnoStatus(int err, absl::string_view what, absl::string_view path);

// `status` with `prefix: ` before its message, its code and payloads kept.
absl::Status Prefixed(absl::string_view prefix, const absl::Status& status);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_INTERNAL_FILE_STATUS_H_
