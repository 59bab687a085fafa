// JSON Lines records from arbitrary bytes: never a crash; every document handed out is valid
// UTF-8; a bad record is reported on a line that exists; and without bad records, failing and
// skipping modes give the same documents.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/fuzz_util.h"
#include "input/jsonl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bpeforge::internal;  // NOLINT
  static JsonlParser parser("text");
  std::string lines(reinterpret_cast<const char*>(data), size);
  const size_t count = std::count(lines.begin(), lines.end(), '\n') + 1;
  lines.reserve(lines.size() + 64);  // the padding simdjson reads past the end

  std::vector<std::string> skipping, failing;
  uint64_t skipped = 0, unused = 0;
  // The first pass reads records in place, up to the padding; the second copies the records
  // near the end (nothing past `lines` may be read), and must find the same.
  parser.ForEachDocument(lines, 64, 7, /*skip_bad=*/true, &skipped,
                         [&](absl::string_view doc, uint64_t line) {
                           if (FindInvalidUtf8(doc).has_value())
                             fuzz::Fail("a document is not UTF-8");
                           if (line < 7 || line >= 7 + count) fuzz::Fail("a line out of range");
                           skipping.emplace_back(doc);
                           return true;
                         });
  std::optional<JsonlParser::BadRecord> bad = parser.ForEachDocument(
      lines, 0, 7, /*skip_bad=*/false, &unused, [&](absl::string_view doc, uint64_t) {
        failing.emplace_back(doc);
        return true;
      });
  if (bad.has_value()) {
    if (bad->line < 7 || bad->line >= 7 + count) fuzz::Fail(absl::StrCat("bad line ", bad->line));
    if (skipped == 0) fuzz::Fail("a bad record only when failing: " + bad->why);
  } else if (skipped != 0 || failing != skipping) {
    fuzz::Fail("skipping and failing modes disagree");
  }
  return 0;
}
