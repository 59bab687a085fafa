// report.html: a report as one page that needs nothing else (no script, no font, nothing
// fetched), its charts drawn as inline SVG with axes and labels, then the tables. Written from
// report.json alone, so that a page can be made again from a saved report.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "api/report_parts.h"
#include "bpeforge/bpeforge.h"
#include "core/internal/atomic_file.h"

namespace bpeforge {
namespace {

using Json = nlohmann::json;

constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                   "#9467bd", "#8c564b", "#e377c2", "#17becf"};
const char* ColorOf(size_t i) { return kColors[i % std::size(kColors)]; }

std::string Escape(absl::string_view text) {
  return absl::StrReplaceAll(text,
                             {{"&", "&amp;"}, {"<", "&lt;"}, {">", "&gt;"}, {"\"", "&quot;"}});
}

// A token as it reads in a table: white space made visible.
std::string TokenCell(const std::string& token) {
  return absl::StrCat("<code>",
                      Escape(absl::StrReplaceAll(token, {{" ", "\xE2\x90\xA3"},
                                                         {"\n", "\xE2\x86\xB5"},
                                                         {"\t", "\xE2\x86\x92"},
                                                         {"\r", "\xE2\x90\x8D"}})),
                      "</code>");
}

std::string Number(double v, int digits = 2) { return absl::StrFormat("%.*f", digits, v); }
// 1234567 as "1,234,567".
std::string Count(uint64_t v) {
  const std::string digits = absl::StrCat(v);
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s.push_back(',');
    s.push_back(digits[i]);
  }
  return s;
}
double ValueOf(const Json& v) { return v.is_number() ? v.get<double>() : 0.0; }

// Tick values for an axis from `low` to `high`: steps of 1, 2 or 5 times a power of ten.
std::vector<double> Ticks(double low, double high) {
  const double span = std::max(high - low, 1e-9);
  double step = std::pow(10.0, std::floor(std::log10(span / 5)));
  for (const double m : {2.0, 5.0, 10.0}) {
    if (span / step <= 6) break;
    step = std::pow(10.0, std::floor(std::log10(span / 5))) * m;
  }
  std::vector<double> ticks;
  for (double v = std::ceil(low / step) * step; v <= high + step * 1e-6; v += step) {
    ticks.push_back(v);
  }
  return ticks;
}

// The frame of a chart: its plot area, the value axis on the left with grid lines, the labels.
class Chart {
 public:
  static constexpr double kWidth = 760, kHeight = 350, kLeft = 64, kRight = 32, kTop = 36,
                          kBottom = 78;
  Chart(std::string id, std::string title, double y_max, std::string y_label)
      : id_(std::move(id)), title_(std::move(title)), y_max_(y_max > 0 ? y_max * 1.08 : 1) {
    svg_ = absl::StrFormat(
        "<svg id=\"%s\" class=\"chart\" role=\"img\" aria-label=\"%s\" width=\"%.0f\" "
        "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">\n",
        id_, Escape(title_), kWidth, kHeight, kWidth, kHeight);
    for (const double v : Ticks(0, y_max_)) {
      absl::StrAppendFormat(&svg_,
                            "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                            "y2=\"%.1f\"/><text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
                            "text-anchor=\"end\">%s</text>\n",
                            kLeft, kWidth - kRight, Y(v), Y(v), kLeft - 6, Y(v) + 4,
                            Number(v, v < 10 ? 1 : 0));
    }
    absl::StrAppendFormat(&svg_,
                          "<text class=\"label\" transform=\"translate(16 %.1f) rotate(-90)\" "
                          "text-anchor=\"middle\">%s</text>\n",
                          kTop + PlotHeight() / 2, Escape(y_label));
  }
  static double PlotWidth() { return kWidth - kLeft - kRight; }
  static double PlotHeight() { return kHeight - kTop - kBottom; }
  double Y(double v) const { return kTop + PlotHeight() * (1 - v / y_max_); }
  void Add(absl::string_view element) { absl::StrAppend(&svg_, element, "\n"); }
  void XLabel(absl::string_view label) {
    absl::StrAppendFormat(&svg_,
                          "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" "
                          "text-anchor=\"middle\">%s</text>\n",
                          kLeft + PlotWidth() / 2, kHeight - 6, Escape(label));
  }
  // The series' names and colors in a row above the plot.
  void Legend(const std::vector<std::string>& names) {
    double x = kLeft;
    for (size_t i = 0; i < names.size(); ++i) {
      absl::StrAppendFormat(&svg_,
                            "<rect x=\"%.1f\" y=\"10\" width=\"10\" height=\"10\" "
                            "fill=\"%s\"/><text class=\"legend\" x=\"%.1f\" y=\"19\">%s"
                            "</text>\n",
                            x, ColorOf(i), x + 14, Escape(names[i]));
      x += 30 + 7.0 * names[i].size();  // about the width of the name
    }
  }
  std::string Finish() {
    absl::StrAppendFormat(&svg_,
                          "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
                          "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
                          "y2=\"%.1f\"/>\n</svg>\n",
                          kLeft, kWidth - kRight, Y(0), Y(0), kLeft, kLeft, kTop, Y(0));
    return absl::StrCat("<figure><figcaption>", Escape(title_), "</figcaption>\n", svg_,
                        "</figure>\n");
  }

 private:
  std::string id_, title_;
  double y_max_;
  std::string svg_;
};

// Bars of each series (tokenizer) side by side for each category.
std::string BarChart(const std::string& id, const std::string& title,
                     const std::vector<std::string>& categories,
                     const std::vector<std::string>& series,
                     const std::vector<std::vector<double>>& values,  // [series][category]
                     const std::string& y_label, const std::string& x_label) {
  double y_max = 0;
  for (const std::vector<double>& v : values) {
    for (double x : v) y_max = std::max(y_max, x);
  }
  Chart chart(id, title, y_max, y_label);
  const double slot = Chart::PlotWidth() / std::max<size_t>(categories.size(), 1);
  const double bar = std::min(28.0, slot * 0.8 / std::max<size_t>(series.size(), 1));
  for (size_t c = 0; c < categories.size(); ++c) {
    const double x0 = Chart::kLeft + slot * c + (slot - bar * series.size()) / 2;
    for (size_t s = 0; s < series.size(); ++s) {
      const double v = values[s][c];
      chart.Add(absl::StrFormat(
          "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
          "fill=\"%s\"><title>%s, %s: %s</title></rect>",
          x0 + bar * s, chart.Y(v), std::max(bar - 1, 1.0), chart.Y(0) - chart.Y(v), ColorOf(s),
          Escape(series[s]), Escape(categories[c]), Number(v)));
    }
    const double x = Chart::kLeft + slot * (c + 0.5);
    chart.Add(absl::StrFormat(
        "<text class=\"tick\" transform=\"translate(%.1f %.1f) rotate(%d)\" "
        "text-anchor=\"%s\">%s</text>",
        x, chart.Y(0) + 14, categories.size() > 8 ? -30 : 0,
        categories.size() > 8 ? "end" : "middle",
        Escape(categories[c].size() > 24 ? categories[c].substr(0, 22) + "\xE2\x80\xA6"
                                         : categories[c])));
  }
  chart.XLabel(x_label);
  chart.Legend(series);
  return chart.Finish();
}

// Bars per JSON Lines field and group of records (report.json's `sources`).
std::string SourcesChart(const Json& report, const Json& tokenizers,
                         const std::vector<std::string>& names) {
  std::vector<std::string> labels;
  for (const Json& source : report.at("sources")) {
    std::string label = absl::StrCat(
        std::filesystem::path(source.at("path").get<std::string>()).filename().string(), " ",
        source.at("field").get<std::string>());
    if (source.contains("group")) {
      absl::StrAppend(
          &label, " ",
          source.at("group").is_null() ? "(none)" : source.at("group").get<std::string>());
    }
    labels.push_back(std::move(label));
  }
  std::vector<std::vector<double>> values;
  for (const Json& t : tokenizers) {
    std::vector<double> v;
    for (const Json& source : t.at("sources")) v.push_back(ValueOf(source.at("bytes_per_token")));
    values.push_back(std::move(v));
  }
  return BarChart("chart-sources", "Bytes per token by JSON Lines field and source", labels, names,
                  values, "bytes per token", "file, field and source");
}

// Bytes per token against vocabulary size (a log scale), a line per tokenizer.
std::string CurveChart(const Json& tokenizers) {
  double x_min = 1e18, x_max = 0, y_max = 0;
  std::vector<std::string> names;
  for (const Json& t : tokenizers) {
    names.push_back(t.at("name").get<std::string>());
    for (const Json& p : t.at("curve")) {
      x_min = std::min(x_min, ValueOf(p.at("vocab_size")));
      x_max = std::max(x_max, ValueOf(p.at("vocab_size")));
      y_max = std::max(y_max, ValueOf(p.at("bytes_per_token")));
    }
  }
  x_max = std::max(x_max, x_min * 2);
  Chart chart("chart-curve", "Bytes per token on this text by vocabulary size", y_max,
              "bytes per token");
  const double lx_min = std::log10(x_min), lx_max = std::log10(x_max);
  auto x_of = [&](double v) {
    return Chart::kLeft + Chart::PlotWidth() * (std::log10(v) - lx_min) / (lx_max - lx_min);
  };
  for (double decade = std::pow(10.0, std::floor(lx_min)); decade <= x_max; decade *= 10) {
    for (const double m : {1.0, 2.0, 5.0}) {
      const double v = decade * m;
      if (v < x_min || v > x_max) continue;
      chart.Add(absl::StrFormat(
          "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
          "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>",
          x_of(v), x_of(v), Chart::kTop, chart.Y(0), x_of(v), chart.Y(0) + 16, Count(v)));
    }
  }
  for (size_t i = 0; i < tokenizers.size(); ++i) {
    std::string points, dots;
    for (const Json& p : tokenizers[i].at("curve")) {
      const double x = x_of(ValueOf(p.at("vocab_size")));
      const double y = chart.Y(ValueOf(p.at("bytes_per_token")));
      absl::StrAppendFormat(&points, "%.1f,%.1f ", x, y);
      absl::StrAppendFormat(&dots,
                            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"><title>%s: %s "
                            "bytes per token at %s</title></circle>",
                            x, y, ColorOf(i), Escape(names[i]),
                            Number(ValueOf(p.at("bytes_per_token"))),
                            Count(p.at("vocab_size").get<uint64_t>()));
    }
    chart.Add(absl::StrFormat(
        "<polyline class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%s",
        ColorOf(i), points, dots));
  }
  chart.XLabel("vocabulary size (log scale)");
  chart.Legend(names);
  return chart.Finish();
}

// Categories that `key` names in each tokenizer's list `field`, ordered by `order` of the first
// tokenizer that has them, and each tokenizer's value of `value` for each (0 where it has none).
std::pair<std::vector<std::string>, std::vector<std::vector<double>>> Grouped(
    const Json& tokenizers, const char* field, const char* key, const char* value, size_t most) {
  std::vector<std::string> categories;
  for (const Json& t : tokenizers) {
    for (const Json& row : t.at(field)) {
      const std::string c =
          row.at(key).is_string() ? row.at(key).get<std::string>() : row.at(key).dump();
      if (std::find(categories.begin(), categories.end(), c) == categories.end() &&
          categories.size() < most) {
        categories.push_back(c);
      }
    }
  }
  std::vector<std::vector<double>> values;
  for (const Json& t : tokenizers) {
    std::vector<double> v(categories.size());
    for (const Json& row : t.at(field)) {
      const std::string c =
          row.at(key).is_string() ? row.at(key).get<std::string>() : row.at(key).dump();
      auto it = std::find(categories.begin(), categories.end(), c);
      if (it != categories.end()) v[it - categories.begin()] = ValueOf(row.at(value));
    }
    values.push_back(std::move(v));
  }
  return {categories, values};
}

// The share of each tokenizer's vocabulary at each token length, longer ones pooled.
std::string LengthChart(const Json& tokenizers, const std::vector<std::string>& names) {
  constexpr size_t kPooled = 16;
  std::vector<std::string> categories;
  for (size_t l = 1; l < kPooled; ++l) categories.push_back(absl::StrCat(l));
  categories.push_back(absl::StrCat(kPooled, "+"));
  std::vector<std::vector<double>> values;
  for (const Json& t : tokenizers) {
    std::vector<double> v(kPooled);
    double all = 0;
    for (const Json& row : t.at("length_histogram")) {
      const size_t l = std::min<size_t>(row.at("bytes").get<size_t>(), kPooled);
      v[l - 1] += ValueOf(row.at("tokens"));
      all += ValueOf(row.at("tokens"));
    }
    for (double& x : v) x = all > 0 ? 100 * x / all : 0;
    values.push_back(std::move(v));
  }
  return BarChart("chart-lengths", "Token lengths: share of each vocabulary", categories, names,
                  values, "% of the vocabulary", "token length in bytes");
}

std::string TokenTable(const std::string& title, const Json& rows, bool merges) {
  std::string html = absl::StrCat("<table class=\"tokens\"><caption>", Escape(title),
                                  "</caption><tr><th>id</th><th>token</th><th>bytes</th><th>",
                                  merges ? "merged from</th><th>in training</th><th>" : "",
                                  "uses here</th></tr>\n");
  for (const Json& r : rows) {
    absl::StrAppend(&html, "<tr><td>", r.at("id").get<uint64_t>(), "</td><td>",
                    TokenCell(r.at("token").get<std::string>()), "</td><td>",
                    r.at("bytes").get<uint64_t>(), "</td>");
    if (merges) {
      absl::StrAppend(&html, "<td>", TokenCell(r.at("left").get<std::string>()), " + ",
                      TokenCell(r.at("right").get<std::string>()), "</td><td>",
                      Count(r.at("merge_count").get<uint64_t>()), "</td>");
    }
    absl::StrAppend(&html, "<td>", Count(r.at("count").get<uint64_t>()), "</td></tr>\n");
  }
  return html + "</table>\n";
}

constexpr char kStyle[] = R"(body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
h1{font-size:22px}h2{font-size:18px;margin-top:28px}h3{font-size:16px}
table{border-collapse:collapse;margin:8px 16px 16px 0}td,th{border:1px solid #ccc;padding:3px 8px}
td{text-align:right}th{background:#f3f3f3}caption{font-weight:600;text-align:left;padding:4px 0}
table.tokens{display:inline-table;vertical-align:top}code{background:#f6f6f6;padding:0 2px}
figure{margin:12px 0}figcaption{font-weight:600;margin-bottom:4px}
svg.chart{background:#fff;border:1px solid #ddd}.grid{stroke:#e5e5e5}.axis{stroke:#444}
.tick{font-size:11px;fill:#444}.label{font-size:12px;fill:#222}.legend{font-size:12px;fill:#222}
.note{color:#555})";

}  // namespace

absl::StatusOr<std::string> ReportHtml(absl::string_view report_json) {
  try {
    const Json report = Json::parse(report_json.begin(), report_json.end());
    if (report.value("format", "") != "bpeforge-report") {
      return absl::InvalidArgumentError(
          "not a bpeforge report (its \"format\" is not "
          "\"bpeforge-report\")");
    }
    const Json& tokenizers = report.at("tokenizers");
    std::vector<std::string> names;
    for (const Json& t : tokenizers) names.push_back(t.at("name").get<std::string>());
    std::string html = absl::StrCat(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>bpeforge "
        "report</title>\n<style>",
        kStyle, "</style></head>\n<body>\n<h1>Tokenizer report</h1>\n<p class=\"note\">",
        Count(report.at("bytes").get<uint64_t>()), " bytes of text in ", report.at("inputs").size(),
        " file(s), ", Count(report.at("words").get<uint64_t>()),
        " words (GPT-2 pre-tokens); made by bpeforge report in ",
        Number(ValueOf(report.at("seconds"))), " s.</p>\n");
    absl::StrAppend(&html,
                    "<h2>Summary</h2>\n<table id=\"summary\"><tr><th>tokenizer</th><th>vocabulary"
                    "</th><th>tokens</th><th>bytes per token</th><th>tokens per word</th>"
                    "<th>encoding MB/s (1 thread)</th><th>unused</th><th>unreachable</th>"
                    "<th>not whole UTF-8</th></tr>\n");
    for (const Json& t : tokenizers) {
      const Json& total = t.at("total");
      absl::StrAppend(&html, "<tr><th>", Escape(t.at("name").get<std::string>()), "</th><td>",
                      Count(t.at("vocab_size").get<uint64_t>()), "</td><td>",
                      Count(total.at("tokens").get<uint64_t>()), "</td><td>",
                      Number(ValueOf(total.at("bytes_per_token")), 3), "</td><td>",
                      Number(ValueOf(total.at("tokens_per_word")), 3), "</td><td>",
                      Number(ValueOf(t.at("throughput").at("mb_per_s")), 1), "</td><td>",
                      Count(t.at("unused").size()), "</td><td>", Count(t.at("unreachable").size()),
                      "</td><td>", Count(t.at("partial_utf8").size()), "</td></tr>\n");
    }
    absl::StrAppend(&html, "</table>\n<h2>Charts</h2>\n", CurveChart(tokenizers));
    std::vector<std::string> files;
    for (const Json& input : report.at("inputs")) {
      files.push_back(std::filesystem::path(input.at("path").get<std::string>()).filename());
    }
    std::vector<std::vector<double>> per_file;
    for (const Json& t : tokenizers) {
      std::vector<double> v;
      for (const Json& f : t.at("files")) v.push_back(ValueOf(f.at("bytes_per_token")));
      per_file.push_back(std::move(v));
    }
    absl::StrAppend(&html, BarChart("chart-files", "Bytes per token by file", files, names,
                                    per_file, "bytes per token", "input file"));
    if (report.contains("sources") && !report.at("sources").empty()) {
      absl::StrAppend(&html, SourcesChart(report, tokenizers, names));
    }
    auto [scripts, by_script] = Grouped(tokenizers, "scripts", "script", "bytes_per_token", 12);
    // Special tokens are one token of many bytes each: text of no script, off the scale.
    if (auto it = std::find(scripts.begin(), scripts.end(), "special tokens");
        it != scripts.end()) {
      for (std::vector<double>& v : by_script) v.erase(v.begin() + (it - scripts.begin()));
      scripts.erase(it);
    }
    absl::StrAppend(&html,
                    BarChart("chart-scripts", "Bytes per token by script (most text first)",
                             scripts, names, by_script, "bytes per token", "script of the word"),
                    LengthChart(tokenizers, names));
    for (const Json& t : tokenizers) {
      absl::StrAppend(
          &html, "<h2>", Escape(t.at("name").get<std::string>()), "</h2>\n<p class=\"note\">",
          Escape(t.at("path").get<std::string>()), ", pattern ",
          Escape(t.at("pattern").get<std::string>()), "; ", Count(t.at("unused").size()),
          " tokens unused on this text, ", Count(t.at("unreachable").size()),
          " unreachable (their own bytes encode to other tokens), ",
          Count(t.at("partial_utf8").size()), " not whole UTF-8 characters.</p>\n",
          TokenTable("Most used", t.at("most_used"), false),
          TokenTable("Least used (of those used)", t.at("least_used"), false),
          TokenTable("Longest", t.at("longest"), false),
          TokenTable("Unused here (lowest ids)", t.at("unused_sample"), false),
          TokenTable("Unreachable (lowest ids)", t.at("unreachable_sample"), false),
          TokenTable("Not whole UTF-8 (lowest ids)", t.at("partial_utf8_sample"), false));
      if (t.at("rarest_merges").is_array()) {
        absl::StrAppend(&html,
                        TokenTable("Made by the rarest merges", t.at("rarest_merges"), true));
      }
    }
    return html + "</body></html>\n";
  } catch (const Json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("malformed report: ", e.what()));
  }
}

absl::Status WriteReport(absl::string_view report_json, const std::string& dir) {
  absl::StatusOr<std::string> html = ReportHtml(report_json);
  if (!html.ok()) return html.status();
  using internal::TextSink;
  return internal::WriteFilesAtomically(dir, {{"report.json",
                                               [&](TextSink& out) {
                                                 out.Append(report_json);
                                                 out.Append("\n");
                                                 return absl::OkStatus();
                                               }},
                                              {"report.html", [&](TextSink& out) {
                                                 out.Append(*html);
                                                 return absl::OkStatus();
                                               }}});
}

}  // namespace bpeforge
