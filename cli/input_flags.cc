#include "cli/input_flags.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/command_support.h"

namespace bpeforge::cli {

void AddInputFlags(CLI::App* cmd, InputFlags* flags, const std::string& what, bool several_fields) {
  cmd->add_option("inputs", flags->args, what)->required();
  cmd->add_option("--include", flags->include,
                  "With a folder among the inputs: take only the files whose name matches this "
                  "shell pattern, e.g. '*.jsonl.zst' (repeatable)");
  const std::string jsonl_help =
      "Read every input as JSON Lines and take this string field of each record as one "
      "document (default: files named *.jsonl, *.ndjson, *.json, also under .gz/.zst/.xz, are "
      "JSON Lines with the field \"text\")";
  CLI::Option* jsonl =
      several_fields
          ? cmd->add_option("--jsonl-field", flags->jsonl_fields,
                            jsonl_help + "; repeatable: each field read with numbers of its own")
          : cmd->add_option("--jsonl-field", flags->jsonl_field, jsonl_help);
  jsonl->check(CLI::Validator(
      [](const std::string& name) {
        return name.empty() ? std::string("must name a field, not be empty") : std::string();
      },
      "NAME"));
  cmd->add_flag("--skip-bad-records", flags->skip_bad_records,
                "Pass over bad JSON Lines records (not an object, the field missing or not a "
                "string, invalid UTF-8) and count them in the summary, rather than stop at the "
                "first with its file and line");
}

absl::StatusOr<std::vector<std::string>> InputFiles(const InputFlags& flags,
                                                    const std::vector<std::string>& not_text,
                                                    bool note, bool count_files) {
  std::vector<std::pair<dev_t, ino_t>> written;   // those there are
  std::vector<std::filesystem::path> written_in;  // their folders
  for (const std::string& file : not_text) {
    if (auto id = RegularFileId(file)) written.push_back(*id);
    written_in.push_back(std::filesystem::path(file).parent_path());
  }
  auto is_output = [&](const std::string& file) {
    const auto id = RegularFileId(file);
    return id.has_value() && std::find(written.begin(), written.end(), *id) != written.end();
  };
  if (std::count(flags.args.begin(), flags.args.end(), kStdin) > 1) {
    return absl::InvalidArgumentError("- (standard input) is given twice; it can be read once");
  }
  std::vector<std::string> files, left_out;
  for (const std::string& arg : flags.args) {
    absl::StatusOr<std::vector<std::string>> expanded =
        ExpandInputs({arg}, flags.include, &left_out, count_files);
    if (!expanded.ok()) return expanded.status();
    std::error_code ec;
    const bool folder = !written.empty() && std::filesystem::is_directory(arg, ec);
    const size_t before = files.size();
    for (std::string& file : *expanded) {
      if (!folder || !is_output(file)) files.push_back(std::move(file));
    }
    if (folder && files.size() == before) {
      return absl::InvalidArgumentError(absl::StrCat(
          arg, " holds no text: only files this command writes or reads as a tokenizer"));
    }
  }
  // Not worth a note: this command's own files (its outputs, the tokenizer it reads) and their
  // folder, which every run of it would name again.
  std::erase_if(left_out, [&](const std::string& path) {
    std::error_code ec;
    return is_output(path) || std::any_of(written_in.begin(), written_in.end(), [&](auto& dir) {
             return std::filesystem::equivalent(path, dir.empty() ? "." : dir, ec);
           });
  });
  if (note && !left_out.empty()) {
    // A few by name: a folder of many shards' ids would otherwise fill the screen.
    constexpr size_t kNamed = 4;
    std::string named =
        absl::StrJoin(left_out.begin(), left_out.begin() + std::min(left_out.size(), kNamed), ", ");
    if (left_out.size() > kNamed)
      absl::StrAppend(&named, " and ", left_out.size() - kNamed, " more");
    std::fprintf(stderr,
                 "note: left out what bpeforge wrote in the input folders (tokenizers, ids%s): "
                 "%s\n",
                 count_files ? "" : ", count files", Printable(named).c_str());
  }
  return files;
}

InputOptions InputOptionsOf(const InputFlags& flags) {
  InputOptions options;
  options.jsonl_field = flags.jsonl_field;
  options.skip_bad_records = flags.skip_bad_records;
  return options;
}

std::string DescribeRead(uint64_t text_bytes, size_t files, const InputStats& input) {
  std::string s = absl::StrFormat("%.1f MB of text in %d file(s)", text_bytes / 1e6, files);
  if (input.stored_bytes != input.decompressed_bytes) {
    absl::StrAppendFormat(&s, " (%.1f MB as stored, %.1f MB decompressed)",
                          input.stored_bytes / 1e6, input.decompressed_bytes / 1e6);
  }
  // Beside skipped records, the documents kept, even when they are as many as the files.
  if (input.documents != files || input.skipped_records > 0) {
    absl::StrAppendFormat(&s, ", %d documents", input.documents);
  }
  if (input.skipped_records > 0) {
    absl::StrAppendFormat(&s, ", %d bad records skipped", input.skipped_records);
  }
  return s;
}

std::string InputNotes(const InputStats& input, uint64_t chunk_bytes) {
  std::string notes;
  if (chunk_bytes > 0 && input.largest_piece_bytes >= 16 * chunk_bytes) {
    absl::StrAppendFormat(
        &notes,
        "note: %.1f MB of text had no safe cut point (see docs/cli.md, \"Where the text is cut\"), "
        "so one thread took it whole\n",
        input.largest_piece_bytes / 1e6);
  }
  // zstd's default limit, which `zstd -d` keeps unless given --long or --memory.
  constexpr uint64_t kDefaultWindow = uint64_t{1} << 27;
  if (input.largest_window_bytes > kDefaultWindow) {
    absl::StrAppendFormat(&notes,
                          "note: a zstd stream needed a %d MiB decompression window (it was "
                          "written with --long), which was held in memory while it was read\n",
                          input.largest_window_bytes >> 20);
  }
  return notes;
}

std::string StoredRate(const InputStats& input, double seconds) {
  if (input.stored_bytes == input.decompressed_bytes || seconds <= 0) return "";
  return absl::StrFormat(", %.0f MB/s as stored", input.stored_bytes / 1e6 / seconds);
}

}  // namespace bpeforge::cli
