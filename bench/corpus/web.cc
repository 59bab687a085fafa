#include "bench/corpus/web.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bpeforge::internal::bench {
namespace {

// The most frequent English words, so the head of the distribution looks like English.
constexpr std::string_view kCommonEnglish[] = {
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
  // fly from the rank, so a vocabulary of millions of words costs no memory and no cache
  // misses.
  static constexpr uint32_t kHead = 1 << 13;
  static constexpr double kVocab = 1.5e6;

  //
  // Sampling a word is the hot path, so the alias table of the head and the words it can
  // return live together: entry i is 32 bytes holding the threshold, the alias, and the
  // bytes of both words i and alias(i) when they fit in kInline bytes. One cache line read
  // gives the word; only the tail and long words take the slow path.
  static constexpr size_t kEntry = 32;
  static constexpr size_t kInline = 11;
  static constexpr uint8_t kLongWord = 0xFE;  // build it from the rank
  static constexpr uint8_t kTailWord = 0xFF;  // draw a rank from the tail

  void SynthWord(uint64_t rank, Out& out) const;
  void HeadWord(uint64_t rank, Out& out) const {
    if (rank < std::size(kCommonEnglish)) {
      out.Append(kCommonEnglish[rank]);
    } else {
      SynthWord(rank, out);
    }
  }
  static uint32_t HeadIndex(uint64_t r) {
    return static_cast<uint32_t>(((r >> 32) * kHeadEntries) >> 32);
  }
  void Word(Rng& rng, Out& out) const {
    // The random number for the next word is drawn now and its table entry prefetched, so
    // the (L2) load overlaps with writing this word instead of stalling the next one.
    const uint64_t r = rng.lookahead;
    rng.lookahead = rng.Next();
    __builtin_prefetch(head_.data() + HeadIndex(rng.lookahead) * kEntry);
    const uint32_t i = HeadIndex(r);
    const char* e = head_.data() + i * kEntry;
    uint32_t threshold, alias;
    std::memcpy(&threshold, e, 4);
    std::memcpy(&alias, e + 4, 4);
    const bool keep = static_cast<uint32_t>(r) < threshold;
    const size_t k = keep ? 0 : 1;
    const auto len = static_cast<uint8_t>(e[8 + k]);
    if (len <= kInline) {
      out.AppendPadded(std::string_view(e + 10 + k * kInline, len));
    } else if (len == kLongWord) {
      HeadWord(keep ? i : alias, out);
    } else {
      // Continuous Zipf (s = 1) over [kHead, kVocab): inverse CDF is kHead * (kVocab/kHead)^u.
      SynthWord(static_cast<uint64_t>(kHead * std::exp(rng.Unit() * log_tail_ratio_)), out);
    }
  }
  static constexpr uint32_t kHeadEntries = kHead + 1;  // ranks, and one for the tail
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
  std::string head_;  // kHeadEntries entries of kEntry bytes, then padding
  double log_tail_ratio_;
  std::vector<char32_t> arabic_letters_;
  std::vector<char32_t> cjk_;
  AliasTable cjk_dist_;
  AliasTable foreign_dist_;  // word ranks in the other scripts
  std::vector<char32_t> emoji_;
  AliasTable emoji_dist_;
  std::vector<std::string_view> tlds_, months_, units_, keywords_;
};

WebModel::WebModel()
    : ascii_(AsciiOnsets(), AsciiNuclei(), AsciiCodas()),
      accented_({"b", "d", "f", "g", "l", "m", "n", "p", "r", "s", "t", "v", "ñ", "ç", "ß"},
                {"é", "è", "ê", "ë", "ü", "ö", "ä", "á", "í", "ó", "ú", "å", "ø", "a", "e", "o"},
                {"", "n", "r", "s", "t", "l"}),
      cyrillic_({"б", "в", "г", "д", "ж", "з", "к", "л", "м", "н", "п",
                 "р", "с", "т", "ф", "х", "ч", "ш", "щ", "ц", ""},
                {"а", "е", "и", "о", "у", "ы", "я", "ю", "ё", "э"},
                {"", "", "н", "й", "в", "т", "р", "сть", "л", "м", "к"}),
      greek_({"β", "γ", "δ", "θ", "κ", "λ", "μ", "ν", "π", "ρ", "σ", "τ", "φ", "χ", "ξ", ""},
             {"α", "ε", "η", "ι", "ο", "υ", "ω", "ά", "έ", "ί", "ό", "ή", "ύ"},
             {"", "", "ς", "ν", "ρ", "σ"}),
      log_tail_ratio_(std::log(kVocab / kHead)),
      cjk_dist_(ZipfWeights(3000, 1.0, 5.0)),
      foreign_dist_(ZipfWeights(200000, 1.0, 3.0)),
      emoji_({0x1F600, 0x1F602, 0x1F923, 0x1F60A, 0x1F60D, 0x1F64F, 0x1F44D, 0x1F525,
              0x1F389, 0x2764,  0x2728,  0x1F4AF, 0x1F680, 0x1F914, 0x1F62D, 0x1F60E,
              0x1F4A9, 0x1F440, 0x1F4F8, 0x1F3B5, 0x1F31F, 0x2705,  0x274C,  0x26A1,
              0x1F308, 0x1F355, 0x1F1FA, 0x1F44F, 0x1F622, 0x1F631}),
      emoji_dist_(ZipfWeights(30, 1.0, 1.0)),
      tlds_({"com", "org", "net", "io", "co", "uk", "de", "ru", "edu", "gov", "info", "fr"}),
      months_({"January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December"}),
      units_({"km", "kg", "mg", "GHz", "MB", "GB", "mm", "cm", "m", "lbs", "ft", "mph", "px", "ms",
              "K", "x"}),
      keywords_({"return", "if",   "for",    "while",  "const", "let",   "var",    "def",   "class",
                 "import", "from", "self",   "this",   "null",  "None",  "true",   "false", "new",
                 "int",    "void", "static", "public", "async", "await", "struct", "fn"}) {
  std::vector<double> weights = ZipfWeights(kHead, 1.0, 2.7);
  weights.push_back(log_tail_ratio_);  // the mass of 1/r over [kHead, kVocab)
  const AliasTable dist(weights);
  std::vector<std::string> words;
  for (uint64_t r = 0; r < kHead; ++r) {
    Out w(32);
    HeadWord(r, w);
    words.push_back(w.Take());
  }
  head_.assign(kHeadEntries * kEntry + kEntry, '\0');
  for (uint32_t i = 0; i < kHeadEntries; ++i) {
    char* e = head_.data() + i * kEntry;
    const uint32_t threshold = dist.threshold(i);
    const uint32_t alias = dist.alias(i);
    std::memcpy(e, &threshold, 4);
    std::memcpy(e + 4, &alias, 4);
    const uint32_t ranks[2] = {i, alias};
    for (size_t k = 0; k < 2; ++k) {
      if (ranks[k] == kHead) {
        e[8 + k] = static_cast<char>(kTailWord);
      } else if (words[ranks[k]].size() > kInline) {
        e[8 + k] = static_cast<char>(kLongWord);
      } else {
        e[8 + k] = static_cast<char>(words[ranks[k]].size());
        std::memcpy(e + 10 + k * kInline, words[ranks[k]].data(), words[ranks[k]].size());
      }
    }
  }
  for (char32_t c = 0x0628; c <= 0x064A; ++c) {
    if (c != 0x063B && (c < 0x063B || c > 0x063F) && c != 0x0640) arabic_letters_.push_back(c);
  }
  arabic_letters_.push_back(0x0627);
  // A fixed pseudo-random set of common-looking ideographs from the CJK Unified block.
  for (uint64_t i = 0; i < cjk_dist_.size(); ++i) {
    cjk_.push_back(static_cast<char32_t>(0x4E00 + Mix64(i + 0xC7C) % (0x9FA5 - 0x4E00)));
  }
}

void WebModel::SynthWord(uint64_t rank, Out& out) const {
  const uint64_t h = Mix64(rank * 0x9E3779B97F4A7C15ULL + 0xB0B);
  // Frequent words are short, rare ones long, as in natural language.
  const int syllables = rank < 2000    ? 1
                        : rank < 60000 ? 1 + static_cast<int>(h >> 63)
                                       : 2 + static_cast<int>((h >> 62) == 0);
  const size_t start = out.size();
  if (((h >> 40) & 31) == 0) {  // about 3%: a word with diacritics
    ascii_.Append(h, 1, out);
    accented_.Append(h >> 20, syllables - 1 > 0 ? syllables - 1 : 1, out);
  } else {
    ascii_.Append(h, syllables, out);
  }
  const uint32_t kind = (h >> 48) & 63;
  if (kind < 7) {
    out.CapitalizeAt(start);  // a proper name: always capitalised
  } else if (kind == 7 && rank >= 2000) {
    out.UpperFrom(start);  // an acronym-like word
  }
}

void WebModel::Identifier(Rng& rng, Out& out) const {
  switch (rng.Below(4)) {
    case 0: {  // snake_case
      Word(rng, out);
      out.Push('_');
      Word(rng, out);
      break;
    }
    case 1: {  // camelCase: one pre-token, which gives the long tail of identifiers
      Word(rng, out);
      const size_t second = out.size();
      Word(rng, out);
      out.CapitalizeAt(second);
      break;
    }
    case 2:
      out.Append(keywords_[rng.Below(static_cast<uint32_t>(keywords_.size()))]);
      return;
    default:
      Word(rng, out);
      if (rng.Below(4) == 0) out.Number(rng.Below(10));
      break;
  }
}

void WebModel::NumberForm(Rng& rng, Out& out) const {
  switch (rng.Below(14)) {
    case 0:
    case 1:  // a year
      out.Number(rng.Range(1900, 2029));
      break;
    case 2:  // a small count
      out.Number(rng.Below(101));
      break;
    case 3:  // a price
      out.Append(rng.Below(5) == 0 ? "€" : "$");
      if (rng.Below(2) == 0) {
        out.Number(rng.Below(1000));
        out.Push('.');
        out.Padded(rng.Below(100), 2);
      } else {
        out.Grouped(rng.Below(5000000));
      }
      break;
    case 4:  // a percentage
      out.Number(rng.Below(100));
      if (rng.Below(2) == 0) {
        out.Push('.');
        out.Number(rng.Below(10));
      }
      out.Push('%');
      break;
    case 5:  // a decimal
      out.Number(rng.Below(rng.Below(2) == 0 ? 10 : 1000));
      out.Push('.');
      out.Number(rng.Below(10000));
      break;
    case 6:  // a big number
      out.Grouped(rng.Below(100000000));
      break;
    case 7:  // a time of day
      out.Number(rng.Range(1, 12));
      out.Push(':');
      out.Padded(rng.Below(60), 2);
      out.Append(rng.Below(2) == 0 ? " a.m." : " p.m.");
      break;
    case 8:  // a date
      if (rng.Below(2) == 0) {
        out.Number(rng.Range(1990, 2025));
        out.Push('-');
        out.Padded(rng.Range(1, 12), 2);
        out.Push('-');
        out.Padded(rng.Range(1, 28), 2);
      } else {
        out.Append(months_[rng.Below(12)]);
        out.Push(' ');
        out.Number(rng.Range(1, 31));
        out.Append(", ");
        out.Number(rng.Range(1990, 2025));
      }
      break;
    case 9:  // a phone number
      out.Push('(');
      out.Padded(rng.Range(200, 999), 3);
      out.Append(") ");
      out.Padded(rng.Below(1000), 3);
      out.Push('-');
      out.Padded(rng.Below(10000), 4);
      break;
    case 10: {  // an ordinal
      const uint32_t n = rng.Range(1, 99);
      out.Number(n);
      const uint32_t last = n % 10;
      out.Append(n / 10 == 1 ? "th"
                 : last == 1 ? "st"
                 : last == 2 ? "nd"
                 : last == 3 ? "rd"
                             : "th");
      break;
    }
    case 11:  // a version
      out.Push('v');
      out.Number(rng.Below(10));
      out.Push('.');
      out.Number(rng.Below(20));
      out.Push('.');
      out.Number(rng.Below(10));
      break;
    case 12:  // a measurement
      out.Number(rng.Below(1000));
      if (rng.Below(3) == 0) {
        out.Push('.');
        out.Number(rng.Below(10));
      }
      out.Append(units_[rng.Below(static_cast<uint32_t>(units_.size()))]);
      break;
    default:  // an id
      out.Push('#');
      out.Number(rng.Below(1000000));
      break;
  }
}

void WebModel::Url(Rng& rng, Out& out) const {
  out.Append(rng.Below(4) == 0 ? "http://" : "https://");
  if (rng.Below(2) == 0) out.Append("www.");
  Word(rng, out);
  out.Push('.');
  out.Append(tlds_[rng.Below(static_cast<uint32_t>(tlds_.size()))]);
  for (uint32_t i = rng.Below(4); i > 0; --i) {
    out.Push('/');
    Word(rng, out);
    if (rng.Below(2) == 0) {
      out.Push('-');
      Word(rng, out);
    }
  }
  if (rng.Below(5) == 0) {
    out.Append("?id=");
    out.Number(rng.Next() % 100000000);
  } else if (rng.Below(5) == 0) {
    out.Append(".html");
  }
}

void WebModel::Email(Rng& rng, Out& out) const {
  Word(rng, out);
  if (rng.Below(2) == 0) {
    out.Push('.');
    Word(rng, out);
  }
  if (rng.Below(3) == 0) out.Number(rng.Below(100));
  out.Push('@');
  Word(rng, out);
  out.Push('.');
  out.Append(tlds_[rng.Below(static_cast<uint32_t>(tlds_.size()))]);
}

void WebModel::Sentence(Rng& rng, Out& out) const {
  const uint32_t words = rng.Range(3, 28);
  const size_t start = out.size();
  for (uint32_t i = 0; i < words; ++i) {
    if (i > 0) out.Push(' ');
    const uint32_t roll = rng.Below(1000);
    if (roll < 35) {
      NumberForm(rng, out);
    } else if (roll < 37) {
      Url(rng, out);
    } else if (roll < 38) {
      Email(rng, out);
    } else if (roll < 46) {
      const bool paren = rng.Below(2) == 0;
      out.Push(paren ? '(' : '"');
      Word(rng, out);
      if (rng.Below(2) == 0) {
        out.Push(' ');
        Word(rng, out);
      }
      out.Push(paren ? ')' : '"');
    } else if (roll < 54) {
      Word(rng, out);
      out.Push('-');
      Word(rng, out);
    } else if (roll < 62) {
      Word(rng, out);
      out.Append(rng.Below(4) == 0 ? "’s" : "'s");
    } else if (roll < 63) {
      const size_t w = out.size();
      Word(rng, out);
      out.UpperFrom(w);
    } else {
      Word(rng, out);
      if (rng.Below(14) == 0 && i + 1 < words) out.Push(rng.Below(6) == 0 ? ';' : ',');
    }
  }
  out.CapitalizeAt(start);
  const uint32_t end = rng.Below(100);
  out.Append(end < 84 ? "." : end < 90 ? "?" : end < 94 ? "!" : end < 97 ? ":" : "...");
  if (rng.Below(150) == 0) {
    out.Push(' ');
    Emoji(rng, out);
  }
}

void WebModel::Prose(Rng& rng, Out& out) const {
  for (uint32_t i = rng.Range(1, 7); i > 0; --i) {
    Sentence(rng, out);
    if (i > 1) out.Push(' ');
  }
}

void WebModel::List(Rng& rng, Out& out) const {
  const uint32_t style = rng.Below(3);
  const uint32_t items = rng.Range(2, 8);
  for (uint32_t i = 1; i <= items; ++i) {
    if (style == 0) {
      out.Append("- ");
    } else if (style == 1) {
      out.Append("* ");
    } else {
      out.Number(i);
      out.Append(". ");
    }
    const size_t start = out.size();
    for (uint32_t w = rng.Range(1, 8); w > 0; --w) {
      Word(rng, out);
      if (w > 1) out.Push(' ');
    }
    out.CapitalizeAt(start);
    if (i < items) out.Push('\n');
  }
}

void WebModel::Code(Rng& rng, Out& out) const {
  const bool fenced = rng.Below(2) == 0;
  if (fenced) out.Append(rng.Below(2) == 0 ? "```\n" : "```python\n");
  uint32_t indent = 0;
  for (uint32_t lines = rng.Range(2, 12); lines > 0; --lines) {
    for (uint32_t i = 0; i < indent; ++i) out.Append("    ");
    switch (rng.Below(8)) {
      case 0:
        Identifier(rng, out);
        out.Append(" = ");
        Identifier(rng, out);
        out.Push('(');
        Identifier(rng, out);
        out.Append(", ");
        out.Number(rng.Below(1000));
        out.Append(");");
        break;
      case 1:
        out.Append("if (");
        Identifier(rng, out);
        out.Append(rng.Below(2) == 0 ? " > " : " == ");
        out.Number(rng.Below(100));
        out.Append(") {");
        if (indent < 3) ++indent;
        break;
      case 2:
        out.Append("return ");
        Identifier(rng, out);
        out.Push('.');
        Identifier(rng, out);
        out.Append("();");
        if (indent > 0) --indent;
        break;
      case 3:
        out.Append("def ");
        Identifier(rng, out);
        out.Append("(self, ");
        Identifier(rng, out);
        out.Append("):");
        if (indent < 3) ++indent;
        break;
      case 4:
        out.Append("for i in range(");
        out.Number(rng.Below(256));
        out.Append("):");
        if (indent < 3) ++indent;
        break;
      case 5:
        out.Append("const ");
        Identifier(rng, out);
        out.Append(" = await ");
        Identifier(rng, out);
        out.Append(".get(\"/");
        Word(rng, out);
        out.Append("\");");
        break;
      case 6:
        out.Append("<div class=\"");
        Word(rng, out);
        out.Push('-');
        Word(rng, out);
        out.Append("\">");
        break;
      default:
        out.Append(rng.Below(2) == 0 ? "// " : "# ");
        for (uint32_t w = rng.Range(2, 8); w > 0; --w) {
          Word(rng, out);
          if (w > 1) out.Push(' ');
        }
        break;
    }
    out.Push('\n');
  }
  if (fenced) out.Append("```");
}

void WebModel::Foreign(Rng& rng, Out& out) const {
  const uint32_t script = rng.Below(20);
  if (script < 5) {  // CJK: no spaces, so every clause is one pre-token
    for (uint32_t clauses = rng.Range(1, 6); clauses > 0; --clauses) {
      for (uint32_t n = rng.Range(4, 24); n > 0; --n) out.Utf8(cjk_[cjk_dist_.Sample(rng)]);
      out.Append(clauses > 1 && rng.Below(2) == 0 ? "，" : "。");
    }
    return;
  }
  for (uint32_t sentences = rng.Range(1, 5); sentences > 0; --sentences) {
    for (uint32_t words = rng.Range(3, 16); words > 0; --words) {
      const uint64_t h = Mix64(foreign_dist_.Sample(rng) * 31 + script);
      if (script < 12) {
        cyrillic_.Append(h, 1 + static_cast<int>(h >> 62), out);
      } else if (script < 16) {
        greek_.Append(h, 1 + static_cast<int>(h >> 62), out);
      } else if (script < 19) {
        for (uint32_t n = 2 + static_cast<uint32_t>(h >> 61); n > 0; --n) {
          out.Utf8(arabic_letters_[(h >> (n * 5)) % arabic_letters_.size()]);
        }
      } else {
        Word(rng, out);
        out.Push(' ');
        Emoji(rng, out);
      }
      if (words > 1) out.Push(' ');
    }
    out.Append(script >= 16 && script < 19 ? "۔ " : ". ");
  }
}

void WebModel::Document(Rng& rng, Out& out) const {
  if (rng.Below(3) == 0) {  // a title in Title Case
    for (uint32_t w = rng.Range(2, 9); w > 0; --w) {
      const size_t start = out.size();
      Word(rng, out);
      out.CapitalizeAt(start);
      if (w > 1) out.Push(' ');
    }
    out.Append("\n\n");
  }
  for (uint32_t p = rng.Range(1, 16); p > 0; --p) {
    const uint32_t kind = rng.Below(100);
    if (kind < 88) {
      Prose(rng, out);
    } else if (kind < 93) {
      List(rng, out);
    } else if (kind < 96) {
      Code(rng, out);
    } else {
      Foreign(rng, out);
    }
    if (p > 1) out.Append(rng.Below(8) == 0 ? "\n" : "\n\n");
  }
  out.Append(kEndOfText);
}

}  // namespace

void WriteWebDocument(Rng& rng, Out& out) {
  static const auto* model = new WebModel();
  model->Document(rng, out);
}

}  // namespace bpeforge::internal::bench
