// Parallel pre-token counting over memory-mapped input files.
#ifndef BPEFORGE_PARALLEL_PARALLEL_COUNT_H_
#define BPEFORGE_PARALLEL_PARALLEL_COUNT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/count/pretoken_counts.h"
#include "core/pretokenize/pretokenizer.h"
#include "input/jsonl.h"

namespace bpeforge::internal {

struct CountOptions {
  std::vector<std::string> special_tokens;
  Pattern pattern = Pattern::kGpt2;
  std::string custom_regex;      // for Pattern::kCustom
  size_t chunk_bytes = 4 << 20;  // results do not depend on it
  size_t shards = 64;            // results do not depend on it
  JsonlOptions jsonl;            // which inputs are JSON Lines, and their field
  // Count only share `share` of `shares` (one process of several): the shares of 0 ..
  // shares - 1 partition the input exactly, so their counts add up to the whole's.
  size_t share = 0, shares = 1;
  // Called from worker threads, at most a few times a second, with bytes done so far (as
  // stored: compressed bytes of compressed files) and documents seen.
  std::function<void(uint64_t done, uint64_t total, uint64_t documents)> progress;
  // A benchmark's yardstick: read and pre-tokenize everything, count nothing (the shards stay
  // empty; `pretokens` and the byte counts are still filled in).
  bool pretokenize_only = false;
  // Leave the counts in the workers' own tables (ShardedCounts::tables) rather than combine
  // them into shards: for a caller that combines them its own way (training, into its word
  // table, without the shards' copy of every pre-token).
  bool per_worker = false;
  // Once it reads true, the remaining chunks are skipped and CountPreTokensInFiles returns
  // Cancelled.
  const std::atomic<bool>* cancel = nullptr;
};

struct ShardedCounts {
  std::vector<PreTokenCounts> shards;  // a pre-token lives in exactly one shard
  // With CountOptions::per_worker, instead of shards: one table per worker (a pre-token may be
  // in several; its count is the sum).
  std::vector<CountingTable> tables;
  uint64_t bytes = 0;               // of text counted (for JSON Lines, of the documents)
  uint64_t stored_bytes = 0;        // read from the inputs as they are stored
  uint64_t decompressed_bytes = 0;  // the same, decompressed
  uint64_t documents = 0;           // a file of text is one; a JSON Lines record is one
  uint64_t skipped_records = 0;
  uint64_t pretokens = 0;
  // How often each special token (of SpecialTokens(special_tokens).tokens()) was cut out.
  std::vector<uint64_t> special_counts;
  uint64_t largest_piece = 0;   // InputStats::largest_piece_bytes
  uint64_t largest_window = 0;  // InputStats::largest_window_bytes
  uint64_t distinct() const;
  InputStats input_stats() const {
    return {stored_bytes,    decompressed_bytes, documents,
            skipped_records, largest_piece,      largest_window};
  }
  std::vector<const PreTokenCounts*> views() const;
};

// Counts the pre-tokens of every file (each file, and each JSON Lines record, a separate
// document) on the current oneTBB arena. Invalid UTF-8 fails with the file and byte offset of
// the first bad byte; a bad JSON Lines record with the file and line.
absl::StatusOr<ShardedCounts> CountPreTokensInFiles(const std::vector<std::string>& paths,
                                                    const CountOptions& options);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_PARALLEL_PARALLEL_COUNT_H_
