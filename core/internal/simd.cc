#include "core/internal/simd.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"

namespace bpeforge::internal {
namespace simd_internal {

std::atomic<int> active_path{-1};

namespace {

std::string SimdPathNames() {
  std::string names;
  for (int i = 0; i < kSimdPaths; ++i) {
    absl::StrAppend(&names, i > 0 ? ", " : "", SimdPathName(static_cast<SimdPath>(i)));
  }
  return names;
}

SimdPath WidestSimdPath() {
  if (CpuHasSimdPath(SimdPath::kAvx512)) return SimdPath::kAvx512;
  if (CpuHasSimdPath(SimdPath::kAvx2)) return SimdPath::kAvx2;
  return SimdPath::kBaseline;
}

// The path BPEFORGE_SIMD names, the widest one when it is unset or empty; a warning on
// standard error where it names none or one this CPU lacks.
SimdPath PathFromEnvironment() {
  const SimdPath widest = WidestSimdPath();
  const char* value = std::getenv("BPEFORGE_SIMD");
  if (value == nullptr || *value == '\0') return widest;
  for (int i = 0; i < kSimdPaths; ++i) {
    const auto path = static_cast<SimdPath>(i);
    if (SimdPathName(path) != value) continue;
    if (CpuHasSimdPath(path)) return path;
    std::fprintf(stderr, "bpeforge: BPEFORGE_SIMD=%s: this CPU lacks %s; using %s\n", value, value,
                 std::string(SimdPathName(widest)).c_str());
    return widest;
  }
  std::fprintf(stderr, "bpeforge: BPEFORGE_SIMD=%s is none of %s; using %s\n", value,
               SimdPathNames().c_str(), std::string(SimdPathName(widest)).c_str());
  return widest;
}

}  // namespace

SimdPath ChooseSimdPath() {
  static std::once_flag once;
  std::call_once(once, [] {
    int expected = -1;  // a ScopedSimdPath may have set it first
    active_path.compare_exchange_strong(expected, static_cast<int>(PathFromEnvironment()));
  });
  return static_cast<SimdPath>(active_path.load(std::memory_order_relaxed));
}

}  // namespace simd_internal

absl::string_view SimdPathName(SimdPath path) {
  switch (path) {
    case SimdPath::kAvx2:
      return "avx2";
    case SimdPath::kAvx512:
      return "avx512";
    case SimdPath::kBaseline:
      break;
  }
#if defined(__x86_64__)
  return "sse2";
#else
  return "portable";
#endif
}

bool CpuHasSimdPath(SimdPath path) {
#if defined(__x86_64__)
  // libgcc's CPU model, which also asks the operating system whether it saves the wider
  // registers.
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
                    __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
  switch (path) {
    case SimdPath::kBaseline:
      return true;
    case SimdPath::kAvx2:
      return avx2;
    case SimdPath::kAvx512:
      return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  }
  return false;
#else
  return path == SimdPath::kBaseline;
#endif
}

ScopedSimdPath::ScopedSimdPath(SimdPath path) : previous_(ActiveSimdPath()) {
  simd_internal::active_path.store(static_cast<int>(path), std::memory_order_relaxed);
}

ScopedSimdPath::~ScopedSimdPath() {
  simd_internal::active_path.store(static_cast<int>(previous_), std::memory_order_relaxed);
}

}  // namespace bpeforge::internal
