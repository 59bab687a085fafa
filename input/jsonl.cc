#include "input/jsonl.h"

#include <simdjson.h>
#include <string.h>

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"

namespace bpeforge::internal {

static_assert(simdjson::SIMDJSON_PADDING <= 64,
              "StreamCutter::kPadding must cover simdjson's padding");

bool HasJsonlName(absl::string_view path) {
  for (absl::string_view suffix : {".gz", ".zst", ".zstd", ".xz"}) {
    if (absl::ConsumeSuffix(&path, suffix)) break;
  }
  return absl::EndsWith(path, ".jsonl") || absl::EndsWith(path, ".ndjson") ||
         absl::EndsWith(path, ".json");
}

size_t NextRecordsEnd(absl::string_view text, size_t begin, size_t target) {
  const size_t from = begin + std::max<size_t>(target, 1) - 1;
  if (from >= text.size()) return text.size();
  const void* newline = memchr(text.data() + from, '\n', text.size() - from);
  return newline == nullptr ? text.size() : static_cast<const char*>(newline) - text.data() + 1;
}

struct JsonlParser::State {
  // The DOM parser, not On Demand: its entry points dispatch at run time to the best kernel
  // for the CPU, whereas On Demand is compiled for the build's target (SSE2 only, here).
  simdjson::dom::parser parser;
  std::string padded;      // a record too near the end of what may be read, with room after it
  std::string group_text;  // a group value that is not a string, as JSON text
};

JsonlParser::JsonlParser(std::string field)
    : field_(std::move(field)), state_(std::make_unique<State>()) {}

JsonlParser::JsonlParser(const JsonlOptions& options) : JsonlParser(options.FieldName()) {
  if (options.group_field.empty() || !options.keep) return;
  group_field_ = options.group_field;
  keep_ = options.keep;
  // As a JSON pointer escapes '~' and '/'.
  if (absl::StrContains(group_field_, '.')) {
    group_pointer_ = absl::StrCat(
        "/", absl::StrReplaceAll(group_field_, {{"~", "~0"}, {"/", "~1"}, {".", "/"}}));
  }
}

JsonlParser::~JsonlParser() = default;
JsonlParser::JsonlParser(JsonlParser&&) noexcept = default;

namespace {

// Why `record` is bad (`e`, or not an object when `e` is no error), in words a user can act on:
// a JSON file that is not JSON Lines (an array, an object over several lines) is named as such.
std::string Why(absl::string_view record, simdjson::error_code e, absl::string_view field) {
  const absl::string_view trimmed = absl::StripAsciiWhitespace(record);
  // As JSON, JSON Lines may not hold one; editors on Windows write it.
  if (absl::StartsWith(record, "\xEF\xBB\xBF")) {
    return "a byte order mark (U+FEFF) before the record, which JSON Lines may not hold";
  }
  if (absl::StartsWith(trimmed, "[")) {
    return "a JSON array, not an object: JSON Lines hold one object per line (a JSON file "
           "holding an array is not JSON Lines; `jq -c '.[]'` writes its objects so)";
  }
  if (trimmed == "{") {
    return "only \"{\": JSON Lines hold one whole object per line (a JSON file written over "
           "several lines is not JSON Lines; `jq -c .` writes each object on one line)";
  }
  if (!e) return "the line is JSON but not an object";
  switch (e) {
    case simdjson::UTF8_ERROR:
      return "invalid UTF-8";
    case simdjson::STRING_ERROR:
      return "a string with a bad escape (a \\u escape of a lone surrogate is not text)";
    case simdjson::UNESCAPED_CHARS:
      return "a string with an unescaped control character";
    case simdjson::NO_SUCH_FIELD:
      return absl::StrCat("field \"", field, "\" is missing");
    case simdjson::INCORRECT_TYPE:
      return absl::StrCat("field \"", field, "\" is not a string");
    default:
      return absl::StrCat("not valid JSON (", simdjson::error_message(e), ")");
  }
}

// The value of `field` in `object` (else at `pointer`, when given): a string as it is, another
// value as JSON text (kept in *text), nullopt where there is none.
std::optional<absl::string_view> GroupValue(const simdjson::dom::object& object,
                                            const std::string& field, const std::string& pointer,
                                            std::string* text) {
  simdjson::dom::element value;
  if (object[field].get(value) && (pointer.empty() || object.at_pointer(pointer).get(value))) {
    return std::nullopt;
  }
  std::string_view string;
  if (!value.get_string().get(string)) return absl::string_view(string.data(), string.size());
  *text = simdjson::to_string(value);
  return *text;
}

}  // namespace

std::optional<JsonlParser::BadRecord> JsonlParser::ForEachDocument(
    absl::string_view lines, size_t readable_after, uint64_t first_line, bool skip_bad,
    uint64_t* skipped, absl::FunctionRef<bool(absl::string_view, uint64_t)> document) {
  uint64_t line = first_line;
  size_t pos = 0;
  while (pos < lines.size()) {
    const char* end =
        static_cast<const char*>(memchr(lines.data() + pos, '\n', lines.size() - pos));
    const size_t stop = end == nullptr ? lines.size() : static_cast<size_t>(end - lines.data());
    absl::string_view record = lines.substr(pos, stop - pos);
    const uint64_t this_line = line++;
    pos = stop + 1;
    if (absl::StripAsciiWhitespace(record).empty()) continue;
    if (lines.size() - stop + readable_after < simdjson::SIMDJSON_PADDING) {
      state_->padded.assign(record.data(), record.size());
      state_->padded.resize(record.size() + simdjson::SIMDJSON_PADDING);
      record = absl::string_view(state_->padded.data(), record.size());
    }

    simdjson::dom::element root;
    simdjson::error_code e =
        state_->parser.parse(record.data(), record.size(), /*realloc_if_needed=*/false).get(root);
    simdjson::dom::object object;
    const bool not_object = !e && root.get_object().get(object);
    std::string_view text;
    if (!e && !not_object) e = object[field_].get_string().get(text);
    if (e || not_object) {
      if (!skip_bad) return BadRecord{this_line, Why(record, e, field_)};
      ++*skipped;
      continue;
    }
    if (keep_ && !keep_(GroupValue(object, group_field_, group_pointer_, &state_->group_text))) {
      continue;
    }
    if (!document(absl::string_view(text.data(), text.size()), this_line)) break;
  }
  return std::nullopt;
}

}  // namespace bpeforge::internal
