#include "cli/report_command.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "bpeforge/bpeforge.h"
#include "cli/command_support.h"
#include "cli/input_flags.h"
#include "cli/progress.h"

namespace bpeforge::cli {
namespace {

struct ReportArgs {
  std::vector<std::string> tokenizers;  // SPEC: PATH[,key=value...]
  InputFlags input;
  std::string out_dir;
  std::string sizes = "auto";
  std::string threads = "0";
  std::string list_length = "20";
  std::string group_by;
  std::string max_groups = "20";
  bool quiet = false;
};

int Fail(const absl::Status& status) { return cli::Fail("report", status); }

constexpr char kSpecHelp[] =
    "A tokenizer to report on (repeatable, side by side): a folder written by `bpeforge train`, "
    "a folder with a GPT-2 vocab.json and merges.txt, a Hugging Face tokenizer.json or a "
    "tiktoken rank file. Settings may follow the path, comma-separated: name=NAME (shown in the "
    "report), merges=FILE (the path is then a GPT-2 vocab.json), pattern=P (gpt2, cl100k, o200k "
    "or a regex), special-token=T (repeatable), special-ids=FILE (ids of a rank file's special "
    "tokens), e.g. cl100k_base.tiktoken,pattern=cl100k,name=cl100k";

// A --tokenizer value: the path (all of it, if it names a file), then its settings.
absl::StatusOr<ReportTokenizer> ParseSpec(const std::string& spec, std::string* merges) {
  std::error_code ec;
  std::vector<std::string> parts = {spec};
  if (!std::filesystem::exists(spec, ec)) parts = absl::StrSplit(spec, ',');
  ReportTokenizer t(parts[0]);
  std::optional<std::string> pattern;
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::vector<std::string> kv = absl::StrSplit(parts[i], absl::MaxSplits('=', 1));
    const std::string& key = kv[0];
    if (kv.size() != 2 || kv[1].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--tokenizer ", spec, ": \"", parts[i], "\" is not KEY=VALUE"));
    }
    if (key == "name") {
      t.name = kv[1];
    } else if (key == "merges") {
      *merges = kv[1];
    } else if (key == "pattern") {
      pattern = kv[1];
    } else if (key == "special-token") {
      t.load.special_tokens.push_back(kv[1]);
    } else if (key == "special-ids") {
      t.load.special_ids_path = kv[1];
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("--tokenizer ", spec, ": unknown setting \"", key,
                       "\" (name, merges, pattern, special-token, special-ids)"));
    }
  }
  if (pattern.has_value()) {
    Pattern p = Pattern::kGpt2;
    if (absl::Status s = ParsePatternFlag(*pattern, &p, &t.load.custom_pattern); !s.ok()) return s;
    t.load.pattern = p;
  }
  return t;
}

// The tokenizers the flags name, loaded (so that one that cannot load fails before any work).
absl::StatusOr<std::vector<ReportTokenizer>> LoadTokenizers(const std::vector<std::string>& specs) {
  std::vector<ReportTokenizer> tokenizers;
  for (const std::string& spec : specs) {
    std::string merges;
    absl::StatusOr<ReportTokenizer> t = ParseSpec(spec, &merges);
    if (!t.ok()) return t.status();
    absl::StatusOr<Tokenizer> loaded = merges.empty()
                                           ? Tokenizer::Load(t->path, t->load)
                                           : Tokenizer::LoadGpt2(t->path, merges, t->load);
    if (!loaded.ok()) return loaded.status();
    t->tokenizer = *std::move(loaded);
    tokenizers.push_back(*std::move(t));
  }
  return tokenizers;
}

absl::StatusOr<std::vector<size_t>> ParseSizes(const std::string& text) {
  std::vector<size_t> sizes;
  if (text == "auto") return sizes;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    absl::StatusOr<uint64_t> size = ParseDecimal(part, "--sizes", 1, uint64_t{1} << 32);
    if (!size.ok()) return size.status();
    sizes.push_back(*size);
  }
  return sizes;
}

// The files the tokenizers are read from: never inputs, never outputs.
std::vector<std::string> TokenizerPaths(const std::vector<ReportTokenizer>& tokenizers) {
  std::vector<std::string> paths;
  for (const ReportTokenizer& t : tokenizers) {
    paths.push_back(t.path);
    std::error_code ec;
    if (std::filesystem::is_directory(t.path, ec)) {
      for (const auto& entry : std::filesystem::directory_iterator(t.path, ec)) {
        paths.push_back(entry.path().string());
      }
    }
  }
  return paths;
}

// "docs.jsonl text source=web" for a row of report.json's `sources`.
std::string SourceName(const nlohmann::json& source) {
  std::string name =
      absl::StrCat(std::filesystem::path(source["path"].get<std::string>()).filename().string(),
                   " ", source["field"].get<std::string>());
  if (source.contains("group")) {
    const nlohmann::json& group = source["group"];
    absl::StrAppend(&name, " ",
                    group.is_null()
                        ? "(none)"
                        : group.get<std::string>() +
                              (source.contains("other_values")
                                   ? absl::StrCat(" ", source["other_values"].dump(), " values")
                                   : ""));
  }
  return name;
}

// Bytes per token of each JSON Lines field and group, the tokenizers side by side.
void PrintSources(const nlohmann::json& report) {
  std::vector<std::string> names;
  size_t name_width = 6;
  for (const auto& source : report["sources"]) {
    names.push_back(Printable(SourceName(source)));
    name_width = std::max(name_width, names.back().size());
  }
  std::printf("\nbytes/token by source\n%-*s  %9s", static_cast<int>(name_width), "source", "MB");
  std::vector<int> widths;  // a column per tokenizer, as wide as its name
  for (const auto& t : report["tokenizers"]) {
    const std::string name = Printable(t["name"].get<std::string>());
    widths.push_back(static_cast<int>(std::max<size_t>(name.size(), 9)));
    std::printf("  %*s", widths.back(), name.c_str());
  }
  std::printf("\n");
  for (size_t i = 0; i < names.size(); ++i) {
    std::printf("%-*s  %9.1f", static_cast<int>(name_width), names[i].c_str(),
                report["sources"][i]["bytes"].get<uint64_t>() / 1e6);
    for (size_t k = 0; k < widths.size(); ++k) {
      const auto& v = report["tokenizers"][k]["sources"][i]["bytes_per_token"];
      std::printf("  %*.3f", widths[k], v.is_number() ? v.get<double>() : 0.0);
    }
    std::printf("\n");
  }
  std::printf("\n");
}

void PrintSummary(const nlohmann::json& report, double seconds, const std::string& out_dir) {
  uint64_t skipped = 0;
  for (const auto& input : report["inputs"]) skipped += input["skipped_records"].get<uint64_t>();
  std::printf("read        %.1f MB of text in %zu file(s), %s words (GPT-2 pre-tokens)%s\n",
              report["bytes"].get<uint64_t>() / 1e6, report["inputs"].size(),
              report["words"].dump().c_str(),
              skipped == 0 ? "" : absl::StrCat(", ", skipped, " bad records skipped").c_str());
  size_t width = 9;
  for (const auto& t : report["tokenizers"]) {
    width = std::max(width, t["name"].get<std::string>().size());
  }
  std::printf("%-*s  %9s  %11s  %11s  %12s  %8s  %11s\n", static_cast<int>(width), "tokenizer",
              "vocab", "bytes/token", "tokens/word", "MB/s 1thread", "unused", "unreachable");
  auto number = [](const nlohmann::json& v) { return v.is_number() ? v.get<double>() : 0.0; };
  for (const auto& t : report["tokenizers"]) {
    std::printf("%-*s  %9llu  %11.3f  %11.3f  %12.1f  %8zu  %11zu\n", static_cast<int>(width),
                t["name"].get<std::string>().c_str(),
                static_cast<unsigned long long>(t["vocab_size"].get<uint64_t>()),
                number(t["total"]["bytes_per_token"]), number(t["total"]["tokens_per_word"]),
                number(t["throughput"]["mb_per_s"]), t["unused"].size(), t["unreachable"].size());
  }
  if (!report["sources"].empty()) PrintSources(report);
  std::printf("time        %.2f s\nwrote       %s, %s\n", seconds,
              Printable((std::filesystem::path(out_dir) / "report.json").string()).c_str(),
              Printable((std::filesystem::path(out_dir) / "report.html").string()).c_str());
}

int RunReport(const ReportArgs& args) {
  const Stopwatch stopwatch;
  absl::StatusOr<std::vector<size_t>> sizes = ParseSizes(args.sizes);
  if (!sizes.ok()) return UsageFail(sizes.status());
  absl::StatusOr<uint64_t> threads = ParseDecimal(args.threads, "--threads", 0, 4096);
  if (!threads.ok()) return UsageFail(threads.status());
  absl::StatusOr<uint64_t> list_length = ParseDecimal(args.list_length, "--list", 1, 100000);
  if (!list_length.ok()) return UsageFail(list_length.status());
  absl::StatusOr<uint64_t> max_groups = ParseDecimal(args.max_groups, "--max-groups", 1, 100000);
  if (!max_groups.ok()) return UsageFail(max_groups.status());
  MadeDirectories made;  // removed again unless the report is written
  if (absl::Status s = MakeWritableDir(args.out_dir, "--out", &made); !s.ok()) return Fail(s);
  absl::StatusOr<std::vector<ReportTokenizer>> tokenizers = LoadTokenizers(args.tokenizers);
  if (!tokenizers.ok()) return Fail(tokenizers.status());
  const std::vector<std::string> outputs = {
      (std::filesystem::path(args.out_dir) / "report.json").string(),
      (std::filesystem::path(args.out_dir) / "report.html").string()};
  std::vector<std::string> not_text = TokenizerPaths(*tokenizers);
  not_text.insert(not_text.end(), outputs.begin(), outputs.end());
  absl::StatusOr<std::vector<std::string>> inputs = InputFiles(args.input, not_text, true);
  if (!inputs.ok()) return Fail(inputs.status());
  for (const std::string& output : outputs) {
    if (absl::Status s = CheckNotAnInput(output, "--out", *inputs); !s.ok()) return Fail(s);
  }

  Progress progress(!args.quiet);
  ReportOptions options;
  options.sizes = *sizes;
  options.input = InputOptionsOf(args.input);
  options.threads = static_cast<int>(*threads);
  options.list_length = *list_length;
  options.jsonl_fields = args.input.jsonl_fields;
  options.group_by = args.group_by;
  options.max_groups = *max_groups;
  options.cancel = InstallStopSignals();
  options.progress = [&](absl::string_view line) {
    progress.Update(absl::StrCat("report: ", line));
  };
  absl::StatusOr<std::string> json = MakeReport(*tokenizers, *inputs, options);
  if (json.ok() && options.cancel->load()) json = absl::CancelledError("the report was stopped");
  if (!json.ok()) return Fail(json.status());
  if (absl::Status s = WriteReport(*json, args.out_dir); !s.ok()) return Fail(s);
  made.Keep();
  progress.Finish();
  PrintSummary(nlohmann::json::parse(*json), stopwatch.Seconds(), args.out_dir);
  return 0;
}

}  // namespace

void AddReportCommand(CLI::App& app, std::function<int()>* action) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Report what tokenizers make of text they were not trained on: bytes per token per file "
      "and per script, bytes per token at every vocabulary size (from one pass), and token use "
      "(unused, unreachable, longest, rarest merges), side by side, as report.json and "
      "report.html.");
  cmd->add_option("--tokenizer", args->tokenizers, kSpecHelp)->required()->allow_extra_args(false);
  AddInputFlags(cmd, &args->input,
                "Held-out UTF-8 text files, JSON Lines, folders or quoted globs, as for train; "
                "gzip, xz and zstd files are decompressed as they are read (not standard "
                "input: the text is read once per pre-tokenizer pattern)",
                /*several_fields=*/true);
  cmd->add_option("--group-by", args->group_by,
                  "JSON Lines: numbers of their own for the records of each value of this field "
                  "(e.g. source; meta.source reaches into an object), per file and field");
  cmd->add_option("--max-groups", args->max_groups,
                  "With --group-by: the values of the most records that get a row each; the "
                  "others share one, (other)")
      ->capture_default_str();
  cmd->add_option("--out,--output", args->out_dir,
                  "Folder for report.json and report.html (created if needed; both written "
                  "whole or neither)")
      ->required();
  cmd->add_option("--sizes", args->sizes,
                  "Vocabulary sizes for the bytes-per-token curve: auto (about 30 spaced "
                  "geometrically up to each tokenizer's size) or a comma-separated list, each "
                  "from 256 + a tokenizer's special tokens to its size")
      ->capture_default_str();
  cmd->add_option("--threads", args->threads, "Worker threads (default 0: all hardware threads)")
      ->capture_default_str();
  cmd->add_option("--list", args->list_length,
                  "Tokens in each list of the report (most used, longest, rarest merges...)")
      ->capture_default_str();
  cmd->add_flag("--quiet", args->quiet, "No progress lines on stderr");
  cmd->callback([args, action] { *action = [args] { return RunReport(*args); }; });
}

}  // namespace bpeforge::cli
