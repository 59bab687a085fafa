// A pre-token of at most 15 bytes packed into two words: the bytes, and the length in the top
// byte. Counting and encoding look such keys up by value (no allocation, no pointer chase,
// a two-word compare); almost every pre-token of real text is this short. Counting packs those
// of 16 to 31 bytes the same way into a MediumKey of four words.
//
//   ShortKey k = PackShortKey("hello");           // reads only the 5 bytes
//   ShortKey r = PackShortKeyReadable(token, end);  // two loads, if 16 bytes are readable
//   char buf[16];
//   absl::string_view back = UnpackShortKey(k, buf);  // "hello"
#ifndef BPEFORGE_CORE_INTERNAL_SHORT_KEY_H_
#define BPEFORGE_CORE_INTERNAL_SHORT_KEY_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "absl/strings/string_view.h"

namespace bpeforge::internal {

inline constexpr size_t kMaxShortKey = 15;

struct ShortKey {
  uint64_t lo, hi;  // bytes 0..7, bytes 8..14 and the length in the top byte
  bool operator==(const ShortKey& o) const { return lo == o.lo && hi == o.hi; }
};

namespace short_key_internal {
inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
// A mask of the low k bytes of a word, k <= 8.
inline uint64_t LowBytes(size_t k) { return k >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * k)) - 1; }
}  // namespace short_key_internal

// Packs 0..15 bytes without reading outside them (overlapping loads, little-endian).
inline ShortKey PackShortKey(absl::string_view s) {
  using short_key_internal::Load32;
  using short_key_internal::Load64;
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t lo = 0, hi = 0;
  if (n > 8) {
    lo = Load64(p);
    hi = Load64(p + n - 8) >> (8 * (16 - n));
  } else if (n == 8) {
    lo = Load64(p);
  } else if (n >= 4) {
    lo = Load32(p) | (static_cast<uint64_t>(Load32(p + n - 4)) << (8 * (n - 4)));
  } else if (n > 0) {
    lo = static_cast<uint64_t>(static_cast<uint8_t>(p[0])) |
         (static_cast<uint64_t>(static_cast<uint8_t>(p[n / 2])) << (8 * (n / 2))) |
         (static_cast<uint64_t>(static_cast<uint8_t>(p[n - 1])) << (8 * (n - 1)));
  }
  return ShortKey{lo, hi | (static_cast<uint64_t>(n) << 56)};
}

// PackShortKey's key, read with two loads and masks when the 16 bytes from s.data() are below
// `readable_end`: no branch on the length, which varies from token to token and so would be
// mispredicted often.
inline ShortKey PackShortKeyReadable(absl::string_view s, const char* readable_end) {
  using short_key_internal::Load64;
  using short_key_internal::LowBytes;
  if (readable_end - s.data() < 16) return PackShortKey(s);
  const size_t n = s.size();
  const uint64_t lo = Load64(s.data()) & LowBytes(n);
  const uint64_t hi = Load64(s.data() + 8) & LowBytes(n > 8 ? n - 8 : 0);
  return ShortKey{lo, hi | (static_cast<uint64_t>(n) << 56)};
}

// The bytes of a key, written into `buf` (16 bytes).
inline absl::string_view UnpackShortKey(const ShortKey& k, char* buf) {
  std::memcpy(buf, &k.lo, 8);
  std::memcpy(buf + 8, &k.hi, 8);
  return absl::string_view(buf, static_cast<size_t>(k.hi >> 56));
}

// A pre-token of 16 to 31 bytes (any up to 31 fits), four words as ShortKey's two: web text's
// URLs, long words and runs of digits or punctuation, few of its pre-tokens but more of the
// distinct ones, which counting would otherwise hold as strings in a map.
inline constexpr size_t kMaxMediumKey = 31;

struct MediumKey {
  uint64_t w[4];  // bytes 0..30; the length in the top byte of w[3]
  bool operator==(const MediumKey& o) const {
    return ((w[0] ^ o.w[0]) | (w[1] ^ o.w[1]) | (w[2] ^ o.w[2]) | (w[3] ^ o.w[3])) == 0;
  }
};

// Packs 0..31 bytes without reading outside them.
inline MediumKey PackMediumKey(absl::string_view s) {
  MediumKey k{{0, 0, 0, 0}};
  std::memcpy(k.w, s.data(), s.size());
  k.w[3] |= static_cast<uint64_t>(s.size()) << 56;
  return k;
}

// PackMediumKey's key, read with four loads and masks when the 32 bytes from s.data() are
// below `readable_end`.
inline MediumKey PackMediumKeyReadable(absl::string_view s, const char* readable_end) {
  using short_key_internal::Load64;
  using short_key_internal::LowBytes;
  if (readable_end - s.data() < 32) return PackMediumKey(s);
  const size_t n = s.size();
  MediumKey k;
  for (size_t i = 0; i < 4; ++i) {
    k.w[i] = Load64(s.data() + 8 * i) & LowBytes(n > 8 * i ? n - 8 * i : 0);
  }
  k.w[3] |= static_cast<uint64_t>(n) << 56;
  return k;
}

// The bytes of a key, written into `buf` (32 bytes).
inline absl::string_view UnpackMediumKey(const MediumKey& k, char* buf) {
  std::memcpy(buf, k.w, 32);
  return absl::string_view(buf, static_cast<size_t>(k.w[3] >> 56));
}

// A cheap index into a direct-mapped table of 2^bits slots (a multiply; good enough where a
// collision costs only a miss).
inline size_t ShortKeySlot(const ShortKey& k, int bits) {
  return static_cast<size_t>(((k.lo ^ k.hi) * 0x9E3779B97F4A7C15u) >> (64 - bits));
}

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_INTERNAL_SHORT_KEY_H_
