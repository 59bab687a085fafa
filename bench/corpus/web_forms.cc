// The web model's non-prose forms: identifiers, numbers, URLs, e-mail addresses and code.
#include <cstdint>
#include <string_view>

#include "bench/corpus/web_model.h"

namespace bpeforge::internal::bench::web {

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

}  // namespace bpeforge::internal::bench::web
