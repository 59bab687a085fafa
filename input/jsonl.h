// JSON Lines: each line a JSON object whose string field (by default "text") is one document.
// Parsed with simdjson (its runtime-dispatched parser: AVX2 or AVX-512 where the CPU has
// them). A JsonlParser is not thread-safe; keep one per thread.
//
//   JsonlParser parser("text");
//   std::optional<JsonlParser::BadRecord> bad = parser.ForEachDocument(
//       piece.text, StreamCutter::kPadding, piece.first_line, false, &skipped,
//       [&](absl::string_view document, uint64_t line) { ... return true; });
//   if (bad) return Error(path, ":", bad->line, ": ", bad->why);
#ifndef BPEFORGE_INPUT_JSONL_H_
#define BPEFORGE_INPUT_JSONL_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"

namespace bpeforge::internal {

// Whether a file's name says JSON Lines: *.jsonl, *.ndjson or *.json, also with a compression
// suffix after it (.gz, .zst, .zstd, .xz).
bool HasJsonlName(absl::string_view path);

// Which inputs are JSON Lines, and what to take from them.
struct JsonlOptions {
  // Empty: files named as JSON Lines (HasJsonlName) are, with the field "text". Set: every
  // input is JSON Lines, with this field.
  std::string field;
  bool skip_bad_records = false;  // count bad records and pass over them, rather than fail

  // With `group_field`: only the records whose value of that field `keep` accepts are documents
  // (the value: a string as it is, any other JSON value as its JSON text, nullopt where the
  // record lacks the field); the others are passed over, neither documents nor bad records. A
  // dotted name that is no field of the record reaches into its objects: "meta.source". `keep`
  // is called from any thread.
  std::string group_field = {};
  std::function<bool(std::optional<absl::string_view> value)> keep = nullptr;

  bool IsJsonl(absl::string_view path) const { return !field.empty() || HasJsonlName(path); }
  std::string FieldName() const { return field.empty() ? "text" : field; }
};

// The end of a chunk of whole lines that starts at `begin`: just past the '\n' that ends the
// line holding byte begin + target - 1 (so at least begin + 1), or text.size().
size_t NextRecordsEnd(absl::string_view text, size_t begin, size_t target);

class JsonlParser {
 public:
  explicit JsonlParser(std::string field);
  // The field of `options`, and its group field and filter.
  explicit JsonlParser(const JsonlOptions& options);
  ~JsonlParser();
  JsonlParser(JsonlParser&&) noexcept;

  struct BadRecord {
    uint64_t line = 0;
    std::string why;  // "field \"text\" is missing", "not valid JSON (...)", ...
  };

  // Calls `document` with the field and line number of each record of `lines` (whole lines), in
  // order, stopping when it returns false. simdjson reads up to 64 bytes past a record: the
  // next records, or `readable_after` bytes past the end of `lines` (StreamCutter's padding, or
  // the rest of a mapped file). A record closer to the end than that is copied first. Lines holding
  // only white space are skipped. A record that is not a JSON object, lacks the field, has a field
  // that is not a string, or has a string that is not UTF-8 (invalid bytes, or a \u escape of a
  // lone surrogate) is bad: with `skip_bad` it is counted in *skipped and passed over, else the
  // first one is returned and nothing after it is read.
  std::optional<BadRecord> ForEachDocument(
      absl::string_view lines, size_t readable_after, uint64_t first_line, bool skip_bad,
      uint64_t* skipped, absl::FunctionRef<bool(absl::string_view, uint64_t line)> document);

 private:
  struct State;
  std::string field_;
  std::string group_field_, group_pointer_;  // the pointer: "/meta/source" for "meta.source"
  std::function<bool(std::optional<absl::string_view>)> keep_;
  std::unique_ptr<State> state_;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_INPUT_JSONL_H_
