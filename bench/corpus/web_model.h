// The OpenWebText-like document model behind WriteWebDocument (web.h): its word
// distributions and the generators of each kind of text. Its parts live in web.cc (words,
// prose, documents) and web_forms.cc (identifiers, numbers, URLs, e-mail addresses, code).
#ifndef BPEFORGE_BENCH_CORPUS_WEB_MODEL_H_
#define BPEFORGE_BENCH_CORPUS_WEB_MODEL_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/corpus/sampling.h"
#include "bench/corpus/text_buffer.h"

namespace bpeforge::internal::bench::web {

// The most frequent English words, so the head of the distribution looks like English.
inline constexpr std::string_view kCommonEnglish[] = {
    "the",       "of",          "and",     "to",        "a",          "in",        "is",
    "that",      "for",         "it",      "as",        "was",        "with",      "be",
    "by",        "on",          "not",     "he",        "I",          "this",      "are",
    "or",        "his",         "from",    "at",        "which",      "but",       "have",
    "an",        "had",         "they",    "you",       "were",       "their",     "one",
    "all",       "we",          "can",     "her",       "has",        "there",     "been",
    "if",        "more",        "when",    "will",      "would",      "who",       "so",
    "no",        "she",         "other",   "its",       "may",        "these",     "about",
    "them",      "than",        "some",    "time",      "into",       "only",      "do",
    "could",     "new",         "also",    "two",       "any",        "what",      "first",
    "after",     "most",        "like",    "over",      "such",       "our",       "year",
    "people",    "said",        "just",    "many",      "those",      "years",     "then",
    "out",       "up",          "get",     "make",      "us",         "how",       "state",
    "because",   "world",       "where",   "much",      "government", "it's",      "don't",
    "I'm",       "can't",       "didn't",  "doesn't",   "isn't",      "won't",     "we're",
    "they're",   "you're",      "that's",  "there's",   "I've",       "company",   "week",
    "said",      "police",      "game",    "team",      "season",     "market",    "report",
    "president", "city",        "school",  "percent",   "million",    "data",      "health",
    "water",     "money",       "public",  "power",     "system",     "group",     "work",
    "life",      "way",         "day",     "week",      "news",       "law",       "court",
    "country",   "market",      "service", "business",  "each",       "made",      "well",
    "before",    "through",     "back",    "still",     "even",       "here",      "between",
    "both",      "under",       "last",    "never",     "while",      "being",     "same",
    "another",   "know",        "take",    "see",       "come",       "think",     "look",
    "want",      "give",        "use",     "find",      "tell",       "ask",       "seem",
    "feel",      "try",         "leave",   "call",      "good",       "great",     "little",
    "own",       "old",         "right",   "big",       "high",       "different", "small",
    "large",     "next",        "early",   "young",     "important",  "few",       "long",
    "part",      "place",       "case",    "point",     "number",     "home",      "water",
    "room",      "mother",      "area",    "family",    "story",      "fact",      "month",
    "lot",       "study",       "book",    "eye",       "job",        "word",      "issue",
    "side",      "kind",        "head",    "house",     "friend",     "hour",      "game",
    "line",      "end",         "member",  "car",       "city",       "name",      "idea",
    "body",      "information", "back",    "parent",    "face",       "others",    "level",
    "office",    "door",        "health",  "person",    "art",        "war",       "history",
    "party",     "result",      "change",  "morning",   "reason",     "research",  "girl",
    "guy",       "moment",      "air",     "teacher",   "force",      "education", "should",
    "very",      "did",         "does",    "now",       "get",        "going",     "really",
    "need",      "made",        "around",  "however",   "against",    "during",    "without",
    "across",    "among",       "within",  "including", "although",   "since",     "until",
    "today",     "later",       "already", "often",     "always",     "again",     "why",
    "each",      "per",         "via",     "told",      "says",       "according", "added",
    "used",      "called",      "million", "billion",   "percent",    "online",    "video",
    "free",      "social",      "media",   "season",    "players",    "support",   "president",
    "campaign",  "election",    "former",  "police"};

class WebModel {
 public:
  WebModel();
  void Document(Rng& rng, Out& out) const;

 private:
  // Ranks below kHead are precomputed strings; the rest of the vocabulary is built on the
  // fly from the rank, so a vocabulary of millions of words costs no memory.
  static constexpr uint32_t kHead = 1 << 13;
  static constexpr double kVocab = 1.5e6;

  void SynthWord(uint64_t rank, Out& out) const;
  void HeadWord(uint64_t rank, Out& out) const {
    if (rank < std::size(kCommonEnglish)) {
      out.Append(kCommonEnglish[rank]);
    } else {
      SynthWord(rank, out);
    }
  }
  void Word(Rng& rng, Out& out) const {
    // The alias table has one entry per head rank and one (kHead) for the whole tail. Its
    // random number was drawn at the previous word (`lookahead`: it once let the entry be
    // prefetched), and is still, so that the corpus of a seed stays the same.
    const uint64_t r = rng.lookahead;
    rng.lookahead = rng.Next();
    const auto i = static_cast<uint32_t>(((r >> 32) * (kHead + 1)) >> 32);
    const uint32_t rank =
        static_cast<uint32_t>(r) < head_dist_.threshold(i) ? i : head_dist_.alias(i);
    if (rank < kHead) {
      out.Append(head_words_[rank]);
    } else {
      // Continuous Zipf (s = 1) over [kHead, kVocab): inverse CDF is kHead * (kVocab/kHead)^u.
      SynthWord(static_cast<uint64_t>(kHead * std::exp(rng.Unit() * log_tail_ratio_)), out);
    }
  }
  void Identifier(Rng& rng, Out& out) const;
  void NumberForm(Rng& rng, Out& out) const;
  void Url(Rng& rng, Out& out) const;
  void Email(Rng& rng, Out& out) const;
  void Sentence(Rng& rng, Out& out) const;
  void Prose(Rng& rng, Out& out) const;
  void List(Rng& rng, Out& out) const;
  void Code(Rng& rng, Out& out) const;
  void Foreign(Rng& rng, Out& out) const;
  void Emoji(Rng& rng, Out& out) const {
    out.Utf8(emoji_[emoji_dist_.Sample(rng)]);
    if (rng.Below(4) == 0) out.Utf8(emoji_[emoji_dist_.Sample(rng)]);
  }

  SyllableWords ascii_, accented_, cyrillic_, greek_;
  double log_tail_ratio_;
  AliasTable head_dist_;  // kHead ranks, then the tail
  std::vector<std::string> head_words_;
  std::vector<char32_t> arabic_letters_;
  std::vector<char32_t> cjk_;
  AliasTable cjk_dist_;
  AliasTable foreign_dist_;  // word ranks in the other scripts
  std::vector<char32_t> emoji_;
  AliasTable emoji_dist_;
  std::vector<std::string_view> tlds_, months_, units_, keywords_;
};

}  // namespace bpeforge::internal::bench::web

#endif  // BPEFORGE_BENCH_CORPUS_WEB_MODEL_H_
