// Building the text: an append-only byte buffer, a pool of short strings, and syllable-built
// words, shared by the stories and web models.
#ifndef BPEFORGE_BENCH_CORPUS_TEXT_BUFFER_H_
#define BPEFORGE_BENCH_CORPUS_TEXT_BUFFER_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "bench/corpus/sampling.h"
#include "core/internal/utf8.h"

namespace bpeforge::internal::bench {

// Ends every document.
inline constexpr std::string_view kEndOfText = "\n<|endoftext|>\n";

// Short strings are copied as one fixed-size 16-byte move: much cheaper than a memcpy call
// for the 2-10 byte words that make up the text. The source must then be readable for 16
// bytes (StringTable pads its pool for this), and the buffer keeps kSlack spare bytes.
inline constexpr size_t kCopy = 16;
inline constexpr size_t kSlack = 64;

// An append-only byte buffer; cheaper than std::string::append in the hot loop because the
// capacity check is the only branch.
class Out {
 public:
  explicit Out(size_t capacity) : buf_(capacity + kSlack, '\0') {}
  void Append(const char* p, size_t n) {
    Reserve(n);
    std::memcpy(buf_.data() + pos_, p, n);
    pos_ += n;
  }
  void Append(std::string_view s) { Append(s.data(), s.size()); }
  // Like Append, for strings whose storage is readable for at least kCopy bytes.
  void AppendPadded(std::string_view s) {
    Reserve(s.size());
    if (s.size() <= kCopy) {
      std::memcpy(buf_.data() + pos_, s.data(), kCopy);
    } else {
      std::memcpy(buf_.data() + pos_, s.data(), s.size());
    }
    pos_ += s.size();
  }
  void Push(char c) {
    Reserve(1);
    buf_[pos_++] = c;
  }
  // Writes a non-negative integer in decimal.
  void Number(uint64_t v) {
    char tmp[24];
    char* e = tmp + sizeof(tmp);
    char* p = e;
    do {
      *--p = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v != 0);
    Append(p, static_cast<size_t>(e - p));
  }
  // Writes v with exactly `digits` digits (leading zeros).
  void Padded(uint64_t v, int digits) {
    char tmp[24];
    for (int i = digits - 1; i >= 0; --i) {
      tmp[i] = static_cast<char>('0' + v % 10);
      v /= 10;
    }
    Append(tmp, static_cast<size_t>(digits));
  }
  // Writes v with thousands separators: 1,234,567.
  void Grouped(uint64_t v) {
    if (v < 1000) {
      Number(v);
      return;
    }
    Grouped(v / 1000);
    Push(',');
    Padded(v % 1000, 3);
  }
  void Utf8(char32_t cp) {
    std::string bytes;  // at most 4: held inline, no allocation
    AppendUtf8(cp, &bytes);
    Append(bytes.data(), bytes.size());
  }
  // Upper-cases the ASCII letter at `pos` (words that start with another byte stay as is).
  void CapitalizeAt(size_t pos) {
    if (pos < pos_) buf_[pos] = absl::ascii_toupper(static_cast<unsigned char>(buf_[pos]));
  }
  void UpperFrom(size_t pos) {
    for (size_t i = pos; i < pos_; ++i) {
      buf_[i] = absl::ascii_toupper(static_cast<unsigned char>(buf_[i]));
    }
  }
  // Replaces the straight double quotes written since `pos` by alternating curly ones.
  void CurlyQuotesFrom(size_t pos) {
    std::string tail = buf_.substr(pos, pos_ - pos);
    pos_ = pos;
    bool open = true;
    for (char ch : tail) {
      if (ch == '"') {
        Append(open ? "\u201C" : "\u201D");
        open = !open;
      } else {
        Push(ch);
      }
    }
  }
  size_t size() const { return pos_; }
  std::string Take() {
    buf_.resize(pos_);
    return std::move(buf_);
  }

 private:
  void Reserve(size_t n) {
    if (pos_ + n + kSlack > buf_.size()) buf_.resize(std::max(buf_.size() * 2, pos_ + n + kSlack));
  }
  std::string buf_;
  size_t pos_ = 0;
};

// Many short strings in one pool, padded at the end so that Out::AppendPadded may read
// kCopy bytes from any of them.
class StringTable {
 public:
  StringTable() : pool_(kCopy, '\0') {}
  void Add(std::string_view s) {
    pool_.resize(pool_.size() - kCopy);
    spans_.push_back({static_cast<uint32_t>(pool_.size()), static_cast<uint32_t>(s.size())});
    pool_.append(s);
    pool_.append(kCopy, '\0');
  }
  std::string_view operator[](size_t i) const {
    return std::string_view(pool_.data() + spans_[i].offset, spans_[i].length);
  }
  size_t size() const { return spans_.size(); }

 private:
  struct Span {
    uint32_t offset;
    uint32_t length;
  };
  std::string pool_;
  std::vector<Span> spans_;
};

// Pronounceable made-up words: each syllable is onset + nucleus + coda, picked by bits of a
// hash, so the word for a given hash is always the same and needs no table. Syllables sit in
// 16-byte slots (15 bytes of text and the length) so one load fetches one.
class SyllableWords {
 public:
  SyllableWords(const std::vector<std::string_view>& onsets,
                const std::vector<std::string_view>& nuclei,
                const std::vector<std::string_view>& codas) {
    for (auto o : onsets) {
      for (auto n : nuclei) {
        for (auto c : codas) {
          const std::string syllable = std::string(o).append(n).append(c);
          if (syllable.size() >= kCopy) std::abort();  // the tables below are too long
          const size_t at = slots_.size();
          slots_.resize(at + kCopy, '\0');
          std::memcpy(slots_.data() + at, syllable.data(), syllable.size());
          slots_[at + kCopy - 1] = static_cast<char>(syllable.size());
        }
      }
    }
    n_ = slots_.size() / kCopy;
  }
  // Appends the word for hash `h` with `syllables` syllables; 16 bits of h per syllable
  // (scaled by multiply-shift, no division), re-mixed after four.
  void Append(uint64_t h, int syllables, Out& out) const {
    for (int i = 0; i < syllables; ++i) {
      if (i == 4) h = Mix64(h);
      const char* slot = slots_.data() + (((h & 0xFFFF) * n_) >> 16) * kCopy;
      out.AppendPadded(std::string_view(slot, static_cast<size_t>(slot[kCopy - 1])));
      h = (h >> 16) | (h << 48);
    }
  }

 private:
  std::string slots_;
  uint64_t n_ = 0;
};

inline const std::vector<std::string_view>& AsciiOnsets() {
  static const auto* v = new std::vector<std::string_view>{
      "b",  "c",  "d",  "f",  "g",  "h",  "j",  "k",  "l",  "m",  "n",  "p",  "r",  "s",
      "t",  "v",  "w",  "z",  "br", "cr", "dr", "fr", "gr", "pr", "tr", "bl", "cl", "fl",
      "gl", "pl", "sl", "st", "sp", "sc", "sh", "ch", "th", "wh", "qu", "sn"};
  return *v;
}
inline const std::vector<std::string_view>& AsciiNuclei() {
  static const auto* v = new std::vector<std::string_view>{"a",  "e",  "i",  "o",  "u", "ai",
                                                           "ea", "ee", "io", "ou", "y", "oa"};
  return *v;
}
inline const std::vector<std::string_view>& AsciiCodas() {
  static const auto* v = new std::vector<std::string_view>{
      "", "", "", "n", "r", "s", "t", "l", "m", "nd", "nt", "st", "ck", "ng", "rt", "x"};
  return *v;
}

}  // namespace bpeforge::internal::bench

#endif  // BPEFORGE_BENCH_CORPUS_TEXT_BUFFER_H_
