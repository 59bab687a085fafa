// The public DocumentCounter: training from documents held in memory, on the parallel layer's
// DocumentCounter.
#include <chrono>
#include <memory>
#include <utility>

#include "api/options.h"
#include "bpeforge/bpeforge.h"
#include "core/internal/atomic_file.h"
#include "core/internal/status_macros.h"
#include "core/pretokenize/special_tokens.h"
#include "parallel/document_counter.h"
#include "parallel/train.h"

namespace bpeforge {

struct DocumentCounter::Impl {
  TrainOptions options;
  internal::TrainJob job;  // options, as the parallel layer takes them
  std::unique_ptr<internal::DocumentCounter> counter;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  bool finished = false;

  // Waits for the documents and stops the workers, once.
  absl::StatusOr<internal::ShardedCounts> Finish() {
    if (finished) {
      return absl::FailedPreconditionError("the documents were trained from or saved already");
    }
    finished = true;
    return counter->Finish();
  }
};

DocumentCounter::DocumentCounter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DocumentCounter::DocumentCounter(DocumentCounter&&) noexcept = default;
DocumentCounter& DocumentCounter::operator=(DocumentCounter&&) noexcept = default;
DocumentCounter::~DocumentCounter() = default;

absl::StatusOr<DocumentCounter> DocumentCounter::Start(const TrainOptions& options) {
  BPEFORGE_RETURN_IF_ERROR(internal::ValidateSpecialTokens(options.special_tokens));
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->job = ToInternal(options);
  if (options.vocab_size != 0) {
    BPEFORGE_RETURN_IF_ERROR(internal::ValidateTrainerConfig(impl->job.trainer));
  }
  internal::CountOptions count;
  count.special_tokens = options.special_tokens;
  count.pattern = options.pattern;
  count.custom_regex = impl->job.custom_regex;
  count.chunk_bytes = options.chunk_bytes;
  count.cancel = options.cancel;
  if (impl->job.progress) {
    count.progress = [progress = impl->job.progress](uint64_t done, uint64_t, uint64_t documents) {
      progress({"counting", done, 0, "bytes", documents});
    };
  }
  absl::StatusOr<std::unique_ptr<internal::DocumentCounter>> counter =
      internal::DocumentCounter::Start(count, options.threads);
  if (!counter.ok()) return counter.status();
  impl->counter = *std::move(counter);
  return DocumentCounter(std::move(impl));
}

absl::Status DocumentCounter::Add(absl::Span<const absl::string_view> documents) {
  if (impl_->finished) {
    return absl::FailedPreconditionError("documents added after training or saving");
  }
  return impl_->counter->Add(documents).status();
}

absl::StatusOr<bool> DocumentCounter::TryAdd(absl::Span<const absl::string_view> documents,
                                             std::chrono::milliseconds timeout) {
  if (impl_->finished) {
    return absl::FailedPreconditionError("documents added after training or saving");
  }
  return impl_->counter->Add(documents, timeout);
}

uint64_t DocumentCounter::documents() const { return impl_->counter->documents(); }
uint64_t DocumentCounter::bytes() const { return impl_->counter->bytes(); }

absl::StatusOr<TrainResult> DocumentCounter::Train() {
  absl::StatusOr<internal::ShardedCounts> counts = impl_->Finish();
  if (!counts.ok()) return counts.status();
  const double counted =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - impl_->start).count();
  absl::StatusOr<internal::TrainJobResult> result =
      internal::LearnFromTables(*std::move(counts), impl_->job, counted);
  if (!result.ok()) return result.status();
  return FromInternal(*std::move(result), impl_->options);
}

absl::StatusOr<CountedText> DocumentCounter::Save(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("the output path is empty (\"\")");
  internal::AtomicFile file;
  BPEFORGE_RETURN_IF_ERROR(internal::AtomicFile::Open(path, &file));
  absl::StatusOr<internal::ShardedCounts> counts = impl_->Finish();
  if (!counts.ok()) return counts.status();
  CountedText out = CountedOf(impl_->options, *counts);
  BPEFORGE_RETURN_IF_ERROR(WriteWorkerCounts(*counts, impl_->options.threads, &out, file));
  BPEFORGE_RETURN_IF_ERROR(file.Commit());
  return out;
}

}  // namespace bpeforge
