#include "parallel/parallel_encode.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/utf8.h"
#include "parallel/chunker.h"
#include "parallel/mapped_file.h"

namespace bpeforge {
namespace {

struct Chunk {
  size_t file = 0;
  size_t begin = 0, end = 0;
  std::optional<size_t> bad_byte;  // offset in the file of the first invalid UTF-8 byte
  std::vector<TokenId> ids;
};

}  // namespace

absl::StatusOr<EncodeFilesStats> EncodeFiles(
    const Tokenizer& tokenizer, const std::vector<std::string>& paths,
    const EncodeFilesOptions& options,
    absl::FunctionRef<absl::Status(absl::Span<const TokenId>)> sink) {
  std::vector<MappedFile> files;
  uint64_t total = 0;
  for (const std::string& path : paths) {
    absl::StatusOr<MappedFile> file = MappedFile::Open(path);
    if (!file.ok()) return file.status();
    total += file->data().size();
    files.push_back(*std::move(file));
  }

  EncodeFilesStats stats;
  absl::Status status;              // touched by the last stage only
  std::atomic<bool> failed{false};  // tells the first stage to stop
  tbb::enumerable_thread_specific<EncodeCache> caches;
  size_t file = 0;
  size_t pos = 0;  // in the current file
  const size_t target = std::max<size_t>(options.chunk_bytes, 1);
  // A few chunks per worker keep everyone busy while the writer waits for the oldest one.
  const size_t live = 2 * static_cast<size_t>(tbb::this_task_arena::max_concurrency()) + 1;

  tbb::parallel_pipeline(
      live,
      tbb::make_filter<
          void, Chunk*>(tbb::filter_mode::serial_in_order, [&](tbb::flow_control& fc) -> Chunk* {
        while (!failed && file < files.size()) {
          // The next cut is found only now, as FindChunkBounds would place it: computing
          // all of them up front would touch (and keep mapped) a page of every chunk.
          const absl::string_view text = files[file].data();
          if (pos < text.size()) {
            size_t end = std::min(pos + target, text.size());
            while (end < text.size() && !IsSafeCut(text, end, tokenizer.special_tokens())) ++end;
            auto* chunk = new Chunk;
            chunk->file = file;
            chunk->begin = pos;
            chunk->end = end;
            pos = end;
            return chunk;
          }
          ++file;
          pos = 0;
        }
        fc.stop();
        return nullptr;
      }) & tbb::make_filter<Chunk*, Chunk*>(tbb::filter_mode::parallel, [&](Chunk* chunk) {
        absl::string_view text =
            files[chunk->file].data().substr(chunk->begin, chunk->end - chunk->begin);
        if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
          chunk->bad_byte = chunk->begin + *bad;
        } else {
          chunk->ids.reserve(text.size() / 3);
          tokenizer.Encode(text, &caches.local(), &chunk->ids);
        }
        return chunk;
      }) & tbb::make_filter<Chunk*, void>(tbb::filter_mode::serial_in_order, [&](Chunk* chunk) {
        std::unique_ptr<Chunk> owned(chunk);
        if (!status.ok()) return;
        if (chunk->bad_byte.has_value()) {
          status = absl::InvalidArgumentError(absl::StrCat(
              paths[chunk->file], ": invalid UTF-8 at byte offset ", *chunk->bad_byte));
          failed = true;
          return;
        }
        status = sink(chunk->ids);
        if (!status.ok()) failed = true;
        files[chunk->file].Release(chunk->begin, chunk->end - chunk->begin);
        stats.bytes += chunk->end - chunk->begin;
        stats.tokens += chunk->ids.size();
        if (options.progress) options.progress(stats.bytes, total);
      }));
  if (!status.ok()) return status;
  return stats;
}

}  // namespace bpeforge
