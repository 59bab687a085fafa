// GPT-2's file formats: vocab.json (visible token string -> id) and merges.txt (one merge
// per line, "A B" in visible form). See byte_unicode.h for the visible form.
#ifndef BPEFORGE_CORE_FORMATS_GPT2_FILES_H_
#define BPEFORGE_CORE_FORMATS_GPT2_FILES_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/formats/token_spelling.h"
#include "core/internal/text_sink.h"
#include "core/internal/types.h"

namespace bpeforge::internal {

// vocab.json text with every id in increasing order. Two ids with equal bytes (possible when
// two different merges build the same string) both appear; JSON readers keep the last.
void WriteVocabJson(const TokenSpelling& tokens, TextSink& out);
// merges.txt text, creation order, no header.
void WriteMergesTxt(const TokenSpelling& tokens, TextSink& out);

// Reads vocab.json. Ids must be distinct and dense (0..n-1). Errors name the file.
absl::StatusOr<Vocab> ReadVocabJson(const std::string& path);
// Reads vocab.json as it is: (token bytes, id) per key; a key written twice counts once.
absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> ReadVocabJsonEntries(
    const std::string& path);
// The same from text; errors name `path`.
absl::StatusOr<std::vector<std::pair<std::string, TokenId>>> ParseVocabJsonEntries(
    absl::string_view text, absl::string_view path);
// Reads merges.txt; a leading "#version" line is skipped. Errors name the file and line.
absl::StatusOr<Merges> ReadMergesTxt(const std::string& path);
// The same a line at a time, calling add(left, right) with each merge's bytes, so that a file
// of tokens of megabytes is never held whole; add's error stops it, named with the line.
absl::Status ForEachMerge(
    const std::string& path,
    absl::FunctionRef<absl::Status(absl::string_view left, absl::string_view right)> add);
// Reads vocab.json as it comes (never whole, nor as a JSON tree), calling entry(bytes, id) for
// each key in file order, a key written twice each time; entry's error stops it.
absl::Status ForEachVocabJsonEntry(
    const std::string& path,
    absl::FunctionRef<absl::Status(absl::string_view bytes, TokenId id)> entry);
absl::StatusOr<Merges> ParseMergesTxt(absl::string_view text, absl::string_view path);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_FORMATS_GPT2_FILES_H_
