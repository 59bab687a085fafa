// Running a test on every SIMD path this CPU has (core/internal/simd.h), in one process: the
// tests whose results may not depend on the path run their work once per path.
#ifndef BPEFORGE_TESTS_SIMD_PATHS_H_
#define BPEFORGE_TESTS_SIMD_PATHS_H_

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/internal/simd.h"

namespace bpeforge::internal::testing {

// The paths this CPU has, narrowest first. The test's output names, once, those it lacks,
// which go untested here.
inline std::vector<SimdPath> SimdPathsOfThisCpu() {
  std::vector<SimdPath> paths;
  std::string lacking;
  for (int i = 0; i < kSimdPaths; ++i) {
    const auto path = static_cast<SimdPath>(i);
    if (CpuHasSimdPath(path)) {
      paths.push_back(path);
    } else {
      absl::StrAppend(&lacking, " ", SimdPathName(path));
    }
  }
  static bool told = false;
  if (!lacking.empty() && !told) {
    told = true;
    std::printf("[ SIMD     ] this CPU lacks%s, which is not tested here\n", lacking.c_str());
  }
  return paths;
}

// Calls fn(path) with each path of this CPU active in turn.
template <typename Fn>
void OnEverySimdPath(Fn&& fn) {
  for (SimdPath path : SimdPathsOfThisCpu()) {
    const ScopedSimdPath active(path);
    SCOPED_TRACE(absl::StrCat("SIMD path ", SimdPathName(path)));
    fn(path);
  }
}

}  // namespace bpeforge::internal::testing

#endif  // BPEFORGE_TESTS_SIMD_PATHS_H_
