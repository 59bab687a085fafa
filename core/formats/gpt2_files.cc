#include "core/formats/gpt2_files.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/internal/atomic_file.h"
#include "core/internal/byte_unicode.h"
#include "core/internal/file_status.h"
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

namespace {

// One line of merges.txt (without its '\n'), as its two tokens' bytes; false for a line that
// holds none (empty, or the "#version" header on line 1).
absl::StatusOr<bool> ParseMergeLine(absl::string_view line, size_t line_no, absl::string_view path,
                                    std::string* left, std::string* right) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty() || (line_no == 1 && line.substr(0, 8) == "#version")) return false;
  std::vector<absl::string_view> parts = absl::StrSplit(line, ' ');
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ":", line_no,
                                                   ": expected two tokens separated by one space, "
                                                   "got \"",
                                                   line.substr(0, 200), "\""));
  }
  absl::StatusOr<std::string> l = Gpt2ToBytes(parts[0]);
  absl::StatusOr<std::string> r = Gpt2ToBytes(parts[1]);
  if (!l.ok() || !r.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ":", line_no, ": ", (l.ok() ? r.status() : l.status()).message()));
  }
  *left = *std::move(l);
  *right = *std::move(r);
  return true;
}

}  // namespace

absl::StatusOr<Merges> ParseMergesTxt(absl::string_view text, absl::string_view path) {
  Merges merges;
  size_t line_no = 0;
  std::string left, right;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    absl::StatusOr<bool> merge = ParseMergeLine(line, ++line_no, path, &left, &right);
    if (!merge.ok()) return merge.status();
    if (*merge) merges.emplace_back(std::move(left), std::move(right));
  }
  return merges;
}

absl::Status ForEachMerge(
    const std::string& path,
    absl::FunctionRef<absl::Status(absl::string_view left, absl::string_view right)> add) {
  std::FILE* file = std::fopen(path.c_str(), "rbe");
  if (file == nullptr) return ErrnoStatus(errno, "cannot open", path);
  char* line = nullptr;
  size_t capacity = 0;
  absl::Status status;
  std::string left, right;
  size_t line_no = 0;
  for (ssize_t n; status.ok() && (n = getline(&line, &capacity, file)) >= 0;) {
    absl::string_view text(line, static_cast<size_t>(n));
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    absl::StatusOr<bool> merge = ParseMergeLine(text, ++line_no, path, &left, &right);
    if (!merge.ok()) {
      status = merge.status();
    } else if (*merge) {
      if (absl::Status s = add(left, right); !s.ok()) {
        status = absl::InvalidArgumentError(absl::StrCat(path, ":", line_no, ": ", s.message()));
      }
    }
  }
  if (status.ok() && std::ferror(file)) status = ErrnoStatus(errno, "cannot read", path);
  std::free(line);
  std::fclose(file);
  return status;
}

namespace {

// vocab.json's events, as nlohmann's SAX parser gives them: each key and its id at the top
// level of one object.
class VocabJsonEntries : public nlohmann::json_sax<nlohmann::json> {
 public:
  VocabJsonEntries(absl::string_view path,
                   absl::FunctionRef<absl::Status(absl::string_view, TokenId)> entry)
      : path_(path), entry_(entry) {}
  const absl::Status& status() const { return status_; }

  bool key(string_t& key) override {
    key_ = std::move(key);
    return true;
  }
  bool number_unsigned(number_unsigned_t value) override {
    if (depth_ != 1) return Nested();
    if (value >= UINT32_MAX) return BadId(std::to_string(value));
    absl::StatusOr<std::string> bytes = Gpt2ToBytes(key_);
    if (!bytes.ok()) return Fail(absl::StrCat(path_, ": ", bytes.status().message()));
    if (absl::Status s = entry_(*bytes, static_cast<TokenId>(value)); !s.ok()) {
      status_ = s;
      return false;
    }
    return true;
  }
  bool number_integer(number_integer_t value) override {
    return depth_ == 1 ? BadId(std::to_string(value)) : Nested();
  }
  bool number_float(number_float_t, const string_t& text) override {
    return depth_ == 1 ? BadId(text) : Nested();
  }
  bool null() override { return depth_ == 1 ? BadId("null") : Nested(); }
  bool boolean(bool value) override {
    return depth_ == 1 ? BadId(value ? "true" : "false") : Nested();
  }
  bool string(string_t& value) override {
    return depth_ == 1 ? BadId(nlohmann::json(value).dump()) : Nested();
  }
  bool binary(binary_t&) override { return Nested(); }
  bool start_object(std::size_t) override {
    if (depth_ == 1 && (key_ == "model" || key_ == "added_tokens")) {
      return Fail(absl::StrCat(
          path_,
          ": this is a Hugging Face tokenizer.json, not a GPT-2 vocab.json (token -> id); load "
          "it as a tokenizer (--tokenizer FILE, bpeforge.load(FILE))"));
    }
    if (depth_++ >= 1) return Nested();
    return true;
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    return depth_ == 0 ? Fail(absl::StrCat(path_, ": expected a JSON object")) : Nested();
  }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    return Fail(absl::StrCat(path_, ": not valid JSON at byte ", position, ": ", e.what()));
  }

 private:
  bool Fail(std::string message) {
    status_ = absl::InvalidArgumentError(std::move(message));
    return false;
  }
  bool BadId(absl::string_view id) {
    return Fail(absl::StrCat(path_, ": token ", nlohmann::json(key_).dump(), " has id ", id,
                             "; ids must be non-negative integers"));
  }
  bool Nested() { return Fail(absl::StrCat(path_, ": expected an object of token -> id")); }

  std::string path_;
  absl::FunctionRef<absl::Status(absl::string_view, TokenId)> entry_;
  absl::Status status_;
  std::string key_;
  int depth_ = 0;
};

}  // namespace

absl::Status ForEachVocabJsonEntry(
    const std::string& path,
    absl::FunctionRef<absl::Status(absl::string_view bytes, TokenId id)> entry) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ErrnoStatus(errno, "cannot open", path);
  VocabJsonEntries events(path, entry);
  bool parsed = false;
  try {
    parsed = nlohmann::json::sax_parse(in, &events);
  } catch (const nlohmann::json::exception& e) {  // a number out of range, say
    return absl::InvalidArgumentError(absl::StrCat(path, ": not usable JSON: ", e.what()));
  }
  if (!events.status().ok()) return events.status();
  if (!parsed) return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON"));
  return absl::OkStatus();
}

absl::StatusOr<Merges> ReadMergesTxt(const std::string& path) {
  std::string text;
  BPEFORGE_RETURN_IF_ERROR(ReadFile(path, &text));
  return ParseMergesTxt(text, path);
}

}  // namespace bpeforge::internal
