// Training against its plain specification: the merge loop's merges on arbitrary pre-token
// counts must be those of the slow reference trainer (tests/reference_trainer.cc), whether long
// words go through the position index or not; and every tokenizer file written from training's
// tree of tokens (TreeSpelling, as `bpeforge train` writes) must equal the one written from the
// spelled-out vocabulary (VocabSpelling, as SaveTokenizer writes).
//
// Input: byte 0 picks the number of merges (bits 2-7), the index (bit 0) and the id layout
// (bit 1); the rest is pre-tokens, one per line, each line adding one to its count.
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "absl/strings/str_split.h"
#include "core/formats/gpt2_files.h"
#include "core/formats/hf_tokenizer_json.h"
#include "core/formats/tiktoken_files.h"
#include "core/formats/token_spelling.h"
#include "core/internal/text_sink.h"
#include "core/train/merge_loop.h"
#include "core/train/trainer.h"
#include "core/train/vocab.h"
#include "fuzz/fuzz_util.h"
#include "tests/reference_trainer.h"

namespace {

using namespace bpeforge;            // NOLINT
using namespace bpeforge::internal;  // NOLINT

// Every file of a tokenizer directory but the manifest, as one string per writer.
std::vector<std::string> FilesOf(const TokenSpelling& tokens,
                                 const std::vector<std::string>& specials) {
  std::vector<std::string> files = {
      TextOf([&](TextSink& out) { WriteVocabJson(tokens, out); }),
      TextOf([&](TextSink& out) { WriteMergesTxt(tokens, out); }),
  };
  absl::StatusOr<TiktokenTables> tables = TiktokenTablesOf(tokens, specials);
  if (!tables.ok()) {
    files.push_back(tables.status().ToString());
    return files;
  }
  files.push_back(TextOf([&](TextSink& out) { WriteTiktokenRanks(*tables, tokens, out); }));
  files.push_back(
      TextOf([&](TextSink& out) { WriteTiktokenJson(*tables, tokens, Pattern::kGpt2, "", out); }));
  absl::Status hf;
  files.push_back(TextOf(
      [&](TextSink& out) { hf = WriteHfTokenizerJson(*tables, tokens, Pattern::kGpt2, "", out); }));
  files.push_back(hf.ToString());
  return files;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t max_merges = data[0] >> 2;
  const size_t min_indexed_length = (data[0] & 1) ? 2 : kIndexedWordLength;
  const IdLayout layout = (data[0] & 2) ? IdLayout::kHf : IdLayout::kBytesFirst;
  const absl::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);

  std::map<std::string, uint64_t> ordered;
  PreTokenCounts counts;
  for (absl::string_view word : absl::StrSplit(text, '\n')) {
    if (word.empty()) continue;
    ++ordered[std::string(word)];
    ++counts[std::string(word)];
  }
  const Merges want = testing::ReferenceMerges(ordered, max_merges);

  absl::StatusOr<AnyWordTable> words = MakeWordTable({&counts}, 256 + max_merges);
  if (!words.ok()) fuzz::Fail(words.status().ToString());
  const TokenTree tree = std::visit(
      [&](auto& table) {
        return LearnMergeTree(table, max_merges, nullptr, {}, nullptr, {}, min_indexed_length);
      },
      *words);
  const Merges merges = SpellMerges(tree);
  if (merges != want) {
    fuzz::Fail("merges differ from the reference trainer's: " + std::to_string(merges.size()) +
               " against " + std::to_string(want.size()));
  }

  const std::vector<std::string> specials = {"<|endoftext|>"};
  const Vocab vocab = BuildVocab(specials, merges, layout);
  const std::vector<std::string> spelled = FilesOf(VocabSpelling(vocab, merges), specials);
  const std::vector<std::string> from_tree =
      FilesOf(TreeSpelling(tree, specials, layout), specials);
  for (size_t i = 0; i < spelled.size() || i < from_tree.size(); ++i) {
    if (i >= spelled.size() || i >= from_tree.size() || spelled[i] != from_tree[i]) {
      fuzz::Fail("file " + std::to_string(i) + " written from the tree differs");
    }
  }
  return 0;
}
