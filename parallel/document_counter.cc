#include "parallel/document_counter.h"

#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/count/pretoken_counts.h"
#include "core/internal/utf8.h"
#include "parallel/train.h"

namespace bpeforge::internal {

// A worker's table and the cache of recent pre-tokens in front of it, kept across pieces (the
// documents are many and often short), as in CountPreTokensInFiles.
struct DocumentCounter::Worker {
  CountingTable table;
  std::unique_ptr<CountingTable::RecentCache> recent;
  CountingTable::RecentCache* Recent() {
    if (recent == nullptr) recent = std::make_unique<CountingTable::RecentCache>(table);
    return recent.get();
  }
};

DocumentCounter::DocumentCounter(const CountOptions& options)
    : options_(options),
      specials_(options.special_tokens),
      workers_(std::make_unique<tbb::enumerable_thread_specific<Worker>>()) {}

absl::StatusOr<std::unique_ptr<DocumentCounter>> DocumentCounter::Start(const CountOptions& options,
                                                                        int threads) {
  std::unique_ptr<DocumentCounter> counter(new DocumentCounter(options));
  absl::StatusOr<std::unique_ptr<PreTokenizer>> made =
      MakeAnyPreTokenizer(options.pattern, options.custom_regex);
  if (!made.ok()) return made.status();
  counter->pretokenizer_ = *std::move(made);
  const int used = ThreadsToUse(threads);
  counter->thread_ = std::thread([c = counter.get(), used] { c->Run(used); });
  return counter;
}

DocumentCounter::~DocumentCounter() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    if (error_.ok()) error_ = absl::CancelledError("the document counter was dropped");
    failed_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  DropBatches();
}

bool DocumentCounter::Stopping() const {
  return failed_.load(std::memory_order_relaxed) ||
         (options_.cancel != nullptr && options_.cancel->load(std::memory_order_relaxed));
}

void DocumentCounter::Run(int threads) {
  tbb::task_arena arena(threads);
  arena.execute([&] {
    try {
      tbb::parallel_pipeline(
          2 * static_cast<size_t>(threads) + 2,
          tbb::make_filter<void, Piece*>(tbb::filter_mode::serial_in_order,
                                         [&](tbb::flow_control& fc) -> Piece* {
                                           Piece* piece = NextPiece();
                                           if (piece == nullptr) fc.stop();
                                           return piece;
                                         }) &
              tbb::make_filter<Piece*, void>(tbb::filter_mode::parallel, [&](Piece* piece) {
                std::unique_ptr<Piece> owned(piece);
                if (!Stopping()) Count(*piece);
              }));
    } catch (const std::exception& e) {  // std::bad_alloc, most likely
      Fail(0, absl::ResourceExhaustedError(absl::StrCat("counting failed: ", e.what())));
    }
  });
  // A batch queued after the pipeline stopped (on a failure) is never taken: Add must not wait
  // for it.
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  DropBatches();
  changed_.notify_all();
}

DocumentCounter::Piece* DocumentCounter::NextPiece() {
  std::unique_lock<std::mutex> lock(mu_);
  while (current_ == nullptr || next_document_ == current_->ends.size()) {
    current_ = nullptr;
    // Woken by Add, Finish and the destructor; the cancel flag is looked at every 50 ms.
    changed_.wait_for(lock, std::chrono::milliseconds(50),
                      [&] { return !queue_.empty() || closed_ || Stopping(); });
    if (Stopping()) return nullptr;
    if (!queue_.empty()) {
      current_ = std::move(queue_.front());
      queue_.pop_front();
      next_document_ = 0;
      changed_.notify_all();  // room for Add
    } else if (closed_) {
      return nullptr;
    }
  }
  // Whole documents up to chunk_bytes (at least one): a long document is one piece.
  const Batch& batch = *current_;
  const size_t begin = next_document_;
  const size_t start = begin == 0 ? 0 : batch.ends[begin - 1];
  size_t end = begin + 1;
  while (end < batch.ends.size() && batch.ends[end] - start <= options_.chunk_bytes) ++end;
  next_document_ = end;
  return new Piece{current_, begin, end};
}

void DocumentCounter::Count(const Piece& piece) {
  Worker& worker = workers_->local();
  uint64_t pretokens = 0, bytes = 0, largest = 0;
  for (size_t i = piece.begin; i < piece.end; ++i) {
    const absl::string_view document = piece.batch->Document(i);
    const uint64_t index = piece.batch->first + i;
    if (std::optional<size_t> bad = FindInvalidUtf8(document)) {
      Fail(index, absl::InvalidArgumentError(
                      absl::StrCat("document ", index, ": invalid UTF-8 at byte offset ", *bad)));
      return;
    }
    try {
      pretokens += CountPreTokens(document, specials_, *pretokenizer_, worker.Recent());
    } catch (const std::exception& e) {  // a custom regex too complex for Boost on this text
      Fail(index, absl::InvalidArgumentError(absl::StrCat(
                      "document ", index, ": the pattern could not be matched (", e.what(), ")")));
      return;
    }
    bytes += document.size();
    largest = std::max<uint64_t>(largest, document.size());
  }
  pretokens_ += pretokens;
  bytes_ += bytes;
  documents_ += piece.end - piece.begin;
  uint64_t seen = largest_.load();
  while (seen < largest && !largest_.compare_exchange_weak(seen, largest)) {
  }
  ReportProgress();
}

void DocumentCounter::ReportProgress() {
  if (!options_.progress) return;
  std::lock_guard<std::mutex> lock(progress_mu_);
  const auto now = std::chrono::steady_clock::now();
  if (now - last_progress_ < std::chrono::milliseconds(200)) return;
  last_progress_ = now;
  options_.progress(bytes(), 0, documents());
}

void DocumentCounter::Fail(uint64_t document, absl::Status status) {
  std::lock_guard<std::mutex> lock(mu_);
  if (error_.ok() || document < error_at_) {
    error_ = std::move(status);
    error_at_ = document;
  }
  failed_ = true;
  changed_.notify_all();
}

void DocumentCounter::Recycle::operator()(Batch* batch) const {
  std::unique_ptr<Batch> owned(batch);
  std::lock_guard<std::mutex> lock(counter->pool_mu_);
  if (counter->pool_.size() < kQueued + 2) counter->pool_.push_back(std::move(owned));
}

std::shared_ptr<DocumentCounter::Batch> DocumentCounter::FreshBatch() {
  std::unique_ptr<Batch> batch;
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!pool_.empty()) {
      batch = std::move(pool_.back());
      pool_.pop_back();
    }
  }
  if (batch == nullptr) batch = std::make_unique<Batch>();
  batch->text.clear();
  batch->ends.clear();
  return std::shared_ptr<Batch>(batch.release(), Recycle{this});
}

void DocumentCounter::DropBatches() {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.clear();
  current_ = nullptr;
}

absl::StatusOr<bool> DocumentCounter::Add(absl::Span<const absl::string_view> documents,
                                          std::optional<std::chrono::milliseconds> timeout) {
  if (documents.empty()) return true;
  const auto start = std::chrono::steady_clock::now();
  {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      if (failed_) return error_;
      if (options_.cancel != nullptr && options_.cancel->load()) {
        return absl::CancelledError("counting was cancelled");
      }
      if (closed_) {
        return absl::FailedPreconditionError("documents added after the counting ended");
      }
      if (queue_.size() + reserved_ < kQueued) break;
      if (timeout.has_value() && std::chrono::steady_clock::now() - start >= *timeout) {
        return false;
      }
      changed_.wait_for(lock, std::chrono::milliseconds(50));
    }
    ++reserved_;  // the copy is made without the lock
  }
  std::shared_ptr<Batch> batch = FreshBatch();
  size_t size = 0;
  for (absl::string_view d : documents) size += d.size();
  batch->text.reserve(size);
  batch->ends.reserve(documents.size());
  for (absl::string_view d : documents) {
    batch->text.append(d.data(), d.size());
    batch->ends.push_back(batch->text.size());
  }
  std::lock_guard<std::mutex> lock(mu_);
  --reserved_;
  batch->first = added_;
  added_ += documents.size();
  queue_.push_back(std::move(batch));
  changed_.notify_all();
  return true;
}

absl::StatusOr<ShardedCounts> DocumentCounter::Finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  DropBatches();
  if (options_.cancel != nullptr && options_.cancel->load()) {
    return absl::CancelledError("counting was cancelled");
  }
  if (failed_) return error_;
  ShardedCounts out;
  out.bytes = out.decompressed_bytes = out.stored_bytes = bytes();
  out.documents = documents();
  out.pretokens = pretokens_;
  out.largest_piece = largest_;
  for (Worker& worker : *workers_) {
    worker.recent.reset();  // its counts into the table
    out.tables.push_back(std::move(worker.table));
  }
  workers_->clear();
  return out;
}

}  // namespace bpeforge::internal
