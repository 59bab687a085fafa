#include "parallel/parallel_count.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/functional/function_ref.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "core/internal/status_macros.h"
#include "core/internal/utf8.h"
#include "input/byte_source.h"
#include "input/mapped_file.h"
#include "input/stream_cutter.h"
#include "parallel/count_plan.h"

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

// Counts the planned inputs into per-thread tables (CountMapped, CountStreamed), then combines
// them (Combine). The first error in input order wins, whichever worker met it.
class FileCounter {
 public:
  FileCounter(const std::vector<std::string>& paths, const CountOptions& options,
              const SpecialTokens& specials, const PreTokenizer& pretokenizer, InputPlan plan)
      : paths_(paths),
        options_(options),
        specials_(specials),
        pretokenizer_(pretokenizer),
        plan_(std::move(plan)),
        workers_([&] {
          return Worker{{}, nullptr, std::vector<uint64_t>(specials.tokens().size())};
        }),
        parsers_(options.jsonl) {}

  // The mapped files, a batch at a time: however many files there are, a bounded number is
  // mapped at once (and no descriptor is held: MappedFile closes it).
  absl::Status CountMapped();
  // The streamed files, one at a time, each read by one thread and counted by all.
  absl::Status CountStreamed();
  // What stopped the counting: cancellation, or the first error in input order.
  absl::Status Failure() const;
  // The figures, and the workers' tables: left as they are (per_worker) or combined into
  // shards.
  ShardedCounts Combine();

 private:
  // Each worker's table, and the cache of recent pre-tokens in front of it (made at its
  // first text, kept across texts: JSON Lines documents are many and short).
  struct Worker {
    CountingTable table;
    std::unique_ptr<CountingTable::RecentCache> recent;
    std::vector<uint64_t> special_counts;
  };

  // Counts the chunks of one batch in parallel; `order_base` is the first one's place among
  // all chunks.
  void CountChunks(const std::vector<Chunk>& chunks, uint64_t order_base);
  // Counts one piece of text into `worker`, adding its pre-tokens to `*counted` (`order` ranks
  // it among all pieces, for the first error). `where` says where the text is (" on line 7"),
  // called only on failure. This runs once per document, so the shared totals are added to
  // once per piece: an atomic add per document, shared by the workers, is contended when the
  // documents are many and short.
  bool Count(absl::string_view text, Worker& worker, uint64_t* counted, uint64_t order, size_t file,
             absl::FunctionRef<std::string()> where);
  bool CountText(absl::string_view text, uint64_t order, size_t file, uint64_t offset,
                 absl::string_view decompressed);
  // Counts the documents of whole JSON Lines records (see ForEachDocument for
  // `readable_after`). `in_file` turns the line numbers from `first_line` on into the file's:
  // a mapped chunk's first line is not known (it is counted on failure only).
  bool CountRecords(absl::string_view lines, size_t readable_after, uint64_t first_line,
                    uint64_t order, size_t file, absl::FunctionRef<uint64_t(uint64_t)> in_file);
  void ReportProgress(uint64_t now_done);
  bool Cancelled() const {
    return options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed);
  }
  CountingTable::RecentCache* RecentOf(Worker& worker) {
    if (worker.recent == nullptr) {
      worker.recent = std::make_unique<CountingTable::RecentCache>(worker.table);
    }
    return worker.recent.get();
  }

  const std::vector<std::string>& paths_;
  const CountOptions& options_;
  const SpecialTokens& specials_;
  const PreTokenizer& pretokenizer_;
  InputPlan plan_;
  tbb::enumerable_thread_specific<Worker> workers_;
  tbb::enumerable_thread_specific<JsonlParser> parsers_;
  std::atomic<uint64_t> pretokens_{0}, done_{0}, documents_{0}, skipped_{0}, document_bytes_{0};
  std::atomic<uint64_t> largest_piece_{0};  // of the mapped chunks and streamed pieces of text
  FirstError error_;
  std::mutex progress_mu_;
  std::chrono::steady_clock::time_point last_report_ = std::chrono::steady_clock::now();
  uint64_t order_ = 0;  // the next chunk's or piece's place among all, for the first error
  uint64_t mapped_bytes_ = 0, mapped_jsonl_bytes_ = 0;
  uint64_t streamed_bytes_ = 0, decompressed_bytes_ = 0, largest_window_ = 0;
};

absl::Status FileCounter::CountMapped() {
  while (plan_.next_mapped < plan_.mapped.size() && !Cancelled() && !error_.has()) {
    ChunkBatch batch;
    BPEFORGE_RETURN_IF_ERROR(PlanChunks(paths_, specials_, options_, &plan_, &batch));
    documents_ += batch.empty_documents;
    CountChunks(batch.chunks, order_);
    order_ += batch.chunks.size();
    // A mapped text file is a document of the share that holds its first byte; JSON Lines
    // documents were counted as read.
    for (const Chunk& chunk : batch.chunks) {
      if (plan_.jsonl[chunk.file]) {
        mapped_jsonl_bytes_ += chunk.end - chunk.begin;
        continue;
      }
      mapped_bytes_ += chunk.end - chunk.begin;
      if (chunk.begin == 0) ++documents_;
    }
    // First: a file cut short reads as zeros past its new end, which fail as UTF-8.
    for (size_t f : batch.files) {
      BPEFORGE_RETURN_IF_ERROR(plan_.files[f].CheckUnchanged());
      plan_.files[f] = MappedFile();
    }
  }
  return absl::OkStatus();
}

void FileCounter::CountChunks(const std::vector<Chunk>& chunks, uint64_t order_base) {
  for (const Chunk& chunk : chunks) {
    if (!plan_.jsonl[chunk.file]) RaiseTo(largest_piece_, chunk.end - chunk.begin);
  }
  tbb::parallel_for(size_t{0}, chunks.size(), [&](size_t c) {
    if (Cancelled()) return;
    const Chunk& chunk = chunks[c];
    const MappedFile& file = plan_.files[chunk.file];
    if (c + 1 < chunks.size()) {
      const Chunk& next = chunks[c + 1];
      plan_.files[next.file].WillNeed(next.begin, next.end - next.begin);
    }
    const uint64_t order = order_base + c;
    absl::string_view text = file.data().substr(chunk.begin, chunk.end - chunk.begin);
    if (plan_.jsonl[chunk.file]) {
      auto in_file = [&](uint64_t line) {
        return line + std::count(file.data().data(), text.data(), '\n');
      };
      if (!CountRecords(text, file.data().size() - chunk.end, 1, order, chunk.file, in_file)) {
        return;
      }
    } else if (!CountText(text, order, chunk.file, chunk.begin, "")) {
      return;
    }
    file.Release(chunk.begin, chunk.end - chunk.begin);
    ReportProgress(done_ += text.size());
  });
}

absl::Status FileCounter::CountStreamed() {
  // Streamed pieces rank after the mapped chunks, then by file and offset.
  for (size_t f : plan_.streamed) {
    if (Cancelled() || error_.has()) break;
    absl::StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(paths_[f]);
    if (!source.ok()) return source.status();
    const std::string decompressed =
        (*source)->compression() == Compression::kNone ? "" : " of its decompressed text";
    const bool jsonl = plan_.jsonl[f];
    StreamCutter cutter(**source,
                        jsonl ? StreamCutter::Mode::kLines : StreamCutter::Mode::kSafeCuts,
                        options_.chunk_bytes, &specials_, options_.pattern);
    const uint64_t done_before = done_.load();
    auto process = [&](const StreamCutter::Piece& piece) {
      if (Cancelled() || error_.has()) return false;
      const uint64_t piece_order = order_ + piece.offset;
      if (!jsonl) {
        RaiseTo(largest_piece_, piece.text.size());
        return CountText(piece.text, piece_order, f, piece.offset, decompressed);
      }
      return CountRecords(piece.text, StreamCutter::kPadding, piece.first_line, piece_order, f,
                          [](uint64_t line) { return line; });
    };
    if (!jsonl) ++documents_;
    absl::Status read = ProcessStream(
        cutter, process, [&] { ReportProgress(done_ = done_before + cutter.consumed()); });
    if (!read.ok()) return read;
    largest_window_ = std::max(largest_window_, (*source)->window_bytes());
    order_ += cutter.bytes() + 1;
    done_ = done_before + cutter.consumed();
    decompressed_bytes_ += cutter.bytes();
    if (!jsonl) streamed_bytes_ += cutter.bytes();
  }
  return absl::OkStatus();
}

absl::Status FileCounter::Failure() const {
  if (Cancelled()) return absl::CancelledError("counting was cancelled");
  if (error_.has()) {
    return absl::InvalidArgumentError(absl::StrCat(paths_[error_.file()], error_.what()));
  }
  return absl::OkStatus();
}

ShardedCounts FileCounter::Combine() {
  const uint64_t stored_bytes = done_.load();
  if (options_.progress)
    options_.progress(stored_bytes, plan_.total, documents_.load());  // the end
  ShardedCounts out;
  out.bytes = streamed_bytes_ + document_bytes_ + mapped_bytes_;
  out.stored_bytes = stored_bytes;
  out.decompressed_bytes = decompressed_bytes_ + mapped_bytes_ + mapped_jsonl_bytes_;
  out.documents = documents_;
  out.skipped_records = skipped_;
  out.pretokens = pretokens_;
  out.largest_piece = largest_piece_;
  out.largest_window = largest_window_;
  out.special_counts.assign(specials_.tokens().size(), 0);
  for (Worker& worker : workers_) {
    worker.recent.reset();  // its counts into the table
    for (size_t s = 0; s < out.special_counts.size(); ++s) {
      out.special_counts[s] += worker.special_counts[s];
    }
  }
  if (options_.per_worker) {
    for (Worker& worker : workers_) out.tables.push_back(std::move(worker.table));
    return out;
  }
  // Combine without a global lock: each thread's map is split by hash into per-shard
  // lists, then every shard sums its lists. Shards are disjoint, so they fill in parallel.
  const size_t num_shards = std::max<size_t>(options_.shards, 1);
  out.shards.resize(num_shards);
  using Entry = std::pair<std::string, uint64_t>;  // short keys stay in the SSO buffer
  std::vector<const CountingTable*> locals;
  for (const Worker& worker : workers_) locals.push_back(&worker.table);
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

bool FileCounter::Count(absl::string_view text, Worker& worker, uint64_t* counted, uint64_t order,
                        size_t file, absl::FunctionRef<std::string()> where) {
  try {
    *counted += options_.pretokenize_only
                    ? ScanPreTokens(text, specials_, pretokenizer_)
                    : CountPreTokens(text, specials_, pretokenizer_, RecentOf(worker),
                                     worker.special_counts.data(), options_.cancel);
  } catch (const std::exception& e) {  // a custom regex too complex for Boost on this text
    error_.Report(
        order, file,
        absl::StrCat(": the pattern could not be matched (", e.what(), ") in the text", where()));
    return false;
  }
  return true;
}

bool FileCounter::CountText(absl::string_view text, uint64_t order, size_t file, uint64_t offset,
                            absl::string_view decompressed) {
  if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
    error_.Report(order, file,
                  absl::StrCat(": invalid UTF-8 at byte offset ", offset + *bad, decompressed));
    return false;
  }
  uint64_t counted = 0;
  const bool ok = Count(text, workers_.local(), &counted, order, file,
                        [&] { return absl::StrCat(" at byte offset ", offset); });
  pretokens_ += counted;
  return ok;
}

bool FileCounter::CountRecords(absl::string_view lines, size_t readable_after, uint64_t first_line,
                               uint64_t order, size_t file,
                               absl::FunctionRef<uint64_t(uint64_t)> in_file) {
  uint64_t skipped_here = 0, documents_here = 0, bytes_here = 0, counted = 0;
  Worker& worker = workers_.local();
  std::optional<JsonlParser::BadRecord> bad = parsers_.local().ForEachDocument(
      lines, readable_after, first_line, options_.jsonl.skip_bad_records, &skipped_here,
      [&](absl::string_view document, uint64_t line) {
        ++documents_here;
        bytes_here += document.size();
        return Count(document, worker, &counted, order, file,
                     [&] { return absl::StrCat(" on line ", in_file(line)); });
      });
  pretokens_ += counted;
  documents_ += documents_here;
  skipped_ += skipped_here;
  document_bytes_ += bytes_here;
  if (bad.has_value()) {
    error_.Report(order, file, absl::StrCat(":", in_file(bad->line), ": ", bad->why));
    return false;
  }
  return true;
}

void FileCounter::ReportProgress(uint64_t now_done) {
  if (!options_.progress) return;
  std::lock_guard<std::mutex> lock(progress_mu_);
  auto now = std::chrono::steady_clock::now();
  if (now - last_report_ > std::chrono::milliseconds(500)) {
    last_report_ = now;
    options_.progress(now_done, plan_.total, documents_.load());
  }
}

}  // namespace

absl::StatusOr<ShardedCounts> CountPreTokensInFiles(const std::vector<std::string>& paths,
                                                    const CountOptions& options) {
  const SpecialTokens specials(options.special_tokens);
  absl::StatusOr<std::unique_ptr<PreTokenizer>> pretokenizer =
      MakeAnyPreTokenizer(options.pattern, options.custom_regex);
  if (!pretokenizer.ok()) return pretokenizer.status();
  absl::StatusOr<InputPlan> plan = PlanInputs(paths, options);
  if (!plan.ok()) return plan.status();
  FileCounter counter(paths, options, specials, **pretokenizer, *std::move(plan));
  BPEFORGE_RETURN_IF_ERROR(counter.CountMapped());
  BPEFORGE_RETURN_IF_ERROR(counter.CountStreamed());
  BPEFORGE_RETURN_IF_ERROR(counter.Failure());
  return counter.Combine();
}

}  // namespace bpeforge::internal
