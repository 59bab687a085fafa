// MakeReport: each group of tokenizers that cut text alike tallies the inputs once
// (parallel/tally_files.h), and the numbers become report.json. Token use is in
// report_tokens.cc, the page in report_html.cc.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "api/options.h"
#include "api/report_parts.h"
#include "api/tokenizer_state.h"
#include "bpeforge/bpeforge.h"
#include "core/internal/status_macros.h"
#include "core/pretokenize/text_class.h"
#include "parallel/tally_files.h"

namespace bpeforge {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Loaded {
  std::string name, path;
  Tokenizer tokenizer;
  // The vocabulary sizes its curve may have: every byte and special token, up to all merges.
  size_t low = 0, high = 0;
  std::vector<size_t> sizes;  // of its curve
};

// "out/tok-32k/" -> "tok-32k"; "x/cl100k_base.tiktoken" -> "cl100k_base";
// "llama/tokenizer.json" -> "llama".
std::string NameOf(const std::string& path) {
  std::filesystem::path p(path);
  if (!p.has_filename()) p = p.parent_path();
  std::string name = p.filename().string();
  for (const char* ext : {".tiktoken", ".json"}) {
    if (name.size() > std::string(ext).size() && name.ends_with(ext)) {
      name.resize(name.size() - std::string(ext).size());
    }
  }
  if (name == "tokenizer" && p.has_parent_path()) name = p.parent_path().filename().string();
  return name.empty() ? path : name;
}

absl::StatusOr<std::vector<Loaded>> LoadAll(const std::vector<ReportTokenizer>& given) {
  std::vector<Loaded> loaded;
  std::set<std::string> names;
  for (const ReportTokenizer& t : given) {
    absl::StatusOr<Tokenizer> tokenizer = t.tokenizer.has_value()
                                              ? absl::StatusOr<Tokenizer>(*t.tokenizer)
                                              : Tokenizer::Load(t.path, t.load);
    if (!tokenizer.ok()) return tokenizer.status();
    std::string name = t.name.empty() ? NameOf(t.path) : t.name;
    for (int n = 2; names.contains(name); ++n) {
      name = absl::StrCat(t.name.empty() ? NameOf(t.path) : t.name, " (", n, ")");
    }
    names.insert(name);
    const internal::BpeCodec& core = TokenizerCore::Of(*tokenizer);
    const size_t specials = core.special_tokens().tokens().size();
    loaded.push_back({std::move(name),
                      t.path,
                      *std::move(tokenizer),
                      core.byte_rank_limit() + specials,
                      core.rank_limit() + specials,
                      {}});
  }
  return loaded;
}

// About 30 sizes spaced geometrically from `low` to `high`, rounded to two significant digits.
std::vector<size_t> AutoSizes(size_t low, size_t high) {
  std::set<size_t> sizes = {low, high};
  constexpr int kSteps = 29;
  for (int i = 1; i < kSteps; ++i) {
    const double v = low * std::pow(static_cast<double>(high) / low, i / double{kSteps});
    const double unit = std::pow(10.0, std::floor(std::log10(v)) - 1);
    const auto rounded = static_cast<size_t>(std::llround(v / unit) * unit);
    if (rounded > low && rounded < high) sizes.insert(rounded);
  }
  return {sizes.begin(), sizes.end()};
}

absl::Status ChooseSizes(const std::vector<size_t>& wanted, std::vector<Loaded>& loaded) {
  for (const size_t size : wanted) {
    bool fits = false;
    std::vector<std::string> ranges;
    for (const Loaded& t : loaded) {
      fits = fits || (size >= t.low && size <= t.high);
      ranges.push_back(absl::StrCat(t.name, " ", t.low, "..", t.high));
    }
    if (!fits) {
      return absl::InvalidArgumentError(absl::StrCat("vocabulary size ", size,
                                                     " is outside every tokenizer's range (",
                                                     absl::StrJoin(ranges, ", "), ")"));
    }
  }
  for (Loaded& t : loaded) {
    if (wanted.empty()) {
      t.sizes = AutoSizes(t.low, t.high);
      continue;
    }
    std::set<size_t> sizes = {t.high};
    for (const size_t size : wanted) {
      if (size >= t.low && size <= t.high) sizes.insert(size);
    }
    t.sizes.assign(sizes.begin(), sizes.end());
  }
  return absl::OkStatus();
}

// How a tokenizer cuts text into pre-tokens: those that cut alike share one tally.
struct Cut {
  Pattern pattern;
  std::string regex;
  std::vector<std::string> specials;
  bool operator==(const Cut&) const = default;
};
Cut CutOf(const internal::BpeCodec& t) {
  return {t.pattern(), t.custom_regex(), t.special_tokens().tokens()};
}

Json Ratio(uint64_t bytes, uint64_t tokens) {
  return tokens == 0 ? Json(nullptr) : Json(static_cast<double>(bytes) / tokens);
}

// bytes, tokens, bytes_per_token, words and tokens_per_word, after what `j` holds.
Json Compression(uint64_t bytes, uint64_t tokens, uint64_t words, Json j = Json::object()) {
  j["bytes"] = bytes;
  j["tokens"] = tokens;
  j["bytes_per_token"] = Ratio(bytes, tokens);
  j["words"] = words;
  j["tokens_per_word"] = words == 0 ? Json(nullptr) : Json(static_cast<double>(tokens) / words);
  return j;
}

Json ScriptsOf(const internal::EncodeTally& tally) {
  std::vector<std::pair<uint64_t, internal::TextClass>> classes;
  for (internal::TextClass c = 0; c < internal::kTextClassLimit; ++c) {
    if (tally.class_bytes()[c] > 0) classes.emplace_back(tally.class_bytes()[c], c);
  }
  std::sort(classes.rbegin(), classes.rend());
  Json scripts = Json::array();
  for (const auto& [bytes, c] : classes) {
    Json j;
    j["script"] = std::string(internal::TextClassName(c));
    j["bytes"] = bytes;
    j["tokens"] = tally.class_tokens()[c];
    j["bytes_per_token"] = Ratio(bytes, tally.class_tokens()[c]);
    scripts.push_back(std::move(j));
  }
  return scripts;
}

Json CurveOf(const Loaded& t, const internal::EncodeTally& tally, uint64_t bytes) {
  const size_t specials = TokenizerCore::Of(t.tokenizer).special_tokens().tokens().size();
  Json curve = Json::array();
  for (const size_t size : t.sizes) {
    const uint64_t tokens = tally.TokensBelowRank(static_cast<uint32_t>(size - specials));
    Json j;
    j["vocab_size"] = size;
    j["tokens"] = tokens;
    j["bytes_per_token"] = Ratio(bytes, tokens);
    curve.push_back(std::move(j));
  }
  return curve;
}

// A part of the inputs with numbers of its own: a file, or where JSON Lines records are split
// (several fields, or groups), one field of one group of records of a file.
struct Part {
  size_t file;
  Json field;                 // its name; null for text
  Json group;                 // the value; null for records without it; "(other)" when pooled
  uint64_t other_values = 0;  // pooled: how many values
  bool counts_skipped;        // the first of its file and field: each meets the bad records
  internal::TallyInput input;
};

// The values of ReportOptions::group_by that get numbers of their own, and how many others
// there are: over the JSON Lines inputs, read as their first field.
absl::StatusOr<std::pair<std::vector<std::optional<std::string>>, uint64_t>> Groups(
    const std::vector<std::string>& inputs, const internal::JsonlOptions& jsonl,
    const ReportOptions& options) {
  std::vector<std::string> paths;
  for (const std::string& path : inputs) {
    if (jsonl.IsJsonl(path)) paths.push_back(path);
  }
  if (paths.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("records are grouped by \"", options.group_by,
                                                   "\", but no input is JSON Lines"));
  }
  internal::TallyOptions tally;
  tally.threads = options.threads;
  tally.cancel = options.cancel;
  if (options.progress || options.progress_figures) {
    // A pass of its own before the tally, as long as reading the files once.
    tally.progress = [&options](const ProgressFigures& figures) {
      ProgressFigures grouping = figures;
      grouping.phase = "grouping";
      if (options.progress_figures) options.progress_figures(grouping);
      if (options.progress) {
        options.progress(
            absl::StrCat(ProgressLine(grouping, 0), " (records by ", options.group_by, ")"));
      }
    };
  }
  internal::JsonlOptions grouped = jsonl;
  grouped.group_field = options.group_by;
  auto values = internal::CountGroupValues(paths, grouped, tally);
  if (!values.ok()) return values.status();
  std::vector<std::optional<std::string>> kept;
  for (size_t i = 0; i < values->size() && i < std::max<size_t>(options.max_groups, 1); ++i) {
    kept.push_back((*values)[i].first);
  }
  return std::pair(std::move(kept), values->size() - kept.size());
}

absl::StatusOr<std::vector<Part>> PartsOf(const std::vector<std::string>& inputs,
                                          const ReportOptions& options) {
  std::vector<std::string> fields = options.jsonl_fields;
  if (fields.empty()) fields.push_back(options.input.jsonl_field);
  for (size_t k = 0; k < fields.size(); ++k) {
    if (std::find(fields.begin(), fields.begin() + k, fields[k]) != fields.begin() + k) {
      return absl::InvalidArgumentError(
          absl::StrCat("JSON Lines field \"", fields[k], "\" is named twice"));
    }
  }
  auto jsonl_of = [&](const std::string& field) {
    internal::JsonlOptions jsonl;
    jsonl.field = field;
    jsonl.skip_bad_records = options.input.skip_bad_records;
    return jsonl;
  };
  std::vector<std::optional<std::string>> groups;
  uint64_t other_values = 0;
  if (!options.group_by.empty()) {
    auto chosen = Groups(inputs, jsonl_of(fields[0]), options);
    if (!chosen.ok()) return chosen.status();
    std::tie(groups, other_values) = *std::move(chosen);
  }
  const auto kept =
      std::make_shared<const std::set<std::optional<std::string>>>(groups.begin(), groups.end());
  std::vector<Part> parts;
  for (size_t f = 0; f < inputs.size(); ++f) {
    for (const std::string& field : fields) {
      internal::JsonlOptions jsonl = jsonl_of(field);
      if (!jsonl.IsJsonl(inputs[f])) {
        parts.push_back({f, nullptr, nullptr, 0, true, {inputs[f], jsonl}});
        break;
      }
      if (options.group_by.empty()) {
        parts.push_back({f, jsonl.FieldName(), nullptr, 0, true, {inputs[f], jsonl}});
        continue;
      }
      jsonl.group_field = options.group_by;
      for (size_t g = 0; g < groups.size(); ++g) {
        jsonl.keep = [value = groups[g]](std::optional<absl::string_view> v) {
          return v.has_value() == value.has_value() && (!v.has_value() || *v == *value);
        };
        parts.push_back({f,
                         jsonl.FieldName(),
                         groups[g] ? Json(*groups[g]) : Json(nullptr),
                         0,
                         g == 0,
                         {inputs[f], jsonl}});
      }
      if (other_values > 0) {
        jsonl.keep = [kept](std::optional<absl::string_view> v) {
          return !kept->contains(v.has_value() ? std::optional<std::string>(*v) : std::nullopt);
        };
        parts.push_back(
            {f, jsonl.FieldName(), "(other)", other_values, groups.empty(), {inputs[f], jsonl}});
      }
    }
  }
  return parts;
}

absl::Status CheckInputs(const std::vector<ReportTokenizer>& tokenizers,
                         const std::vector<std::string>& inputs) {
  if (tokenizers.empty()) return absl::InvalidArgumentError("no tokenizer given");
  if (inputs.empty()) return absl::InvalidArgumentError("no input file given");
  for (const std::string& input : inputs) {
    if (input == "-") {
      return absl::InvalidArgumentError(
          "a report reads its inputs once per pre-tokenizer pattern, which standard input (-) "
          "cannot give; save it to a file first");
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> MakeReport(const std::vector<ReportTokenizer>& tokenizers,
                                       const std::vector<std::string>& inputs,
                                       const ReportOptions& options) {
  const Clock::time_point start = Clock::now();
  BPEFORGE_RETURN_IF_ERROR(CheckInputs(tokenizers, inputs));
  absl::StatusOr<std::vector<Loaded>> loaded = LoadAll(tokenizers);
  if (!loaded.ok()) return loaded.status();
  BPEFORGE_RETURN_IF_ERROR(ChooseSizes(options.sizes, *loaded));
  absl::StatusOr<std::vector<Part>> parts = PartsOf(inputs, options);
  if (!parts.ok()) return parts.status();
  std::vector<internal::TallyInput> tally_inputs;
  for (const Part& part : *parts) tally_inputs.push_back(part.input);
  const bool split = options.jsonl_fields.size() > 1 || !options.group_by.empty();

  // The tokenizers by how they cut text; words are GPT-2 pre-tokens, cut at the first
  // tokenizer's special tokens (a tally of their own unless a group cuts text that way).
  std::vector<Cut> cuts;
  std::vector<size_t> cut_of;
  for (const Loaded& t : *loaded) {
    const Cut cut = CutOf(TokenizerCore::Of(t.tokenizer));
    auto it = std::find(cuts.begin(), cuts.end(), cut);
    cut_of.push_back(it - cuts.begin());
    if (it == cuts.end()) cuts.push_back(cut);
  }
  const Cut words_cut{Pattern::kGpt2, "", cuts[cut_of[0]].specials};
  const size_t words_group = std::find(cuts.begin(), cuts.end(), words_cut) - cuts.begin();
  if (words_group == cuts.size()) cuts.push_back(words_cut);

  std::vector<internal::FilesTally> tallies;
  std::vector<std::vector<size_t>> members(cuts.size());  // tokenizers of each group
  for (size_t t = 0; t < loaded->size(); ++t) members[cut_of[t]].push_back(t);
  for (size_t g = 0; g < cuts.size(); ++g) {
    internal::TallyOptions tally_options;
    tally_options.pattern = cuts[g].pattern;
    tally_options.custom_regex = cuts[g].regex;
    tally_options.special_tokens = cuts[g].specials;
    tally_options.threads = options.threads;
    if (options.progress || options.progress_figures) {
      tally_options.progress = [&options, &cuts, g](const ProgressFigures& p) {
        if (options.progress_figures) options.progress_figures(p);
        if (!options.progress) return;
        const std::string pattern = std::string(PatternName(cuts[g].pattern));
        options.progress(absl::string_view(p.phase) == "encoding"
                             ? absl::StrFormat("encoding: %.0f%% of %d distinct pre-tokens (%s)",
                                               100.0 * p.done / std::max<uint64_t>(p.total, 1),
                                               p.total, pattern)
                             : absl::StrCat(ProgressLine(p, 0), " (", pattern, ")"));
      };
    }
    tally_options.cancel = options.cancel;
    std::vector<const internal::BpeCodec*> group;
    for (size_t t : members[g]) group.push_back(&TokenizerCore::Of((*loaded)[t].tokenizer));
    absl::StatusOr<internal::FilesTally> tally =
        internal::TallyFiles(tally_inputs, group, tally_options);
    if (!tally.ok()) return tally.status();
    tallies.push_back(*std::move(tally));
  }
  const internal::FilesTally& words = tallies[words_group];

  InputOptions sample_input = options.input;
  if (!options.jsonl_fields.empty()) sample_input.jsonl_field = options.jsonl_fields.front();
  absl::StatusOr<std::vector<std::string>> sample =
      report::ThroughputSample(inputs.front(), sample_input, options.throughput_bytes);
  if (!sample.ok()) return sample.status();

  // Each file's parts added up.
  std::vector<internal::FileTally> per_file(inputs.size());
  for (size_t p = 0; p < parts->size(); ++p) {
    internal::FileTally& file = per_file[(*parts)[p].file];
    const internal::FileTally& part = words.files[p];
    file.bytes += part.bytes;
    file.pretokens += part.pretokens;
    file.documents += part.documents;
    if ((*parts)[p].counts_skipped) file.skipped_records += part.skipped_records;
  }
  Json report;
  report["format"] = "bpeforge-report";
  report["version"] = 1;
  uint64_t total_bytes = 0, total_words = 0;
  Json files = Json::array();
  for (size_t f = 0; f < inputs.size(); ++f) {
    Json j;
    j["path"] = inputs[f];
    j["bytes"] = per_file[f].bytes;
    j["documents"] = per_file[f].documents;
    j["skipped_records"] = per_file[f].skipped_records;
    j["words"] = per_file[f].pretokens;
    total_bytes += per_file[f].bytes;
    total_words += per_file[f].pretokens;
    files.push_back(std::move(j));
  }
  report["inputs"] = std::move(files);
  // The parts of JSON Lines files that have numbers of their own, with any records.
  std::vector<size_t> shown;
  for (size_t p = 0; split && p < parts->size(); ++p) {
    if (!(*parts)[p].field.is_null() && words.files[p].documents > 0) shown.push_back(p);
  }
  auto source = [&](size_t p) {
    const Part& part = (*parts)[p];
    Json j = {{"path", inputs[part.file]}, {"field", part.field}};
    if (!options.group_by.empty()) j["group"] = part.group;
    if (part.other_values > 0) j["other_values"] = part.other_values;
    return j;
  };
  Json sources = Json::array();
  for (const size_t p : shown) {
    Json j = source(p);
    j["documents"] = words.files[p].documents;
    j["bytes"] = words.files[p].bytes;
    j["words"] = words.files[p].pretokens;
    sources.push_back(std::move(j));
  }
  report["sources"] = std::move(sources);
  report["bytes"] = total_bytes;
  report["words"] = total_words;
  report["sizes"] = options.sizes.empty() ? Json("auto") : Json(options.sizes);
  Json list = Json::array();
  for (size_t t = 0; t < loaded->size(); ++t) {
    const Loaded& l = (*loaded)[t];
    const internal::FilesTally& tally = tallies[cut_of[t]];
    const size_t member = std::find(members[cut_of[t]].begin(), members[cut_of[t]].end(), t) -
                          members[cut_of[t]].begin();
    const internal::EncodeTally& total = tally.totals[member];
    const internal::BpeCodec& core = TokenizerCore::Of(l.tokenizer);
    Json j;
    j["name"] = l.name;
    j["path"] = l.path;
    j["pattern"] = core.pattern() == Pattern::kCustom ? core.custom_regex()
                                                      : std::string(PatternName(core.pattern()));
    j["special_tokens"] = core.special_tokens().tokens();
    j["vocab_size"] = report::VocabSize(core);
    std::vector<uint64_t> file_tokens(inputs.size());
    for (size_t p = 0; p < parts->size(); ++p) {
      file_tokens[(*parts)[p].file] += tally.files[p].tokens[member];
    }
    Json file_rows = Json::array();
    for (size_t f = 0; f < inputs.size(); ++f) {
      file_rows.push_back(Compression(per_file[f].bytes, file_tokens[f], per_file[f].pretokens,
                                      {{"path", inputs[f]}}));
    }
    j["files"] = std::move(file_rows);
    Json source_rows = Json::array();
    for (const size_t p : shown) {
      source_rows.push_back(Compression(words.files[p].bytes, tally.files[p].tokens[member],
                                        words.files[p].pretokens, source(p)));
    }
    j["sources"] = std::move(source_rows);
    uint64_t tokens = 0;
    for (const uint64_t n : file_tokens) tokens += n;
    j["total"] = Compression(total_bytes, tokens, total_words);
    j["throughput"] = report::Throughput(core, *sample);
    j["scripts"] = ScriptsOf(total);
    j["curve"] = CurveOf(l, total, total_bytes);
    const Json use = report::TokenUse(l.tokenizer, total, options.list_length, options.threads);
    for (const auto& [key, value] : use.items()) j[key] = value;
    list.push_back(std::move(j));
  }
  report["tokenizers"] = std::move(list);
  report["seconds"] = SecondsSince(start);
  return report.dump(1);
}

}  // namespace bpeforge
