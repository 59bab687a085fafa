#include "parallel/parallel_count.h"

#include <sys/stat.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "core/internal/file_status.h"
#include "core/internal/status_macros.h"
#include "core/internal/utf8.h"
#include "core/pretokenize/safe_cut.h"
#include "input/byte_source.h"
#include "input/mapped_file.h"
#include "input/stream_cutter.h"

namespace bpeforge::internal {

uint64_t ShardedCounts::distinct() const {
  uint64_t n = 0;
  for (const PreTokenCounts& s : shards) n += s.size();
  return n;
}

std::vector<const PreTokenCounts*> ShardedCounts::views() const {
  std::vector<const PreTokenCounts*> v;
  for (const PreTokenCounts& s : shards) v.push_back(&s);
  return v;
}

namespace {

struct Chunk {
  size_t file;
  size_t begin, end;
};

// Mapped files are read this many at a time (at most), so that a corpus of thousands of shards
// never has them all mapped at once.
constexpr size_t kFilesAtOnce = 128;

// FindChunkBounds for a mapped file, which leaves none of the file mapped. Looking at a cut
// touches its page, and the kernel maps the cached pages around it, on some kernels the whole
// large folio, which for all the cuts of a large corpus add up to a large peak RSS. The folios
// around each cut are therefore unmapped as soon as it is found. And
// the kernel reads ahead of no fault meanwhile: with its read-ahead on, a file not in the page
// cache was read whole here, on one thread, before any counting began.
// JSON Lines are cut after the first '\n' at or past `target` bytes.
std::vector<size_t> FindMappedChunkBounds(const MappedFile& file, bool jsonl,
                                          const SpecialTokens& specials, size_t target,
                                          Pattern pattern) {
  constexpr size_t kFolio = size_t{4} << 20;  // at least the largest folio, a multiple of a page
  const absl::string_view text = file.data();
  std::vector<size_t> bounds = {0};
  file.ReadAhead(false);
  do {
    const size_t end = jsonl ? NextRecordsEnd(text, bounds.back(), target)
                             : NextChunkEnd(text, bounds.back(), specials, target, pattern);
    // Every folio from the chunk's start to the cut's: the search looked only between them.
    const size_t from = bounds.back() / kFolio * kFolio;
    file.Release(from, std::min(text.size(), (end / kFolio + 1) * kFolio) - from);
    bounds.push_back(end);
  } while (bounds.back() < text.size());
  file.ReadAhead(true);
  return bounds;
}

// Tracks the earliest error seen by any worker (earliest in input order, so that the error
// reported does not depend on which thread got there first).
class FirstError {
 public:
  // `what` follows the file's name: ": invalid UTF-8 at byte offset 12", ":7: ...".
  void Report(uint64_t order, size_t file, std::string what) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!has_ || order < order_) {
      has_ = true;
      order_ = order;
      file_ = file;
      what_ = std::move(what);
    }
  }
  bool has() const { return has_; }
  size_t file() const { return file_; }
  const std::string& what() const { return what_; }

 private:
  std::mutex mu_;
  std::atomic<bool> has_{false};  // read by workers without the lock
  uint64_t order_ = 0;
  size_t file_ = 0;
  std::string what_;
};

// Raises `max` to `value` if it is lower (from any thread).
void RaiseTo(std::atomic<uint64_t>& max, uint64_t value) {
  uint64_t seen = max.load();
  while (seen < value && !max.compare_exchange_weak(seen, value)) {
  }
}

// Reads `cutter` to its end and hands its pieces to `process` on oneTBB workers while the
// next bytes are read (and decompressed) by one serial stage. Stops early when `process`
// returns false; `on_read` hears of progress from the serial stage.
absl::Status ProcessStream(StreamCutter& cutter,
                           const std::function<bool(const StreamCutter::Piece&)>& process,
                           const std::function<void()>& on_read) {
  absl::Status status;
  std::atomic<bool> stop{false};
  tbb::parallel_pipeline(2 * static_cast<size_t>(tbb::this_task_arena::max_concurrency()) + 2,
                         tbb::make_filter<void, StreamCutter::Piece*>(
                             tbb::filter_mode::serial_in_order,
                             [&](tbb::flow_control& fc) -> StreamCutter::Piece* {
                               if (!stop.load()) {
                                 absl::StatusOr<std::optional<StreamCutter::Piece>> piece =
                                     cutter.Next();
                                 on_read();
                                 if (!piece.ok()) {
                                   status = piece.status();
                                 } else if (piece->has_value()) {
                                   return new StreamCutter::Piece(**std::move(piece));
                                 }
                               }
                               fc.stop();
                               return nullptr;
                             }) &
                             tbb::make_filter<StreamCutter::Piece*, void>(
                                 tbb::filter_mode::parallel, [&](StreamCutter::Piece* piece) {
                                   std::unique_ptr<StreamCutter::Piece> owned(piece);
                                   if (!process(*piece)) stop = true;
                                 }));
  return status;
}

}  // namespace

absl::StatusOr<ShardedCounts> CountFiles(const std::vector<std::string>& paths,
                                         const CountOptions& options) {
  const SpecialTokens specials(options.special_tokens);
  absl::StatusOr<std::unique_ptr<PreTokenizer>> made =
      MakeAnyPreTokenizer(options.pattern, options.custom_regex);
  if (!made.ok()) return made.status();
  const std::unique_ptr<PreTokenizer> pretokenizer = *std::move(made);

  // Plain text and JSON Lines in regular files are mapped and cut, a batch of files at a time;
  // standard input, compressed files and pipes are read as a stream and cut as the bytes arrive
  // (StreamCutter), one file at a time. Both feed the same per-thread maps. Other files that
  // cannot be mapped (pipes named as files, /proc files) are read whole now.
  std::vector<MappedFile> files(paths.size());
  std::vector<uint64_t> sizes(paths.size());  // of the mapped files, as stat gives them
  std::vector<char> jsonl(paths.size());      // whether paths[f] is JSON Lines
  std::vector<size_t> mapped, streamed;
  uint64_t total = 0;  // bytes to read: mapped text, compressed files; 0 when unknown
  bool total_known = true;
  for (size_t f = 0; f < paths.size(); ++f) {
    jsonl[f] = options.jsonl.IsJsonl(paths[f]);
    absl::StatusOr<bool> stream = IsStreamedInput(paths[f], jsonl[f]);
    if (!stream.ok()) return stream.status();
    struct stat st;
    if (*stream) {
      streamed.push_back(f);
      if (paths[f] == "-") {
        total_known = false;
      } else if (stat(paths[f].c_str(), &st) != 0) {
        return ErrnoStatus(errno, "cannot read", paths[f]);  // now, not after the others
      } else {
        total += static_cast<uint64_t>(st.st_size);
      }
      continue;
    }
    mapped.push_back(f);
    if (stat(paths[f].c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      sizes[f] = static_cast<uint64_t>(st.st_size);  // mapped when its batch comes
      continue;
    }
    absl::StatusOr<MappedFile> file = MappedFile::Open(paths[f]);
    if (!file.ok()) return file.status();
    files[f] = *std::move(file);
    sizes[f] = files[f].data().size();
  }
  // With shares, a mapped chunk belongs to the share its first byte falls in, counting the
  // bytes of all mapped files in order; a streamed file, which cannot be split, to share
  // (its index among the streamed ones) mod shares.
  const size_t shares = std::max<size_t>(options.shares, 1);
  uint64_t mapped_total = 0;
  for (size_t f : mapped) mapped_total += sizes[f];
  // The same arithmetic in every process, so every chunk has exactly one share.
  auto share_of = [&](uint64_t at) {
    const double fraction = static_cast<double>(at) / static_cast<double>(mapped_total);
    return std::min(static_cast<size_t>(fraction * shares), shares - 1);
  };
  total += shares == 1 ? mapped_total : mapped_total / shares;
  if (shares > 1) {
    std::vector<size_t> mine;
    for (size_t k = 0; k < streamed.size(); ++k) {
      if (k % shares == options.share) mine.push_back(streamed[k]);
    }
    streamed.swap(mine);
  }
  if (!total_known) total = 0;

  // Each worker's table, and the cache of recent pre-tokens in front of it (made at its
  // first text, kept across texts: JSON Lines documents are many and short).
  struct Worker {
    CountingTable table;
    std::unique_ptr<CountingTable::RecentCache> recent;
    std::vector<uint64_t> special_counts;
  };
  tbb::enumerable_thread_specific<Worker> workers([&] {
    return Worker{{}, nullptr, std::vector<uint64_t>(specials.tokens().size())};
  });
  auto recent_of = [](Worker& worker) {
    if (worker.recent == nullptr) {
      worker.recent = std::make_unique<CountingTable::RecentCache>(worker.table);
    }
    return worker.recent.get();
  };
  tbb::enumerable_thread_specific<JsonlParser> parsers(options.jsonl);
  std::atomic<uint64_t> pretokens{0}, done{0}, documents{0}, skipped{0}, document_bytes{0};
  std::atomic<uint64_t> largest_piece{0};  // of the mapped chunks and streamed pieces of text
  FirstError error;
  std::mutex progress_mu;
  auto last_report = std::chrono::steady_clock::now();
  auto report_progress = [&](uint64_t now_done) {
    if (!options.progress) return;
    std::lock_guard<std::mutex> lock(progress_mu);
    auto now = std::chrono::steady_clock::now();
    if (now - last_report > std::chrono::milliseconds(500)) {
      last_report = now;
      options.progress(now_done, total, documents.load());
    }
  };
  // Counts one piece of text into `worker`, adding its pre-tokens to `*counted` (`order` ranks
  // it among all pieces, for the first error). `where` says where the text is (" on line 7"),
  // called only on failure. This runs once per document, so the shared totals are added to
  // once per piece: an atomic add per document, shared by the workers, took 8% of the samples
  // of counting 3 million short JSON Lines records.
  auto count = [&](absl::string_view text, Worker& worker, uint64_t* counted, uint64_t order,
                   size_t file, absl::FunctionRef<std::string()> where) {
    try {
      *counted += options.pretokenize_only
                      ? ScanPreTokens(text, specials, *pretokenizer)
                      : CountPreTokens(text, specials, *pretokenizer, recent_of(worker),
                                       worker.special_counts.data(), options.cancel);
    } catch (const std::exception& e) {  // a custom regex too complex for Boost on this text
      error.Report(
          order, file,
          absl::StrCat(": the pattern could not be matched (", e.what(), ") in the text", where()));
      return false;
    }
    return true;
  };
  auto count_text = [&](absl::string_view text, uint64_t order, size_t file, uint64_t offset,
                        absl::string_view decompressed) {
    if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
      error.Report(order, file,
                   absl::StrCat(": invalid UTF-8 at byte offset ", offset + *bad, decompressed));
      return false;
    }
    uint64_t counted = 0;
    const bool ok = count(text, workers.local(), &counted, order, file,
                          [&] { return absl::StrCat(" at byte offset ", offset); });
    pretokens += counted;
    return ok;
  };
  // Counts the documents of whole JSON Lines records (see ForEachDocument for
  // `readable_after`). `in_file` turns the line numbers from `first_line` on into the file's:
  // a mapped chunk's first line is not known (it is counted on failure only).
  auto count_records = [&](absl::string_view lines, size_t readable_after, uint64_t first_line,
                           uint64_t order, size_t file,
                           absl::FunctionRef<uint64_t(uint64_t)> in_file) {
    uint64_t skipped_here = 0, documents_here = 0, bytes_here = 0, counted = 0;
    Worker& worker = workers.local();
    std::optional<JsonlParser::BadRecord> bad = parsers.local().ForEachDocument(
        lines, readable_after, first_line, options.jsonl.skip_bad_records, &skipped_here,
        [&](absl::string_view document, uint64_t line) {
          ++documents_here;
          bytes_here += document.size();
          return count(document, worker, &counted, order, file,
                       [&] { return absl::StrCat(" on line ", in_file(line)); });
        });
    pretokens += counted;
    documents += documents_here;
    skipped += skipped_here;
    document_bytes += bytes_here;
    if (bad.has_value()) {
      error.Report(order, file, absl::StrCat(":", in_file(bad->line), ": ", bad->why));
      return false;
    }
    return true;
  };
  auto cancelled = [&] {
    return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed);
  };

  // The mapped files, a batch at a time: however many files there are, a bounded number is
  // mapped at once (and no descriptor is held: MappedFile closes it). A file holds chunks of
  // this process's share only if its bytes reach into the share; others are not opened.
  uint64_t order_base = 0;  // the first chunk's place among all chunks, for the first error
  uint64_t mapped_before = 0, mapped_bytes = 0, mapped_jsonl_bytes = 0;
  for (size_t next_file = 0; next_file < mapped.size() && !cancelled() && !error.has();) {
    std::vector<size_t> batch;
    std::vector<Chunk> chunks;
    for (; next_file < mapped.size() && batch.size() < kFilesAtOnce; ++next_file) {
      const size_t f = mapped[next_file];
      const uint64_t begin = mapped_before;
      mapped_before += sizes[f];
      if (sizes[f] == 0) {
        // An empty text file is a document of share 0.
        if (!jsonl[f] && options.share == 0) ++documents;
        continue;
      }
      if (shares > 1 &&
          (share_of(begin) > options.share || share_of(begin + sizes[f] - 1) < options.share)) {
        continue;
      }
      if (files[f].data().data() == nullptr) {
        absl::StatusOr<MappedFile> file = MappedFile::Open(paths[f], sizes[f]);
        if (!file.ok()) return file.status();
        files[f] = *std::move(file);
      }
      batch.push_back(f);
      const std::vector<size_t> bounds =
          FindMappedChunkBounds(files[f], jsonl[f], specials, options.chunk_bytes, options.pattern);
      for (size_t i = 0; i + 1 < bounds.size(); ++i) {
        if (bounds[i + 1] <= bounds[i]) continue;
        if (shares > 1 && share_of(begin + bounds[i]) != options.share) continue;
        chunks.push_back({f, bounds[i], bounds[i + 1]});
      }
    }
    for (const Chunk& chunk : chunks) {
      if (!jsonl[chunk.file]) RaiseTo(largest_piece, chunk.end - chunk.begin);
    }
    tbb::parallel_for(size_t{0}, chunks.size(), [&](size_t c) {
      if (cancelled()) return;
      const Chunk& chunk = chunks[c];
      const MappedFile& file = files[chunk.file];
      if (c + 1 < chunks.size()) {
        const Chunk& next = chunks[c + 1];
        files[next.file].WillNeed(next.begin, next.end - next.begin);
      }
      const uint64_t order = order_base + c;
      absl::string_view text = file.data().substr(chunk.begin, chunk.end - chunk.begin);
      if (jsonl[chunk.file]) {
        auto in_file = [&](uint64_t line) {
          return line + std::count(file.data().data(), text.data(), '\n');
        };
        if (!count_records(text, file.data().size() - chunk.end, 1, order, chunk.file, in_file)) {
          return;
        }
      } else if (!count_text(text, order, chunk.file, chunk.begin, "")) {
        return;
      }
      file.Release(chunk.begin, chunk.end - chunk.begin);
      report_progress(done += text.size());
    });
    order_base += chunks.size();
    // A mapped text file is a document of the share that holds its first byte; JSON Lines
    // documents were counted as read.
    for (const Chunk& chunk : chunks) {
      if (jsonl[chunk.file]) {
        mapped_jsonl_bytes += chunk.end - chunk.begin;
        continue;
      }
      mapped_bytes += chunk.end - chunk.begin;
      if (chunk.begin == 0) ++documents;
    }
    // First: a file cut short reads as zeros past its new end, which fail as UTF-8.
    for (size_t f : batch) {
      BPEFORGE_RETURN_IF_ERROR(files[f].CheckUnchanged());
      files[f] = MappedFile();
    }
  }

  // Streamed pieces rank after the mapped chunks, then by file and offset.
  uint64_t order = order_base;
  uint64_t streamed_bytes = 0, decompressed_bytes = 0, stored_bytes = 0, largest_window = 0;
  for (size_t f : streamed) {
    if (cancelled() || error.has()) break;
    absl::StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(paths[f]);
    if (!source.ok()) return source.status();
    const std::string decompressed =
        (*source)->compression() == Compression::kNone ? "" : " of its decompressed text";
    StreamCutter cutter(**source,
                        jsonl[f] ? StreamCutter::Mode::kLines : StreamCutter::Mode::kSafeCuts,
                        options.chunk_bytes, &specials, options.pattern);
    const uint64_t done_before = done.load();
    auto process = [&](const StreamCutter::Piece& piece) {
      if (cancelled() || error.has()) return false;
      const uint64_t piece_order = order + piece.offset;
      if (!jsonl[f]) {
        RaiseTo(largest_piece, piece.text.size());
        return count_text(piece.text, piece_order, f, piece.offset, decompressed);
      }
      return count_records(piece.text, StreamCutter::kPadding, piece.first_line, piece_order, f,
                           [](uint64_t line) { return line; });
    };
    if (!jsonl[f]) ++documents;
    absl::Status read = ProcessStream(
        cutter, process, [&] { report_progress(done = done_before + cutter.consumed()); });
    if (!read.ok()) return read;
    largest_window = std::max(largest_window, (*source)->window_bytes());
    order += cutter.bytes() + 1;
    done = done_before + cutter.consumed();
    decompressed_bytes += cutter.bytes();
    if (!jsonl[f]) streamed_bytes += cutter.bytes();
  }
  if (cancelled()) return absl::CancelledError("counting was cancelled");
  if (error.has()) {
    return absl::InvalidArgumentError(absl::StrCat(paths[error.file()], error.what()));
  }
  stored_bytes = done.load();
  if (options.progress) options.progress(stored_bytes, total, documents.load());  // the end
  const uint64_t text_bytes = streamed_bytes + document_bytes + mapped_bytes;
  decompressed_bytes += mapped_bytes + mapped_jsonl_bytes;

  ShardedCounts out;
  out.bytes = text_bytes;
  out.stored_bytes = stored_bytes;
  out.decompressed_bytes = decompressed_bytes;
  out.documents = documents;
  out.skipped_records = skipped;
  out.pretokens = pretokens;
  out.largest_piece = largest_piece;
  out.largest_window = largest_window;
  out.special_counts.assign(specials.tokens().size(), 0);
  for (Worker& worker : workers) {
    worker.recent.reset();  // its counts into the table
    for (size_t s = 0; s < out.special_counts.size(); ++s) {
      out.special_counts[s] += worker.special_counts[s];
    }
  }
  if (options.per_worker) {
    for (Worker& worker : workers) out.tables.push_back(std::move(worker.table));
    return out;
  }
  // Combine without a global lock: each thread's map is split by hash into per-shard
  // lists, then every shard sums its lists. Shards are disjoint, so they fill in parallel.
  const size_t num_shards = std::max<size_t>(options.shards, 1);
  out.shards.resize(num_shards);
  using Entry = std::pair<std::string, uint64_t>;  // short keys stay in the SSO buffer
  std::vector<const CountingTable*> locals;
  for (const Worker& worker : workers) locals.push_back(&worker.table);
  std::vector<std::vector<std::vector<Entry>>> lists(locals.size(),
                                                     std::vector<std::vector<Entry>>(num_shards));
  tbb::parallel_for(size_t{0}, locals.size(), [&](size_t t) {
    const absl::Hash<absl::string_view> hash;
    locals[t]->ForEach([&](absl::string_view word, uint64_t n) {
      lists[t][hash(word) % num_shards].emplace_back(std::string(word), n);
    });
  });
  tbb::parallel_for(size_t{0}, num_shards, [&](size_t s) {
    PreTokenCounts& shard = out.shards[s];
    for (size_t t = 0; t < locals.size(); ++t) {
      for (auto& [word, n] : lists[t][s]) shard[std::move(word)] += n;
    }
  });
  return out;
}

}  // namespace bpeforge::internal
