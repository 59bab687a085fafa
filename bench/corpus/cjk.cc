#include "bench/corpus/cjk.h"

#include <cstdint>

#include "absl/strings/ascii.h"
#include "bench/corpus/sampling.h"

namespace bpeforge::internal::bench {
namespace {

constexpr char32_t kFirstIdeograph = 0x4E00;  // CJK Unified Ideographs
constexpr uint64_t kIdeographs = 3500;        // about the characters of everyday Chinese

// One to three ideographs for a word (letters and apostrophes, case folded).
void WriteWord(std::string_view word, Out& out) {
  uint64_t h = 0x9E3779B97F4A7C15u;
  size_t letters = 0;
  for (char c : word) {
    if (c == '\'') continue;
    h = Mix64(h ^ static_cast<unsigned char>(absl::ascii_tolower(c)));
    ++letters;
  }
  const size_t chars = letters <= 2 ? 1 : letters <= 5 ? 2 : 3;
  for (size_t i = 0; i < chars; ++i) {
    out.Utf8(kFirstIdeograph + static_cast<char32_t>(h % kIdeographs));
    h = Mix64(h + i + 1);
  }
}

}  // namespace

void WriteAsCjk(std::string_view stories, Out& out) {
  bool open_quote = true;
  size_t i = 0;
  while (i < stories.size()) {
    if (stories.substr(i, kEndOfText.size()) == kEndOfText) {
      out.Append(kEndOfText);
      i += kEndOfText.size();
      open_quote = true;
      continue;
    }
    const char c = stories[i];
    if (absl::ascii_isalpha(c)) {
      size_t end = i;
      while (end < stories.size() && (absl::ascii_isalpha(stories[end]) || stories[end] == '\'')) {
        ++end;
      }
      WriteWord(stories.substr(i, end - i), out);
      i = end;
      continue;
    }
    switch (c) {
      case ' ':
        break;
      case '.':
        out.Utf8(U'\u3002');  // 。
        break;
      case ',':
        out.Utf8(U'\uFF0C');  // ，
        break;
      case '!':
        out.Utf8(U'\uFF01');  // ！
        break;
      case '?':
        out.Utf8(U'\uFF1F');  // ？
        break;
      case '"':
        out.Utf8(open_quote ? U'\u201C' : U'\u201D');  // “ ”
        open_quote = !open_quote;
        break;
      default:
        out.Push(c);
    }
    ++i;
  }
}

}  // namespace bpeforge::internal::bench
