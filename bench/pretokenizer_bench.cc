// Pre-tokenizer throughput (MB/s): the fast matcher against the regex reference, for each
// pattern, on English-like text and on mixed-script text.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <iterator>
#include <memory>
#include <random>
#include <string>

#include "absl/strings/string_view.h"
#include "core/pretokenize/pretokenizer.h"

namespace bpeforge::internal {
namespace {

constexpr size_t kTextBytes = 4 << 20;

// Prose-shaped ASCII: frequent short words, capitals, contractions, digits, punctuation
// and paragraph breaks.
std::string EnglishText() {
  static const char* const kWords[] = {
      "the",         "of",         "and",    "to",    "a",    "in",     "is",      "it",
      "that",        "was",        "he",     "for",   "on",   "are",    "with",    "as",
      "his",         "they",       "be",     "at",    "one",  "have",   "this",    "from",
      "or",          "had",        "by",     "word",  "but",  "what",   "some",    "we",
      "can",         "out",        "other",  "were",  "all",  "there",  "when",    "up",
      "use",         "your",       "how",    "said",  "an",   "each",   "she",     "which",
      "do",          "their",      "time",   "if",    "will", "way",    "about",   "many",
      "then",        "them",       "write",  "would", "like", "so",     "these",   "her",
      "long",        "make",       "thing",  "see",   "him",  "two",    "has",     "look",
      "more",        "day",        "could",  "go",    "come", "did",    "number",  "sound",
      "no",          "most",       "people", "my",    "over", "know",   "water",   "than",
      "call",        "first",      "who",    "may",   "down", "side",   "been",    "now",
      "find",        "between",    "story",  "Tom",   "Lily", "London", "however", "government",
      "information", "development"};
  static const char* const kSuffixes[] = {"",  "",   "",    "",    "",  "",  "",  "", ",",
                                          ".", "'s", "n't", "'ll", "!", "?", ";", ":"};
  std::mt19937_64 rng(42);
  std::string text;
  bool sentence_start = true;
  while (text.size() < kTextBytes) {
    std::string word = kWords[rng() % std::size(kWords)];
    if (sentence_start) word[0] = static_cast<char>(word[0] & ~0x20);
    if (rng() % 50 == 0) word = std::to_string(rng() % 5000);
    const char* suffix = kSuffixes[rng() % std::size(kSuffixes)];
    text += word;
    text += suffix;
    sentence_start = suffix[0] == '.' || suffix[0] == '!' || suffix[0] == '?';
    text += (sentence_start && rng() % 6 == 0) ? "\n\n" : " ";
  }
  return text;
}

// Words of several scripts with emoji, digits and white space of several kinds.
std::string MixedScriptText() {
  static const char* const kFragments[] = {"hello",
                                           "World",
                                           "caf\u00e9",
                                           "na\u00efve",
                                           "\u00c9COLE",
                                           "\u041f\u0440\u0438\u0432\u0435\u0442",
                                           "\u043c\u0438\u0440",
                                           "\u0393\u03b5\u03b9\u03ac",
                                           "\u4f60\u597d\u4e16\u754c",
                                           "\u65e5\u672c\u8a9e",
                                           "\ud55c\uad6d\uc5b4",
                                           "\u0645\u0631\u062d\u0628\u0627",
                                           "\u0928\u092e\u0938\u094d\u0924\u0947",
                                           "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35",
                                           "\U0001F642",
                                           "\U0001F468\u200d\U0001F469\u200d\U0001F467",
                                           "\u0663\u0664\u0665",
                                           "\uff11\uff12",
                                           "2024",
                                           "\u00bd",
                                           "don't",
                                           "I'M",
                                           ",",
                                           ".",
                                           "\u3002",
                                           "\n",
                                           "\t",
                                           "\u3000"};
  std::mt19937_64 rng(7);
  std::string text;
  while (text.size() < kTextBytes) {
    text += kFragments[rng() % std::size(kFragments)];
    if (rng() % 3 != 0) text += ' ';
  }
  return text;
}

const std::string& Text(int which) {
  static const std::string* const kEnglish = new std::string(EnglishText());
  static const std::string* const kMixed = new std::string(MixedScriptText());
  return which == 0 ? *kEnglish : *kMixed;
}

// state.range(0): pattern; range(1): 0 = fast, 1 = regex; range(2): 0 = English, 1 = mixed.
void BM_Split(benchmark::State& state) {
  const auto pattern = static_cast<Pattern>(state.range(0));
  const bool reference = state.range(1) == 1;
  const std::string& text = Text(static_cast<int>(state.range(2)));
  const std::unique_ptr<PreTokenizer> pretokenizer =
      reference ? MakeRegexPreTokenizer(pattern) : MakePreTokenizer(pattern);
  // The regex reference is slow; a slice keeps its iterations short.
  const absl::string_view input =
      absl::string_view(text).substr(0, reference ? text.size() / 16 : text.size());
  for (auto _ : state) {
    size_t pieces = 0;
    pretokenizer->Split(input, [&](absl::string_view piece) { pieces += piece.size() != 0; });
    benchmark::DoNotOptimize(pieces);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * input.size()));
  state.SetLabel(std::string(PatternName(pattern)) + (reference ? " regex " : " fast ") +
                 (state.range(2) == 0 ? "english" : "mixed"));
}

BENCHMARK(BM_Split)
    ->ArgsProduct({{static_cast<int>(Pattern::kGpt2), static_cast<int>(Pattern::kCl100k),
                    static_cast<int>(Pattern::kO200k)},
                   {0, 1},
                   {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace bpeforge::internal
