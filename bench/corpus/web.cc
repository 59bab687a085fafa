#include "bench/corpus/web.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bench/corpus/web_model.h"

namespace bpeforge::internal::bench {
namespace web {
namespace {

// Zipf weights of the head ranks, then the mass of 1/r over the tail [kHead, kVocab).
std::vector<double> HeadWeights(uint32_t head, double log_tail_ratio) {
  std::vector<double> weights = ZipfWeights(head, 1.0, 2.7);
  weights.push_back(log_tail_ratio);
  return weights;
}

}  // namespace

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
      head_dist_(HeadWeights(kHead, log_tail_ratio_)),
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
  for (uint64_t r = 0; r < kHead; ++r) {
    Out w(32);
    HeadWord(r, w);
    head_words_.push_back(w.Take());
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

}  // namespace web

void WriteWebDocument(Rng& rng, Out& out) {
  static const auto* model = new web::WebModel();
  model->Document(rng, out);
}

}  // namespace bpeforge::internal::bench
