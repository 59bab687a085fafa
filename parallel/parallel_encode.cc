#include "parallel/parallel_encode.h"

#include <sys/stat.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <memory>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/internal/file_status.h"
#include "core/internal/status_macros.h"
#include "core/internal/utf8.h"
#include "core/pretokenize/safe_cut.h"
#include "input/byte_source.h"
#include "input/mapped_file.h"
#include "input/stream_cutter.h"

namespace bpeforge::internal {
namespace {

// One input: a mapped text file or a stream, opened when its turn comes and closed once its
// last chunk is written (so that thousands of shards are never open, or mapped, at once).
struct Input {
  std::string path;
  MappedFile mapped;  // unset for streams
  uint64_t size = 0;  // of a mapped file, as stat gives it
  bool opened = false;
  bool streamed = false;
  bool jsonl = false;
  std::unique_ptr<ByteSource> source;
  std::unique_ptr<StreamCutter> cutter;
};

struct Chunk {
  size_t file = 0;
  uint64_t begin = 0, end = 0;  // in the (decompressed) file
  std::string owned;            // a streamed piece's bytes; mapped chunks are views
  uint64_t first_line = 0;      // streamed JSON Lines: the line of owned[0]
  bool starts_file = false;
  bool ends_file = false;    // the last chunk of a mapped file: it is closed once this is written
  uint64_t stored_done = 0;  // stored bytes read up to this chunk, for progress
  // Filled by the encoder:
  absl::Status error;
  std::vector<TokenId> ids;
  bool leading_separator = false;  // ids[0] is the separator before this chunk's first document
  uint64_t documents = 0, text_bytes = 0, skipped = 0;
};

}  // namespace

absl::StatusOr<EncodeFilesStats> EncodeFiles(
    const BpeCodec& tokenizer, const std::vector<std::string>& paths,
    const EncodeFilesOptions& options,
    absl::FunctionRef<absl::Status(absl::Span<const TokenId>)> sink) {
  std::vector<Input> inputs(paths.size());
  uint64_t total = 0;
  bool total_known = true;
  for (size_t i = 0; i < paths.size(); ++i) {
    Input& in = inputs[i];
    in.path = paths[i];
    in.jsonl = options.jsonl.IsJsonl(paths[i]);
    absl::StatusOr<bool> streamed = IsStreamedInput(paths[i], in.jsonl);
    if (!streamed.ok()) return streamed.status();
    in.streamed = *streamed;
    if (in.streamed) {
      struct stat st;
      if (paths[i] == "-") {
        total_known = false;
      } else if (stat(paths[i].c_str(), &st) != 0) {
        return ErrnoStatus(errno, "cannot read", paths[i]);
      } else {
        total += static_cast<uint64_t>(st.st_size);
      }
      continue;
    }
    if (struct stat st; stat(paths[i].c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      in.size = static_cast<uint64_t>(st.st_size);  // mapped when its turn comes
    } else {
      // A pipe or a /proc file named as a file (or a missing one, reported now): read whole.
      absl::StatusOr<MappedFile> file = MappedFile::Open(paths[i]);
      if (!file.ok()) return file.status();
      in.mapped = *std::move(file);
      in.opened = true;
      in.size = in.mapped.data().size();
    }
    total += in.size;
  }
  if (!total_known) total = 0;

  const SpecialTokens& specials = tokenizer.special_tokens();
  const Pattern pattern = tokenizer.pattern();
  const size_t target = std::max<size_t>(options.chunk_bytes, 1);
  EncodeFilesStats stats;
  absl::Status status;              // touched by the last stage only
  std::atomic<bool> failed{false};  // tells the first stage to stop
  tbb::enumerable_thread_specific<EncodeCache> caches;
  tbb::enumerable_thread_specific<JsonlParser> parsers(options.jsonl.FieldName());
  size_t file = 0;
  uint64_t pos = 0;          // in the current mapped file
  uint64_t stored_done = 0;  // stored bytes of the files before the current one
  bool documents_written = false;
  // A few chunks per worker keep everyone busy while the writer waits for the oldest one.
  const size_t live = 2 * static_cast<size_t>(tbb::this_task_arena::max_concurrency()) + 1;

  // Stage 1, in order: the next chunk. A mapped file's cuts are found only now: computing every
  // cut up front (FindChunkBounds) would touch, and keep mapped, a page of every chunk.
  auto next_chunk = [&](tbb::flow_control& fc) -> Chunk* {
    while (!failed && file < inputs.size() &&
           !(options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed))) {
      Input& in = inputs[file];
      auto chunk = std::make_unique<Chunk>();
      chunk->file = file;
      if (!in.streamed) {
        if (!in.opened) {
          absl::StatusOr<MappedFile> mapped = MappedFile::Open(in.path, in.size);
          if (!mapped.ok()) {
            chunk->error = mapped.status();
            failed = true;
            return chunk.release();
          }
          in.mapped = *std::move(mapped);
          in.opened = true;
        }
        const absl::string_view text = in.mapped.data();
        if (pos < text.size()) {
          chunk->begin = pos;
          chunk->starts_file = pos == 0;
          chunk->end = in.jsonl ? NextRecordsEnd(text, pos, target)
                                : NextChunkEnd(text, pos, specials, target, pattern);
          chunk->ends_file = chunk->end == text.size();
          in.mapped.WillNeed(chunk->end, target + 1);
          if (!in.jsonl) {
            stats.input.largest_piece_bytes =
                std::max<uint64_t>(stats.input.largest_piece_bytes, chunk->end - chunk->begin);
          }
          pos = chunk->end;
          chunk->stored_done = stored_done + pos;
          if (chunk->ends_file) {  // the last stage closes the file; the next call goes on
            stored_done += text.size();
            stats.input.stored_bytes += text.size();
            stats.input.decompressed_bytes += text.size();
            ++file;
            pos = 0;
          }
          return chunk.release();
        }
        in.mapped = MappedFile();  // empty: no chunk to close it
      } else {
        if (in.cutter == nullptr) {
          absl::StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(in.path);
          if (!source.ok()) {
            chunk->error = source.status();
            failed = true;
            return chunk.release();
          }
          in.source = *std::move(source);
          in.cutter = std::make_unique<StreamCutter>(
              *in.source, in.jsonl ? StreamCutter::Mode::kLines : StreamCutter::Mode::kSafeCuts,
              target, &specials, pattern);
        }
        absl::StatusOr<std::optional<StreamCutter::Piece>> piece = in.cutter->Next();
        if (!piece.ok()) {
          chunk->error = piece.status();
          failed = true;
          return chunk.release();
        }
        if (piece->has_value()) {
          StreamCutter::Piece& p = **piece;
          chunk->begin = p.offset;
          chunk->end = p.offset + p.text.size();
          chunk->starts_file = p.offset == 0;
          chunk->first_line = p.first_line;
          if (!in.jsonl) {
            stats.input.largest_piece_bytes =
                std::max<uint64_t>(stats.input.largest_piece_bytes, p.text.size());
          }
          chunk->owned = std::move(p.text);
          chunk->stored_done = stored_done + in.cutter->consumed();
          return chunk.release();
        }
        stored_done += in.cutter->consumed();
        stats.input.stored_bytes += in.cutter->consumed();
        stats.input.decompressed_bytes += in.cutter->bytes();
        stats.input.largest_window_bytes =
            std::max(stats.input.largest_window_bytes, in.source->window_bytes());
        in.cutter.reset();
        in.source.reset();
      }
      ++file;
      pos = 0;
    }
    fc.stop();
    return nullptr;
  };

  // Stage 2, in parallel: validate and encode.
  auto encode = [&](Chunk* chunk) {
    if (!chunk->error.ok()) return chunk;
    const Input& in = inputs[chunk->file];
    auto fail = [&](absl::string_view what) {
      chunk->error = absl::InvalidArgumentError(absl::StrCat(in.path, what));
    };
    // `where` says where the text is (" on line 7"), called only on failure.
    auto encode_text = [&](absl::string_view text, absl::FunctionRef<std::string()> where) {
      try {
        EncodeCache& cache = caches.local();
        cache.set_stop(options.cancel);
        tokenizer.Encode(text, &cache, &chunk->ids);
        return true;
      } catch (const std::exception& e) {  // a custom regex too complex for Boost on this text
        fail(absl::StrCat(": the pattern could not be matched (", e.what(), ") in the text",
                          where()));
        return false;
      }
    };
    if (in.jsonl) {
      // A mapped chunk's line numbers count from 1 and are made the file's on failure only.
      const absl::string_view lines =
          in.streamed ? absl::string_view(chunk->owned)
                      : in.mapped.data().substr(chunk->begin, chunk->end - chunk->begin);
      auto in_file = [&](uint64_t line) -> uint64_t {
        if (in.streamed) return line;
        return line + std::count(in.mapped.data().data(), lines.data(), '\n');
      };
      std::optional<JsonlParser::BadRecord> bad = parsers.local().ForEachDocument(
          lines, in.streamed ? StreamCutter::kPadding : in.mapped.data().size() - chunk->end,
          in.streamed ? chunk->first_line : 1, options.jsonl.skip_bad_records, &chunk->skipped,
          [&](absl::string_view document, uint64_t line) {
            if (options.separator.has_value()) {
              if (chunk->documents == 0) chunk->leading_separator = true;
              chunk->ids.push_back(*options.separator);
            }
            ++chunk->documents;
            chunk->text_bytes += document.size();
            return encode_text(document, [&] { return absl::StrCat(" on line ", in_file(line)); });
          });
      if (bad.has_value()) fail(absl::StrCat(":", in_file(bad->line), ": ", bad->why));
      return chunk;
    }
    const absl::string_view text =
        in.streamed ? absl::string_view(chunk->owned)
                    : in.mapped.data().substr(chunk->begin, chunk->end - chunk->begin);
    if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
      fail(absl::StrCat(": invalid UTF-8 at byte offset ", chunk->begin + *bad,
                        in.streamed && in.source->compression() != Compression::kNone
                            ? " of its decompressed text"
                            : ""));
      return chunk;
    }
    chunk->ids.reserve(text.size() / 3 + 1);
    if (chunk->starts_file) {
      chunk->documents = 1;
      if (options.separator.has_value()) {
        chunk->leading_separator = true;
        chunk->ids.push_back(*options.separator);
      }
    }
    chunk->text_bytes = text.size();
    encode_text(text, [&] { return absl::StrCat(" at byte offset ", chunk->begin); });
    return chunk;
  };

  // Stage 3, in order: write the ids and release the chunk's pages; after a file's last chunk,
  // close it.
  auto write = [&](Chunk* chunk) {
    std::unique_ptr<Chunk> owned(chunk);
    if (!status.ok()) return;
    Input& in = inputs[chunk->file];
    // First: a file cut short reads as zeros past its new end, which fail as JSON.
    if (chunk->ends_file) {
      if (absl::Status s = in.mapped.CheckUnchanged(); !s.ok()) chunk->error = s;
    }
    if (!chunk->error.ok()) {
      status = chunk->error;
      failed = true;
      return;
    }
    absl::Span<const TokenId> ids = chunk->ids;
    // The separator goes between documents: none before the first.
    if (chunk->leading_separator && !documents_written) ids.remove_prefix(1);
    documents_written = documents_written || chunk->documents > 0;
    status = sink(ids);
    if (!status.ok()) failed = true;
    if (!in.streamed) in.mapped.Release(chunk->begin, chunk->end - chunk->begin);
    if (chunk->ends_file) in.mapped = MappedFile();
    stats.bytes += chunk->text_bytes;
    stats.tokens += ids.size();
    stats.input.documents += chunk->documents;
    stats.input.skipped_records += chunk->skipped;
    if (options.progress) options.progress(chunk->stored_done, total);
  };
  tbb::parallel_pipeline(
      live, tbb::make_filter<void, Chunk*>(tbb::filter_mode::serial_in_order, next_chunk) &
                tbb::make_filter<Chunk*, Chunk*>(tbb::filter_mode::parallel, encode) &
                tbb::make_filter<Chunk*, void>(tbb::filter_mode::serial_in_order, write));
  if (options.cancel != nullptr && options.cancel->load()) {
    return absl::CancelledError("encoding was cancelled");
  }
  // First: a file cut short reads as zeros past its new end, which fail as JSON.
  for (const Input& in : inputs) {
    if (in.streamed) continue;
    BPEFORGE_RETURN_IF_ERROR(in.mapped.CheckUnchanged());  // those left open by a failure
  }
  if (!status.ok()) return status;
  return stats;
}

}  // namespace bpeforge::internal
