#include "parallel/count_plan.h"

#include <sys/stat.h>

#include <cerrno>
#include <utility>

#include "core/internal/file_status.h"
#include "core/pretokenize/safe_cut.h"
#include "input/byte_source.h"
#include "input/jsonl.h"

namespace bpeforge::internal {
namespace {

// Mapped files are planned and counted this many at a time (at most).
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

}  // namespace

absl::StatusOr<InputPlan> PlanInputs(const std::vector<std::string>& paths,
                                     const CountOptions& options) {
  InputPlan plan;
  plan.files.resize(paths.size());
  plan.sizes.resize(paths.size());
  plan.jsonl.resize(paths.size());
  bool total_known = true;
  for (size_t f = 0; f < paths.size(); ++f) {
    plan.jsonl[f] = options.jsonl.IsJsonl(paths[f]);
    absl::StatusOr<bool> stream = IsStreamedInput(paths[f], plan.jsonl[f]);
    if (!stream.ok()) return stream.status();
    struct stat st;
    if (*stream) {
      plan.streamed.push_back(f);
      if (paths[f] == "-") {
        total_known = false;
      } else if (stat(paths[f].c_str(), &st) != 0) {
        return ErrnoStatus(errno, "cannot read", paths[f]);  // now, not after the others
      } else {
        plan.total += static_cast<uint64_t>(st.st_size);
      }
      continue;
    }
    plan.mapped.push_back(f);
    if (stat(paths[f].c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      plan.sizes[f] = static_cast<uint64_t>(st.st_size);  // mapped when its batch comes
      continue;
    }
    absl::StatusOr<MappedFile> file = MappedFile::Open(paths[f]);
    if (!file.ok()) return file.status();
    plan.files[f] = *std::move(file);
    plan.sizes[f] = plan.files[f].data().size();
  }
  plan.share = options.share;
  plan.shares = std::max<size_t>(options.shares, 1);
  for (size_t f : plan.mapped) plan.mapped_total += plan.sizes[f];
  plan.total += plan.shares == 1 ? plan.mapped_total : plan.mapped_total / plan.shares;
  if (plan.shares > 1) {
    std::vector<size_t> mine;
    for (size_t k = 0; k < plan.streamed.size(); ++k) {
      if (k % plan.shares == plan.share) mine.push_back(plan.streamed[k]);
    }
    plan.streamed.swap(mine);
  }
  if (!total_known) plan.total = 0;
  return plan;
}

absl::Status PlanChunks(const std::vector<std::string>& paths, const SpecialTokens& specials,
                        const CountOptions& options, InputPlan* plan, ChunkBatch* batch) {
  for (; plan->next_mapped < plan->mapped.size() && batch->files.size() < kFilesAtOnce;
       ++plan->next_mapped) {
    const size_t f = plan->mapped[plan->next_mapped];
    const uint64_t begin = plan->mapped_before;
    plan->mapped_before += plan->sizes[f];
    if (plan->sizes[f] == 0) {
      // An empty text file is a document of share 0.
      if (!plan->jsonl[f] && plan->share == 0) ++batch->empty_documents;
      continue;
    }
    if (plan->shares > 1 && (plan->ShareOf(begin) > plan->share ||
                             plan->ShareOf(begin + plan->sizes[f] - 1) < plan->share)) {
      continue;
    }
    if (plan->files[f].data().data() == nullptr) {
      absl::StatusOr<MappedFile> file = MappedFile::Open(paths[f], plan->sizes[f]);
      if (!file.ok()) return file.status();
      plan->files[f] = *std::move(file);
    }
    batch->files.push_back(f);
    const std::vector<size_t> bounds = FindMappedChunkBounds(
        plan->files[f], plan->jsonl[f], specials, options.chunk_bytes, options.pattern);
    for (size_t i = 0; i + 1 < bounds.size(); ++i) {
      if (bounds[i + 1] <= bounds[i]) continue;
      if (plan->shares > 1 && plan->ShareOf(begin + bounds[i]) != plan->share) continue;
      batch->chunks.push_back({f, bounds[i], bounds[i + 1]});
    }
  }
  return absl::OkStatus();
}

}  // namespace bpeforge::internal
