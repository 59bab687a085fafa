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
#include "parallel/byte_source.h"
#include "parallel/chunker.h"
#include "parallel/mapped_file.h"

namespace bpeforge::internal {
namespace {

struct Chunk {
  size_t file = 0;
  size_t begin = 0, end = 0;
  std::optional<size_t> bad_byte;  // offset in the file of the first invalid UTF-8 byte
  std::string pattern_error;       // a custom regex that Boost.Regex gave up on
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
    absl::StatusOr<bool> streamed = IsStreamedInput(path);
    if (!streamed.ok()) return streamed.status();
    if (*streamed) {
      return absl::InvalidArgumentError(absl::StrCat(
          path == "-" ? "standard input" : path,
          path == "-" ? " cannot be encoded yet" : " is compressed, which encode does not read yet",
          ": encode takes plain text files (train and count take both)"));
    }
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

  // Stage 1, in order: the next chunk. Its end is found only now: computing every cut up front
  // (FindChunkBounds) would touch, and keep mapped, a page of every chunk.
  auto next_chunk = [&](tbb::flow_control& fc) -> Chunk* {
    while (!failed && file < files.size()) {
      const absl::string_view text = files[file].data();
      if (pos < text.size()) {
        auto* chunk = new Chunk;
        chunk->file = file;
        chunk->begin = pos;
        chunk->end = NextChunkEnd(text, pos, tokenizer.special_tokens(), target,
                                  CutsAfterLetters(tokenizer.pattern()));
        pos = chunk->end;
        return chunk;
      }
      ++file;
      pos = 0;
    }
    fc.stop();
    return nullptr;
  };
  // Stage 2, in parallel: validate and encode.
  auto encode = [&](Chunk* chunk) {
    absl::string_view text =
        files[chunk->file].data().substr(chunk->begin, chunk->end - chunk->begin);
    if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
      chunk->bad_byte = chunk->begin + *bad;
    } else {
      chunk->ids.reserve(text.size() / 3);
      try {
        tokenizer.Encode(text, &caches.local(), &chunk->ids);
      } catch (const std::exception& e) {
        chunk->pattern_error = e.what();
      }
    }
    return chunk;
  };
  // Stage 3, in order: write the ids and release the chunk's pages.
  auto write = [&](Chunk* chunk) {
    std::unique_ptr<Chunk> owned(chunk);
    if (!status.ok()) return;
    if (chunk->bad_byte.has_value()) {
      status = absl::InvalidArgumentError(
          absl::StrCat(paths[chunk->file], ": invalid UTF-8 at byte offset ", *chunk->bad_byte));
      failed = true;
      return;
    }
    if (!chunk->pattern_error.empty()) {
      status = absl::InvalidArgumentError(
          absl::StrCat(paths[chunk->file], ": the pattern could not be matched (",
                       chunk->pattern_error, ") in the text at byte offset ", chunk->begin));
      failed = true;
      return;
    }
    status = sink(chunk->ids);
    if (!status.ok()) failed = true;
    files[chunk->file].Release(chunk->begin, chunk->end - chunk->begin);
    stats.bytes += chunk->end - chunk->begin;
    stats.tokens += chunk->ids.size();
    if (options.progress) options.progress(stats.bytes, total);
  };
  tbb::parallel_pipeline(
      live, tbb::make_filter<void, Chunk*>(tbb::filter_mode::serial_in_order, next_chunk) &
                tbb::make_filter<Chunk*, Chunk*>(tbb::filter_mode::parallel, encode) &
                tbb::make_filter<Chunk*, void>(tbb::filter_mode::serial_in_order, write));
  if (!status.ok()) return status;
  for (const MappedFile& f : files) {
    if (absl::Status s = f.CheckUnchanged(); !s.ok()) return s;
  }
  return stats;
}

}  // namespace bpeforge::internal
