// The generator's randomness: a seeded xoshiro256++ generator, Walker's alias tables for
// drawing from fixed distributions in O(1), and Zipf weights.
#ifndef BPEFORGE_BENCH_CORPUS_SAMPLING_H_
#define BPEFORGE_BENCH_CORPUS_SAMPLING_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace bpeforge::internal::bench {

inline uint64_t Mix64(uint64_t x) {  // the splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// xoshiro256++: fast, and good enough that the text shows no visible patterns.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (uint64_t& w : s_) {
      seed = Mix64(seed);
      w = seed;
    }
  }
  uint64_t Next() {
    const uint64_t result = Rotl(s_[0] + s_[3], 23) + s_[0];
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, n) by multiply-shift; the bias (n / 2^32) is irrelevant here.
  uint32_t Below(uint32_t n) { return static_cast<uint32_t>(((Next() >> 32) * n) >> 32); }
  uint32_t Range(uint32_t lo, uint32_t hi) { return lo + Below(hi - lo + 1); }  // [lo, hi]
  bool PerMille(uint32_t p) { return Below(1000) < p; }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

  // A number drawn ahead of its use, so that a sampler can prefetch what it will need.
  uint64_t lookahead = 0;

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::array<uint64_t, 4> s_;
};

// Walker/Vose alias table: O(1) sampling from a fixed discrete distribution with one random
// number and two array reads, which keeps Zipf sampling off the profile.
class AliasTable {
 public:
  explicit AliasTable(const std::vector<double>& weights) : n_(weights.size()), table_(n_) {
    double sum = 0;
    for (double w : weights) sum += w;
    std::vector<double> p(n_);
    std::vector<uint32_t> small, large;
    for (size_t i = 0; i < n_; ++i) {
      p[i] = weights[i] * static_cast<double>(n_) / sum;
      (p[i] < 1.0 ? small : large).push_back(static_cast<uint32_t>(i));
    }
    while (!small.empty() && !large.empty()) {
      const uint32_t s = small.back();
      small.pop_back();
      const uint32_t l = large.back();
      table_[s] = {ToThreshold(p[s]), l};
      p[l] -= 1.0 - p[s];
      if (p[l] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (uint32_t i : small) table_[i] = {std::numeric_limits<uint32_t>::max(), i};  // rounding
    for (uint32_t i : large) table_[i] = {std::numeric_limits<uint32_t>::max(), i};
  }
  // Branch-free: the comparison is a coin flip the predictor cannot learn.
  uint32_t Sample(Rng& rng) const {
    const uint64_t r = rng.Next();
    const auto i = static_cast<uint32_t>(((r >> 32) * n_) >> 32);
    const Entry e = table_[i];
    const uint32_t keep = 0u - static_cast<uint32_t>(static_cast<uint32_t>(r) < e.threshold);
    return (i & keep) | (e.alias & ~keep);
  }
  size_t size() const { return n_; }
  uint32_t threshold(size_t i) const { return table_[i].threshold; }
  uint32_t alias(size_t i) const { return table_[i].alias; }

 private:
  struct Entry {
    uint32_t threshold;
    uint32_t alias;
  };
  static uint32_t ToThreshold(double p) {
    return static_cast<uint32_t>(std::min(p * 4294967296.0, 4294967295.0));
  }
  uint64_t n_;
  std::vector<Entry> table_;
};

inline std::vector<double> ZipfWeights(size_t n, double s, double q = 0) {
  std::vector<double> w(n);
  for (size_t r = 0; r < n; ++r) w[r] = std::pow(static_cast<double>(r) + 1.0 + q, -s);
  return w;
}

}  // namespace bpeforge::internal::bench

#endif  // BPEFORGE_BENCH_CORPUS_SAMPLING_H_
