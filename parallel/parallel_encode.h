// Encoding files in parallel chunks, delivered in input order, with a bounded number of chunks
// in flight so that memory does not grow with the input. Plain text files are memory-mapped;
// standard input, compressed files and JSON Lines are read as streams (StreamCutter).
#ifndef BPEFORGE_PARALLEL_PARALLEL_ENCODE_H_
#define BPEFORGE_PARALLEL_PARALLEL_ENCODE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "bpeforge/types.h"
#include "core/encode/bpe_codec.h"
#include "input/jsonl.h"

namespace bpeforge::internal {

struct EncodeFilesOptions {
  // Chunks are cut only at safe cuts (core/pretokenize/safe_cut.h), so ids do not depend on this.
  size_t chunk_bytes = 1 << 20;
  JsonlOptions jsonl;  // which inputs are JSON Lines
  // Goes between two documents (files, JSON Lines records) when set.
  std::optional<TokenId> separator;
  // Called in order, from one thread at a time, after each chunk, with bytes done so far (as
  // stored: compressed bytes for compressed files; total is 0 when unknown).
  std::function<void(uint64_t done, uint64_t total)> progress;
  // Once it reads true, the work stops soon, even inside a chunk, and EncodeFiles returns
  // Cancelled.
  const std::atomic<bool>* cancel = nullptr;
};

struct EncodeFilesStats {
  uint64_t bytes = 0;  // of text (for JSON Lines, of the documents)
  uint64_t tokens = 0;
  InputStats input;
};

// Encodes the files one after another as one stream of ids (each file, and each JSON Lines
// record, on its own: no token spans two) on the current oneTBB arena. `sink` gets the ids chunk by
// chunk in input order, from one thread at a time; its first error stops the work and is returned.
// Invalid UTF-8 fails with the file and byte offset of the first bad byte, and a bad JSON Lines
// record with the file and line, before any id of the chunk holding it reaches the sink.
absl::StatusOr<EncodeFilesStats> EncodeFiles(
    const BpeCodec& tokenizer, const std::vector<std::string>& paths,
    const EncodeFilesOptions& options,
    absl::FunctionRef<absl::Status(absl::Span<const TokenId>)> sink);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_PARALLEL_PARALLEL_ENCODE_H_
