#include "core/formats/gpt2_files.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/internal/atomic_file.h"
#include "core/internal/byte_unicode.h"
#include "core/internal/status_macros.h"

namespace bpeforge::internal {

void WriteVocabJson(const TokenSpelling& tokens, TextSink& out) {
  out.Append("{\n");
  std::string scratch;
  for (size_t id = 0; id < tokens.size() && !out.stopped(); ++id) {
    out.Add("  ", nlohmann::json(BytesToGpt2(tokens.Token(id, &scratch))).dump(), ": ", id,
            id + 1 < tokens.size() ? ",\n" : "\n");
  }
  out.Append("}\n");
}

void WriteMergesTxt(const TokenSpelling& tokens, TextSink& out) {
  std::string left, right;
  for (size_t i = 0; i < tokens.merges() && !out.stopped(); ++i) {
    out.Add(BytesToGpt2(tokens.MergeLeft(i, &left)), " ", BytesToGpt2(tokens.MergeRight(i, &right)),
            "\n");
  }
}

absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> ParseVocabJsonEntries(
    absl::string_view text, absl::string_view path) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not valid JSON at byte ", e.byte, ": ", e.what()));
  } catch (const nlohmann::json::exception& e) {  // a number out of range, say (found by fuzzing)
    return absl::InvalidArgumentError(absl::StrCat(path, ": not usable JSON: ", e.what()));
  }
  if (!json.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": expected a JSON object"));
  }
  // The likeliest wrong file: the Hugging Face tokenizer.json that sits beside vocab.json.
  if (json.contains("model") && json.contains("added_tokens")) {
    return absl::InvalidArgumentError(absl::StrCat(
        path,
        ": this is a Hugging Face tokenizer.json, not a GPT-2 vocab.json (token -> id); load it "
        "as a tokenizer (--tokenizer FILE, bpeforge.load(FILE))"));
  }
  std::vector<std::pair<std::string, TokenId>> entries;
  entries.reserve(json.size());
  for (const auto& [key, value] : json.items()) {
    if (!value.is_number_unsigned() || value.get<uint64_t>() >= UINT32_MAX) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": token ", nlohmann::json(key).dump(),
                                                     " has id ", value.dump(),
                                                     "; ids must be non-negative integers"));
    }
    absl::StatusOr<std::string> bytes = Gpt2ToBytes(key);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": ", bytes.status().message()));
    }
    entries.emplace_back(*std::move(bytes), value.get<TokenId>());
  }
  return entries;
}

absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> ReadVocabJsonEntries(
    const std::string& path) {
  std::string text;
  BPEFORGE_RETURN_IF_ERROR(ReadFile(path, &text));
  return ParseVocabJsonEntries(text, path);
}

absl::StatusOr<Vocab> ReadVocabJson(const std::string& path) {
  absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> entries = ReadVocabJsonEntries(path);
  if (!entries.ok()) return entries.status();
  Vocab vocab(entries->size());
  std::vector<bool> seen(entries->size(), false);
  for (auto& [bytes, id] : *entries) {
    if (id >= entries->size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ": id ", id, " is out of range; ids must be 0..", entries->size() - 1));
    }
    if (seen[id]) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": id ", id, " is used twice"));
    }
    seen[id] = true;
    vocab[id] = std::move(bytes);
  }
  return vocab;
}

absl::StatusOr<Merges> ParseMergesTxt(absl::string_view text, absl::string_view path) {
  Merges merges;
  size_t line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || (line_no == 1 && line.substr(0, 8) == "#version")) continue;
    std::vector<absl::string_view> parts = absl::StrSplit(line, ' ');
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ":", line_no, ": expected two tokens separated by one space, got \"", line, "\""));
    }
    absl::StatusOr<std::string> left = Gpt2ToBytes(parts[0]);
    absl::StatusOr<std::string> right = Gpt2ToBytes(parts[1]);
    if (!left.ok() || !right.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ":", line_no, ": ", (left.ok() ? right.status() : left.status()).message()));
    }
    merges.emplace_back(*std::move(left), *std::move(right));
  }
  return merges;
}

absl::StatusOr<Merges> ReadMergesTxt(const std::string& path) {
  std::string text;
  BPEFORGE_RETURN_IF_ERROR(ReadFile(path, &text));
  return ParseMergesTxt(text, path);
}

}  // namespace bpeforge::internal
