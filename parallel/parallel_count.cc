#include "parallel/parallel_count.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <utility>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "core/utf8.h"
#include "parallel/chunker.h"
#include "parallel/mapped_file.h"

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

// Tracks the earliest error seen by any worker: an invalid byte, or a custom pattern that
// Boost.Regex gave up on.
class FirstError {
 public:
  void Report(size_t chunk, size_t file, size_t offset, std::string why = "invalid UTF-8") {
    std::lock_guard<std::mutex> lock(mu_);
    if (!has_ || chunk < chunk_) {
      has_ = true;
      chunk_ = chunk;
      file_ = file;
      offset_ = offset;
      why_ = std::move(why);
    }
  }
  bool has() const { return has_; }
  size_t file() const { return file_; }
  size_t offset() const { return offset_; }
  const std::string& why() const { return why_; }

 private:
  std::mutex mu_;
  bool has_ = false;
  size_t chunk_ = 0, file_ = 0, offset_ = 0;
  std::string why_;
};

}  // namespace

absl::StatusOr<ShardedCounts> CountFiles(const std::vector<std::string>& paths,
                                         const CountOptions& options) {
  const SpecialTokens specials(options.special_tokens);
  absl::StatusOr<std::unique_ptr<PreTokenizer>> made =
      MakeAnyPreTokenizer(options.pattern, options.custom_regex);
  if (!made.ok()) return made.status();
  const std::unique_ptr<PreTokenizer> pretokenizer = *std::move(made);

  std::vector<MappedFile> files;
  std::vector<Chunk> chunks;
  uint64_t total = 0;
  for (size_t f = 0; f < paths.size(); ++f) {
    absl::StatusOr<MappedFile> file = MappedFile::Open(paths[f]);
    if (!file.ok()) return file.status();
    files.push_back(*std::move(file));
  }
  for (size_t f = 0; f < files.size(); ++f) {
    std::vector<size_t> bounds = FindChunkBounds(files[f].data(), specials, options.chunk_bytes,
                                                 CutsAfterLetters(options.pattern));
    for (size_t i = 0; i + 1 < bounds.size(); ++i) {
      if (bounds[i + 1] > bounds[i]) chunks.push_back({f, bounds[i], bounds[i + 1]});
    }
    total += files[f].data().size();
  }

  tbb::enumerable_thread_specific<PreTokenCounter> local;
  std::atomic<uint64_t> pretokens{0}, done{0};
  FirstError error;
  std::mutex progress_mu;
  auto last_report = std::chrono::steady_clock::now();

  tbb::parallel_for(size_t{0}, chunks.size(), [&](size_t c) {
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) return;
    const Chunk& chunk = chunks[c];
    const MappedFile& file = files[chunk.file];
    absl::string_view text = file.data().substr(chunk.begin, chunk.end - chunk.begin);
    if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
      error.Report(c, chunk.file, chunk.begin + *bad);
      return;
    }
    try {
      pretokens += CountPreTokens(text, specials, *pretokenizer, &local.local());
    } catch (const std::exception& e) {  // a custom regex too complex for Boost on this text
      error.Report(c, chunk.file, chunk.begin,
                   absl::StrCat("the pattern could not be matched (", e.what(), ") in the text"));
      return;
    }
    file.Release(chunk.begin, chunk.end - chunk.begin);
    uint64_t now_done = done += text.size();
    if (options.progress) {
      std::lock_guard<std::mutex> lock(progress_mu);
      auto now = std::chrono::steady_clock::now();
      if (now - last_report > std::chrono::milliseconds(500)) {
        last_report = now;
        options.progress(now_done, total);
      }
    }
  });
  if (options.cancel != nullptr && options.cancel->load()) {
    return absl::CancelledError("counting was cancelled");
  }
  for (const MappedFile& file : files) {
    if (absl::Status s = file.CheckUnchanged(); !s.ok()) return s;
  }
  if (error.has()) {
    return absl::InvalidArgumentError(
        absl::StrCat(paths[error.file()], ": ", error.why(), " at byte offset ", error.offset()));
  }

  // Combine without a global lock: each thread's map is split by hash into per-shard
  // lists, then every shard sums its lists. Shards are disjoint, so they fill in parallel.
  ShardedCounts out;
  out.bytes = total;
  out.pretokens = pretokens;
  const size_t num_shards = std::max<size_t>(options.shards, 1);
  out.shards.resize(num_shards);
  using Entry = std::pair<std::string, uint64_t>;  // short keys stay in the SSO buffer
  std::vector<const PreTokenCounter*> locals;
  for (const PreTokenCounter& m : local) locals.push_back(&m);
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
