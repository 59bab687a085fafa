// Error propagation in one line, as Abseil's and SentencePiece's internal code spells it:
//
//   absl::Status WriteAll(...) {
//     BPEFORGE_RETURN_IF_ERROR(file.Write(header));
//     BPEFORGE_ASSIGN_OR_RETURN(std::string body, Format(model));
//     return file.Write(body);
//   }
//
// Internal only: the public headers spell errors out, so that they need no macros.
#ifndef BPEFORGE_CORE_INTERNAL_STATUS_MACROS_H_
#define BPEFORGE_CORE_INTERNAL_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Evaluates `expr` (an absl::Status) and returns it from the enclosing function if not OK.
#define BPEFORGE_RETURN_IF_ERROR(expr)                                                        \
  do {                                                                                        \
    if (absl::Status bpeforge_status = (expr); !bpeforge_status.ok()) return bpeforge_status; \
  } while (false)

// Evaluates `rexpr` (an absl::StatusOr<T>); returns its status if not OK, else moves its value
// into `lhs`, a declaration (`auto x`, `std::string x`) or an existing variable.
#define BPEFORGE_ASSIGN_OR_RETURN(lhs, rexpr) \
  BPEFORGE_ASSIGN_OR_RETURN_IMPL(BPEFORGE_STATUS_CONCAT(bpeforge_statusor_, __LINE__), lhs, rexpr)

#define BPEFORGE_ASSIGN_OR_RETURN_IMPL(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                   \
  if (!statusor.ok()) return std::move(statusor).status();   \
  lhs = *std::move(statusor)

#define BPEFORGE_STATUS_CONCAT_INNER(a, b) a##b
#define BPEFORGE_STATUS_CONCAT(a, b) BPEFORGE_STATUS_CONCAT_INNER(a, b)

#endif  // BPEFORGE_CORE_INTERNAL_STATUS_MACROS_H_
