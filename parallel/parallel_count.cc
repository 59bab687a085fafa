#include "parallel/parallel_count.h"

#include <sys/stat.h>
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

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "core/utf8.h"
#include "parallel/byte_source.h"
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
  std::atomic<bool> has_{false};  // read by workers without the lock
  size_t chunk_ = 0, file_ = 0, offset_ = 0;
  std::string why_;
};

// Reads `source` to its end, cutting the text at safe points (the same rule as for mapped
// files, so the pieces pre-tokenize as the whole does) and hands the pieces, with their byte
// offsets, to `count` on oneTBB workers while the next bytes are read and decompressed.
// Returns the number of bytes read; stops early when `count` returns false. `on_read` hears
// of the compressed bytes consumed, from the one stage that reads.
absl::StatusOr<uint64_t> CountStream(
    ByteSource& source, const SpecialTokens& specials, const CountOptions& options,
    const std::function<bool(absl::string_view text, uint64_t offset)>& count,
    const std::function<void(uint64_t consumed)>& on_read) {
  struct Piece {
    std::string text;
    uint64_t offset;
  };
  const size_t target = std::max<size_t>(options.chunk_bytes, 1);
  const size_t block = std::min<size_t>(1 << 20, std::max<size_t>(target, 64));
  const bool letter_cuts = CutsAfterLetters(options.pattern);
  size_t slack = 1;  // how far back a cut's verdict may change as bytes arrive
  for (const std::string& s : specials.tokens()) slack = std::max(slack, s.size() + 1);
  std::string carry;
  size_t checked = 0;  // carry[1..checked) holds no safe cut
  uint64_t offset = 0;
  bool eof = false;
  absl::Status status;
  std::atomic<bool> stop{false};
  // Appends the next block to `carry`; false (with `status` set) on a read error. Only the
  // serial stage calls it: it owns `source`.
  auto read_more = [&] {
    const size_t old = carry.size();
    carry.resize(old + block);
    absl::StatusOr<size_t> n = source.Read(carry.data() + old, block);
    carry.resize(old + (n.ok() ? *n : 0));
    if (!n.ok()) {
      status = n.status();
      return false;
    }
    eof = *n == 0;
    on_read(source.consumed());
    return true;
  };
  tbb::parallel_pipeline(
      2 * static_cast<size_t>(tbb::this_task_arena::max_concurrency()) + 2,
      tbb::make_filter<void, Piece*>(
          tbb::filter_mode::serial_in_order,
          [&](tbb::flow_control& fc) -> Piece* {
            for (;;) {
              if (stop.load() || !status.ok()) break;
              if (!eof && carry.size() < target) {
                if (!read_more()) break;
                continue;
              }
              size_t cut = 0;
              if (eof) {
                cut = carry.size();
              } else {
                const size_t floor = checked > slack ? checked - slack : 1;
                for (size_t pos = carry.size() - 1; pos >= floor && pos > 0; --pos) {
                  if (IsSafeCut(carry, pos, specials, letter_cuts)) {
                    cut = pos;
                    break;
                  }
                }
                checked = carry.size();
              }
              if (cut == 0) {
                if (eof) break;
                // No cut yet: read on (one long pre-token, or text without any).
                if (!read_more()) break;
                continue;
              }
              auto* piece = new Piece{carry.substr(0, cut), offset};
              carry.erase(0, cut);
              checked = 0;
              offset += cut;
              return piece;
            }
            fc.stop();
            return nullptr;
          }) &
          tbb::make_filter<Piece*, void>(tbb::filter_mode::parallel, [&](Piece* piece) {
            std::unique_ptr<Piece> owned(piece);
            if (!count(piece->text, piece->offset)) stop = true;
          }));
  if (!status.ok()) return status;
  return offset;
}

}  // namespace

absl::StatusOr<ShardedCounts> CountFiles(const std::vector<std::string>& paths,
                                         const CountOptions& options) {
  const SpecialTokens specials(options.special_tokens);
  absl::StatusOr<std::unique_ptr<PreTokenizer>> made =
      MakeAnyPreTokenizer(options.pattern, options.custom_regex);
  if (!made.ok()) return made.status();
  const std::unique_ptr<PreTokenizer> pretokenizer = *std::move(made);

  // Plain files are mapped and cut up front; standard input and compressed files are read as
  // a stream and cut as the bytes arrive (CountStream). Both feed the same per-thread maps.
  std::vector<MappedFile> files(paths.size());
  std::vector<size_t> streamed;
  std::vector<Chunk> chunks;
  uint64_t total = 0;  // bytes to read: mapped text, compressed files; 0 when unknown
  bool total_known = true;
  for (size_t f = 0; f < paths.size(); ++f) {
    absl::StatusOr<bool> stream = IsStreamedInput(paths[f]);
    if (!stream.ok()) return stream.status();
    if (*stream) {
      streamed.push_back(f);
      struct stat st;
      if (paths[f] != "-" && stat(paths[f].c_str(), &st) == 0) {
        total += static_cast<uint64_t>(st.st_size);
      } else {
        total_known = false;
      }
      continue;
    }
    absl::StatusOr<MappedFile> file = MappedFile::Open(paths[f]);
    if (!file.ok()) return file.status();
    files[f] = *std::move(file);
  }
  for (size_t f = 0; f < files.size(); ++f) {
    if (files[f].path().empty()) continue;  // streamed
    std::vector<size_t> bounds = FindChunkBounds(files[f].data(), specials, options.chunk_bytes,
                                                 CutsAfterLetters(options.pattern));
    for (size_t i = 0; i + 1 < bounds.size(); ++i) {
      if (bounds[i + 1] > bounds[i]) chunks.push_back({f, bounds[i], bounds[i + 1]});
    }
    total += files[f].data().size();
  }
  if (!total_known) total = 0;

  tbb::enumerable_thread_specific<PreTokenCounter> local;
  std::atomic<uint64_t> pretokens{0}, done{0};
  FirstError error;
  std::mutex progress_mu;
  auto last_report = std::chrono::steady_clock::now();
  auto report_progress = [&](uint64_t now_done) {
    if (!options.progress) return;
    std::lock_guard<std::mutex> lock(progress_mu);
    auto now = std::chrono::steady_clock::now();
    if (now - last_report > std::chrono::milliseconds(500)) {
      last_report = now;
      options.progress(now_done, total);
    }
  };
  // Counts one piece of text (`order` ranks it among all pieces, for the first error).
  auto count = [&](absl::string_view text, size_t order, size_t file, uint64_t offset) {
    if (std::optional<size_t> bad = FindInvalidUtf8(text)) {
      error.Report(order, file, offset + *bad);
      return false;
    }
    try {
      pretokens += CountPreTokens(text, specials, *pretokenizer, &local.local());
    } catch (const std::exception& e) {  // a custom regex too complex for Boost on this text
      error.Report(order, file, offset,
                   absl::StrCat("the pattern could not be matched (", e.what(), ") in the text"));
      return false;
    }
    return true;
  };
  auto cancelled = [&] {
    return options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed);
  };

  tbb::parallel_for(size_t{0}, chunks.size(), [&](size_t c) {
    if (cancelled()) return;
    const Chunk& chunk = chunks[c];
    const MappedFile& file = files[chunk.file];
    absl::string_view text = file.data().substr(chunk.begin, chunk.end - chunk.begin);
    if (!count(text, c, chunk.file, chunk.begin)) return;
    file.Release(chunk.begin, chunk.end - chunk.begin);
    report_progress(done += text.size());
  });
  const size_t order = chunks.size();  // streamed pieces rank after the mapped chunks
  uint64_t streamed_bytes = 0;
  for (size_t f : streamed) {
    if (cancelled() || error.has()) break;
    absl::StatusOr<std::unique_ptr<ByteSource>> source = OpenByteSource(paths[f]);
    if (!source.ok()) return source.status();
    const uint64_t done_before = done.load();
    absl::StatusOr<uint64_t> bytes = CountStream(
        **source, specials, options,
        [&](absl::string_view text, uint64_t offset) {
          if (cancelled() || error.has()) return false;
          // Ranked by offset: pieces are counted in parallel, and the first error reported
          // must not depend on which finished first.
          return count(text, order + offset, f, offset);
        },
        [&](uint64_t consumed) { report_progress(done = done_before + consumed); });
    if (!bytes.ok()) return bytes.status();
    done = done_before + (*source)->consumed();
    streamed_bytes += *bytes;
  }
  if (cancelled()) return absl::CancelledError("counting was cancelled");
  for (const MappedFile& file : files) {
    if (file.path().empty()) continue;
    if (absl::Status s = file.CheckUnchanged(); !s.ok()) return s;
  }
  if (error.has()) {
    return absl::InvalidArgumentError(
        absl::StrCat(paths[error.file()], ": ", error.why(), " at byte offset ", error.offset(),
                     std::find(streamed.begin(), streamed.end(), error.file()) != streamed.end()
                         ? " of its decompressed text"
                         : ""));
  }
  uint64_t text_bytes = streamed_bytes;
  for (const MappedFile& file : files) text_bytes += file.data().size();

  // Combine without a global lock: each thread's map is split by hash into per-shard
  // lists, then every shard sums its lists. Shards are disjoint, so they fill in parallel.
  ShardedCounts out;
  out.bytes = text_bytes;
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
