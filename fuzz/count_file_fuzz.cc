// Count files from arbitrary bytes: reading one never crashes, never allocates what the file
// cannot hold, and what it accepts is safe to train from: its counts, added up with another
// file's (count --merge, train --counts), stay within what the trainer counts in 64 bits, so
// training on them (under UBSan, which reports a signed overflow) ends cleanly.
#include <cstdint>
#include <string>
#include <vector>

#include "core/formats/counts_file.h"
#include "core/train/trainer.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bpeforge;            // NOLINT
  using namespace bpeforge::internal;  // NOLINT
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<CountsFileView> view = ReadCountsFile(bytes, "fuzz.counts");
  if (!view.ok()) return 0;
  uint64_t entries = 0, pretoken_bytes = 0;
  ForEachCount(view->entries, [&](absl::string_view pretoken, uint64_t n) {
    ++entries;
    pretoken_bytes += n * pretoken.size();
  });
  if (entries != view->distinct || pretoken_bytes != view->pretoken_bytes ||
      pretoken_bytes > kMaxCountTotal) {
    fuzz::Fail("the entries disagree with what the reader checked");
  }
  // The file added to itself, as two files merged, when the sum stays within bounds (the
  // reader of several files refuses the rest).
  PreTokenCounts counts;
  CountFileMerger merger({view->entries, view->entries});
  absl::string_view pretoken;
  uint64_t n = 0;
  const bool twice = pretoken_bytes <= kMaxCountTotal / 2;
  size_t longest = 0;
  while (merger.Next(&pretoken, &n)) {
    counts[std::string(pretoken)] = twice ? n : n / 2;
    longest = std::max(longest, pretoken.size());
  }
  if (counts.size() != view->distinct) fuzz::Fail("merging a file with itself lost entries");
  if (counts.size() > 2000 || longest > 64) return 0;  // keep each run short
  TrainerConfig config{300, view->header.special_tokens, IdLayout::kBytesFirst, {}};
  TrainFromCounts({&counts}, config).IgnoreError();
  return 0;
}
