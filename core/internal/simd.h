// Which SIMD instructions the hot loops use. One build runs on any x86-64: the loops are
// compiled once per path (SSE2, the x86-64 baseline; AVX2; AVX-512), and the widest path the
// CPU has is chosen at start-up. BPEFORGE_SIMD=sse2|avx2|avx512 chooses one instead; a path
// the CPU lacks, or another value, falls back to the widest path with one warning on standard
// error, since results never depend on the path and a job should not fail for a speed setting.
//
//   using Fn = size_t (*)(const uint8_t*, size_t);
//   static constexpr Fn kScan[kSimdPaths] = {sse2::Scan, avx2::Scan, avx512::Scan};
//   const size_t n = ForSimdPath(kScan)(data, size);
//   absl::string_view name = SimdPathName(ActiveSimdPath());  // "avx2"
//
// Code for a path other than the baseline is written between BPEFORGE_SIMD_TARGET_BEGIN_AVX2
// (or _AVX512) and BPEFORGE_SIMD_TARGET_END: every function defined there may use the path's
// instructions (and inlines the baseline's inline functions it calls), and only runs when the
// CPU has them.
#ifndef BPEFORGE_CORE_INTERNAL_SIMD_H_
#define BPEFORGE_CORE_INTERNAL_SIMD_H_

#include <atomic>

#include "absl/strings/string_view.h"

namespace bpeforge::internal {

enum class SimdPath { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };
inline constexpr int kSimdPaths = 3;

// "sse2", "avx2", "avx512" (the baseline is "portable" off x86-64).
absl::string_view SimdPathName(SimdPath path);

// Whether this CPU (and its operating system) can run `path`.
bool CpuHasSimdPath(SimdPath path);

namespace simd_internal {
extern std::atomic<int> active_path;  // a SimdPath, or -1 until chosen
SimdPath ChooseSimdPath();
}  // namespace simd_internal

// The path the loops use: BPEFORGE_SIMD's, else the widest the CPU has.
inline SimdPath ActiveSimdPath() {
  const int path = simd_internal::active_path.load(std::memory_order_relaxed);
  return path >= 0 ? static_cast<SimdPath>(path) : simd_internal::ChooseSimdPath();
}

// fns[path] for the active path: a table of one function per path.
template <typename Fn>
Fn ForSimdPath(const Fn (&fns)[kSimdPaths]) {
  return fns[static_cast<int>(ActiveSimdPath())];
}

// For tests: makes `path` (which the CPU must have) the active one while it lives. Not for use
// while other threads run the loops.
class ScopedSimdPath {
 public:
  explicit ScopedSimdPath(SimdPath path);
  ~ScopedSimdPath();
  ScopedSimdPath(const ScopedSimdPath&) = delete;
  ScopedSimdPath& operator=(const ScopedSimdPath&) = delete;

 private:
  SimdPath previous_;
};

}  // namespace bpeforge::internal

// The instruction sets of each path beyond the baseline, as compiler targets: what the CPU
// check in simd.cc asks for. BMI gives tzcnt and blsr to the bit-mask arithmetic.
#define BPEFORGE_SIMD_TARGETS_AVX2 "avx2,bmi,bmi2,popcnt"
#define BPEFORGE_SIMD_TARGETS_AVX512 "avx512f,avx512bw,avx2,bmi,bmi2,popcnt"

#define BPEFORGE_SIMD_PRAGMA(tokens) _Pragma(#tokens)
#if defined(__clang__)
#define BPEFORGE_SIMD_TARGET_BEGIN(targets) \
  BPEFORGE_SIMD_PRAGMA(clang attribute push(__attribute__((target(targets))), apply_to = function))
#define BPEFORGE_SIMD_TARGET_END BPEFORGE_SIMD_PRAGMA(clang attribute pop)
#else
#define BPEFORGE_SIMD_TARGET_BEGIN(targets) \
  BPEFORGE_SIMD_PRAGMA(GCC push_options) BPEFORGE_SIMD_PRAGMA(GCC target(targets))
#define BPEFORGE_SIMD_TARGET_END BPEFORGE_SIMD_PRAGMA(GCC pop_options)
#endif
#define BPEFORGE_SIMD_TARGET_BEGIN_AVX2 BPEFORGE_SIMD_TARGET_BEGIN(BPEFORGE_SIMD_TARGETS_AVX2)
#define BPEFORGE_SIMD_TARGET_BEGIN_AVX512 BPEFORGE_SIMD_TARGET_BEGIN(BPEFORGE_SIMD_TARGETS_AVX512)

#endif  // BPEFORGE_CORE_INTERNAL_SIMD_H_
