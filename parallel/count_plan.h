// Planning CountPreTokensInFiles' work (parallel_count.h) before and while it counts: which inputs
// are mapped and which streamed, which belong to this process's share, and the chunks of the mapped
// ones, a batch of files at a time.
//
//   absl::StatusOr<InputPlan> plan = PlanInputs(paths, options);
//   while (plan->next_mapped < plan->mapped.size()) {
//     ChunkBatch batch;
//     BPEFORGE_RETURN_IF_ERROR(PlanChunks(paths, specials, options, &*plan, &batch));
//     ...  // count batch.chunks, then check and unmap batch.files
//   }
#ifndef BPEFORGE_PARALLEL_COUNT_PLAN_H_
#define BPEFORGE_PARALLEL_COUNT_PLAN_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/pretokenize/special_tokens.h"
#include "input/mapped_file.h"
#include "parallel/parallel_count.h"

namespace bpeforge::internal {

// What CountPreTokensInFiles reads and how, settled before any counting: plain text and JSON Lines
// in regular files are mapped and cut, a batch of files at a time; standard input, compressed files
// and pipes are read as a stream and cut as the bytes arrive (StreamCutter), one file at a time.
// Other files that cannot be mapped (pipes named as files, /proc files) are read whole while
// planning.
struct InputPlan {
  std::vector<MappedFile>
      files;                    // by path; those read whole, the rest mapped when their batch comes
  std::vector<uint64_t> sizes;  // of the mapped files, as stat gives them
  std::vector<char> jsonl;      // whether paths[f] is JSON Lines
  std::vector<size_t> mapped;   // the mapped files, in order
  std::vector<size_t> streamed;  // the streamed files of this process's share, in order
  uint64_t total = 0;            // bytes to read: mapped text, compressed files; 0 when unknown
  // With shares, a mapped chunk belongs to the share its first byte falls in, counting the
  // bytes of all mapped files in order; a streamed file, which cannot be split, to share
  // (its index among the streamed ones) mod shares.
  size_t share = 0, shares = 1;
  uint64_t mapped_total = 0;
  // The same arithmetic in every process, so every chunk has exactly one share.
  size_t ShareOf(uint64_t at) const {
    const double fraction = static_cast<double>(at) / static_cast<double>(mapped_total);
    return std::min(static_cast<size_t>(fraction * shares), shares - 1);
  }

  // Where PlanChunks goes on: the next of `mapped`, and the bytes of those before it.
  size_t next_mapped = 0;
  uint64_t mapped_before = 0;
};

absl::StatusOr<InputPlan> PlanInputs(const std::vector<std::string>& paths,
                                     const CountOptions& options);

// A piece of a mapped file, cut at a safe point at each end.
struct Chunk {
  size_t file;
  size_t begin, end;
};

// The chunks of a batch of mapped files.
struct ChunkBatch {
  std::vector<size_t> files;     // mapped now, to be checked and unmapped once counted
  std::vector<Chunk> chunks;     // of this process's share, in input order
  uint64_t empty_documents = 0;  // empty text files, a document each (of share 0)
};

// Plans the next batch: up to a bounded number of mapped files from plan->next_mapped on, so
// that a corpus of thousands of shards never has them all mapped at once. A file holds chunks
// of this process's share only if its bytes reach into the share; others are not opened.
absl::Status PlanChunks(const std::vector<std::string>& paths, const SpecialTokens& specials,
                        const CountOptions& options, InputPlan* plan, ChunkBatch* batch);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_PARALLEL_COUNT_PLAN_H_
