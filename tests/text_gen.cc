#include "tests/text_gen.h"

#include <random>

namespace bpeforge::internal::testing {

std::string RandomText(uint64_t seed, const TextGenOptions& options) {
  static const std::vector<std::string> kAscii = {
      "a",      "b",  "ab",  "ba",  "aaaa",  "the",  "cat",  "hat", "low",  "lower", "newest",
      "widest", " ",  "  ",  "   ", "\n",    "\n\n", "\r\n", "\t",  " \n ", ".",     ",",
      "!?",     "'s", "'ll", "'re", "don't", "I'm",  "1",    "42",  "2024", "3.14",  "--",
      "(x)",    "A",  "AB",  "zz",  "<",     "|",    ">",    "/"};
  static const std::vector<std::string> kUnicode = {
      "é",      "café", "naïve", "Ünïcödé",     "日本語", "中文",   "Привет", "мир",   "γειά",
      "مرحبا",  "नमस्ते", "🙂",  "👩‍💻", "½",      "²",      "٣",      "１２",  " ",
      "\u2028", "ſ",    "K",     "\x1c",        "\u0085", "\u3000", "\u0301", "\u3002"};
  std::mt19937_64 rng(seed);
  auto pick = [&](const std::vector<std::string>& v) -> const std::string& {
    return v[rng() % v.size()];
  };
  std::string text;
  for (size_t i = 0; i < options.fragments; ++i) {
    const uint64_t r = rng() % 100;
    if (!options.special_tokens.empty() && r < 5) {
      text += pick(options.special_tokens);
    } else if (options.unicode && r < 25) {
      text += pick(kUnicode);
    } else {
      text += pick(kAscii);
    }
    if (rng() % 3 == 0) text += ' ';
  }
  return text;
}

}  // namespace bpeforge::internal::testing
