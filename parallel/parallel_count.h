// Parallel pre-token counting over memory-mapped input files.
#ifndef BPEFORGE_PARALLEL_PARALLEL_COUNT_H_
#define BPEFORGE_PARALLEL_PARALLEL_COUNT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/pretoken_counts.h"
#include "core/pretokenizer.h"

namespace bpeforge::internal {

struct CountOptions {
  std::vector<std::string> special_tokens;
  Pattern pattern = Pattern::kGpt2;
  std::string custom_regex;      // for Pattern::kCustom
  size_t chunk_bytes = 4 << 20;  // results do not depend on it
  size_t shards = 64;            // results do not depend on it
  // Called from worker threads, at most a few times a second, with bytes done so far.
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Once it reads true, the remaining chunks are skipped and CountFiles returns Cancelled.
  const std::atomic<bool>* cancel = nullptr;
};

struct ShardedCounts {
  std::vector<PreTokenCounts> shards;  // a pre-token lives in exactly one shard
  uint64_t bytes = 0;
  uint64_t pretokens = 0;
  uint64_t distinct() const;
  std::vector<const PreTokenCounts*> views() const;
};

// Counts the pre-tokens of every file (each file a separate document) on the current
// oneTBB arena. Invalid UTF-8 fails with the file and byte offset of the first bad byte.
absl::StatusOr<ShardedCounts> CountFiles(const std::vector<std::string>& paths,
                                         const CountOptions& options);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_PARALLEL_PARALLEL_COUNT_H_
