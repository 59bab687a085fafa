// Counting the pre-tokens of documents held in memory, handed over in batches while the caller
// makes the next ones (the public DocumentCounter, and through it Python's train_from_iterator).
//
//   absl::StatusOr<std::unique_ptr<DocumentCounter>> counter =
//       DocumentCounter::Start(count_options, threads);
//   if (!counter.ok()) return counter.status();
//   for (...) BPEFORGE_RETURN_IF_ERROR((*counter)->Add(batch));
//   absl::StatusOr<ShardedCounts> counts = (*counter)->Finish();  // per-worker tables
#ifndef BPEFORGE_PARALLEL_DOCUMENT_COUNTER_H_
#define BPEFORGE_PARALLEL_DOCUMENT_COUNTER_H_

#include <tbb/enumerable_thread_specific.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "parallel/parallel_count.h"

namespace bpeforge::internal {

// A pipeline with the caller as its source: a thread of its own runs oneTBB's parallel_pipeline,
// whose serial stage takes the batches the caller queued and cuts them into pieces of about
// chunk_bytes of whole documents, and whose parallel stage counts each piece into the worker's
// own table, as CountPreTokensInFiles does for a file's chunks. The queue holds at most kQueued
// batches: Add waits while it is full, so memory holds the counts and a few batches, never the
// text.
class DocumentCounter {
 public:
  // Batches waiting to be taken by the workers, at most.
  static constexpr size_t kQueued = 2;

  // Starts the pipeline on `threads` threads (0: all the hardware's). Uses the options'
  // special tokens, pattern, chunk_bytes, progress (the bytes of the documents, with total 0)
  // and cancel; the counts are left in the workers' tables (per_worker).
  static absl::StatusOr<std::unique_ptr<DocumentCounter>> Start(const CountOptions& options,
                                                                int threads);
  ~DocumentCounter();  // stops the pipeline; what it counted is dropped

  // Copies the documents into a batch and queues it, waiting while kQueued batches wait (at
  // most `timeout` when given: then false if no room came, and nothing was added). Fails with
  // the first error of the counting, or Cancelled.
  absl::StatusOr<bool> Add(absl::Span<const absl::string_view> documents,
                           std::optional<std::chrono::milliseconds> timeout = std::nullopt);
  // Waits for every document added, then stops the pipeline. The counts, in the workers'
  // tables, with the bytes, documents and pre-tokens counted.
  absl::StatusOr<ShardedCounts> Finish();

  uint64_t documents() const { return documents_.load(std::memory_order_relaxed); }
  uint64_t bytes() const { return bytes_.load(std::memory_order_relaxed); }

 private:
  // Documents laid end to end: document i is text[ends[i - 1], ends[i]).
  struct Batch {
    std::string text;
    std::vector<size_t> ends;
    uint64_t first;  // the index of its first document among all
    absl::string_view Document(size_t i) const {
      const size_t begin = i == 0 ? 0 : ends[i - 1];
      return absl::string_view(text).substr(begin, ends[i] - begin);
    }
  };
  // Documents [begin, end) of a batch, counted by one worker.
  struct Piece {
    std::shared_ptr<const Batch> batch;
    size_t begin, end;
  };
  struct Worker;
  // Hands a batch whose pieces are all counted back to the counter, to be filled again: a
  // fresh one each time touched new pages for every megabyte of documents.
  struct Recycle {
    DocumentCounter* counter;
    void operator()(Batch* batch) const;
  };
  std::shared_ptr<Batch> FreshBatch();
  // Drops the batches the pipeline still holds (before the pool they go back to).
  void DropBatches();

  explicit DocumentCounter(const CountOptions& options);
  void Run(int threads);  // the pipeline's thread
  // The serial stage: the next piece, waiting for a batch; nullptr once the queue is closed
  // and empty, or the work stops.
  Piece* NextPiece();
  void Count(const Piece& piece);  // the parallel stage
  // Records a failure at document `document`; the earliest is the one reported.
  void Fail(uint64_t document, absl::Status status);
  bool Stopping() const;
  void ReportProgress();

  CountOptions options_;
  SpecialTokens specials_;
  std::unique_ptr<PreTokenizer> pretokenizer_;
  std::unique_ptr<tbb::enumerable_thread_specific<Worker>> workers_;

  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::shared_ptr<const Batch>> queue_;
  bool closed_ = false;                   // no more batches (Finish)
  size_t reserved_ = 0;                   // places in the queue promised to batches being filled
  std::shared_ptr<const Batch> current_;  // being cut into pieces by the serial stage
  size_t next_document_ = 0;              // of current_
  uint64_t added_ = 0;                    // documents queued so far
  uint64_t error_at_ = 0;
  absl::Status error_;  // the earliest failure, under mu_
  std::atomic<bool> failed_{false};
  std::atomic<uint64_t> documents_{0}, bytes_{0}, pretokens_{0}, largest_{0};
  std::mutex pool_mu_;  // after mu_, when both are held
  std::vector<std::unique_ptr<Batch>> pool_;
  std::mutex progress_mu_;
  std::chrono::steady_clock::time_point last_progress_{};
  std::thread thread_;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_PARALLEL_DOCUMENT_COUNTER_H_
