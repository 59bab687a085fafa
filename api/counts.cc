// Inputs and pre-token counts: expanding input arguments, counting files, and saving and
// loading count files.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "api/options.h"
#include "bpeforge/bpeforge.h"
#include "bpeforge/internal/front_ends.h"
#include "core/formats/counts_file.h"
#include "core/internal/atomic_file.h"
#include "core/internal/huge_pages.h"
#include "core/internal/status_macros.h"
#include "core/pretokenize/pretokenizer.h"
#include "core/pretokenize/special_tokens.h"
#include "input/input_paths.h"
#include "input/mapped_file.h"
#include "parallel/train.h"

namespace bpeforge {
namespace {

// "pattern gpt2, special tokens [...]", for errors about counts that do not agree.
std::string DescribeCounting(Pattern pattern, const std::string& regex,
                             const std::vector<std::string>& specials) {
  std::string s = pattern == Pattern::kCustom ? absl::StrCat("custom pattern ", regex)
                                              : absl::StrCat("pattern ", PatternName(pattern));
  absl::StrAppend(&s, ", special tokens [");
  for (size_t k = 0; k < specials.size(); ++k) {
    absl::StrAppend(&s, k > 0 ? ", " : "", "\"", specials[k], "\"");
  }
  return s + "]";
}

// Counts as Train does, the counts left in the workers' own tables; *out gets what was counted
// (all but `counts` and `distinct`).
// Counts share `share` of `shares` of the inputs (all of them for 0 of 1).
absl::StatusOr<internal::ShardedCounts> CountInWorkers(const std::vector<std::string>& inputs,
                                                       const TrainOptions& options,
                                                       CountedText* out, size_t share = 0,
                                                       size_t shares = 1) {
  internal::TrainJob job = ToInternal(options);
  job.inputs = inputs;
  job.share = share;
  job.shares = shares;
  // Counting needs no vocabulary size; the smallest valid one passes the config check.
  job.trainer.vocab_size = 256 + internal::SpecialTokens(options.special_tokens).tokens().size();
  absl::StatusOr<internal::ShardedCounts> sharded = internal::CountInputs(job, /*per_worker=*/true);
  if (!sharded.ok()) return sharded.status();
  *out = CountedOf(options, *sharded);
  return sharded;
}

// Calls fn(pre-token, count) for each pre-token of several files' entries, added up, in order.
template <typename Fn>
void ForEachMerged(const std::vector<absl::string_view>& entries, Fn&& fn) {
  internal::CountFileMerger merger(entries);
  absl::string_view word;
  for (uint64_t n = 0; merger.Next(&word, &n);) fn(word, n);
}

internal::CountsHeader HeaderOf(const CountedText& counted) {
  return {counted.pattern, counted.special_tokens, counted.bytes, counted.pretokens,
          counted.custom_pattern};
}

}  // namespace

CountedText CountedOf(const TrainOptions& options, const internal::ShardedCounts& sharded) {
  CountedText out;
  out.pattern = options.pattern;
  out.custom_pattern = options.pattern == Pattern::kCustom ? options.custom_pattern : "";
  out.special_tokens = internal::SpecialTokens(options.special_tokens).tokens();
  out.bytes = sharded.bytes;
  out.pretokens = sharded.pretokens;
  out.input = sharded.input_stats();
  return out;
}

absl::Status WriteWorkerCounts(internal::ShardedCounts& sharded, int threads, CountedText* out,
                               internal::AtomicFile& file) {
  const std::vector<internal::CountRun> runs = internal::SortedCountRuns(sharded.tables, threads);
  for (const internal::CountRun& run : runs) out->distinct += run.size();
  return internal::WriteCountsFile(HeaderOf(*out), runs,
                                   [&](absl::string_view bytes) { return file.Write(bytes); });
}

absl::StatusOr<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& inputs,
                                                      const std::vector<std::string>& include,
                                                      std::vector<std::string>* left_out,
                                                      bool count_files) {
  return internal::ExpandInputs(inputs, include, left_out, count_files);
}

absl::StatusOr<CountedText> CountShare(const std::vector<std::string>& inputs,
                                       const TrainOptions& options, size_t share, size_t shares) {
  CountedText out;
  absl::StatusOr<internal::ShardedCounts> sharded =
      CountInWorkers(inputs, options, &out, share, shares);
  if (!sharded.ok()) return sharded.status();
  // The workers' own tables, made disjoint and copied into the map once: combined into shards
  // first, every pre-token was copied three times.
  std::vector<internal::CountingTable>& tables = sharded->tables;
  internal::CountingTable::MakeDisjoint(tables);
  size_t distinct = 0;
  for (const internal::CountingTable& table : tables) distinct += table.size();
  out.counts.reserve(distinct);
  {
    internal::PrefetchingAdder add(&out.counts);  // done adding at the end of this block
    for (internal::CountingTable& table : tables) {
      table.ForEach([&](absl::string_view word, uint64_t n) { add(word, n); });
      table = internal::CountingTable();  // freed once copied
    }
  }
  out.distinct = out.counts.size();
  return out;
}

absl::StatusOr<CountedText> CountAndSave(const std::vector<std::string>& inputs,
                                         const TrainOptions& options, const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("the output path is empty (\"\")");
  BPEFORGE_RETURN_IF_ERROR(CheckNotAnInput(path, inputs));
  internal::AtomicFile file;
  BPEFORGE_RETURN_IF_ERROR(internal::AtomicFile::Open(path, &file));
  CountedText out;
  absl::StatusOr<internal::ShardedCounts> sharded = CountInWorkers(inputs, options, &out);
  if (!sharded.ok()) return sharded.status();
  BPEFORGE_RETURN_IF_ERROR(WriteWorkerCounts(*sharded, options.threads, &out, file));
  BPEFORGE_RETURN_IF_ERROR(file.Commit());
  return out;
}

absl::Status SaveCounts(const CountedText& counted, const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("the output path is empty (\"\")");
  internal::AtomicFile file;
  BPEFORGE_RETURN_IF_ERROR(internal::AtomicFile::Open(path, &file));
  BPEFORGE_RETURN_IF_ERROR(
      internal::WriteCountsFile(HeaderOf(counted), counted.counts,
                                [&](absl::string_view bytes) { return file.Write(bytes); }));
  return file.Commit();
}

struct CountFiles::Files {
  std::vector<internal::MappedFile> files;
  std::vector<internal::CountsFileView> views;  // of `files`
  CountedText counted;                          // without counts

  // The entries of each file.
  std::vector<absl::string_view> Entries() const {
    std::vector<absl::string_view> entries;
    for (const internal::CountsFileView& view : views) entries.push_back(view.entries);
    return entries;
  }
  // Their entries added up, each pre-token once, laid out as one file's: in ranges of
  // pre-tokens (in order) that `threads` threads merge apart as they read the files. The
  // blocks are mapped of their own (huge_pages.h), so that freeing them gives their memory
  // back.
  using Block = std::basic_string<char, std::char_traits<char>, internal::HugePageAllocator<char>>;
  struct Merged {
    std::vector<Block> ranges;
    uint64_t distinct = 0;
  };
  Merged Merge(int threads) const;
  // Trains on their counts added up (CountFiles::Train, and TrainAndSave of CountFiles).
  absl::StatusOr<internal::TrainJobResult> Learn(const TrainOptions& options, bool spell_out);
};

CountFiles::CountFiles(std::unique_ptr<Files> files) : files_(std::move(files)) {}
CountFiles::CountFiles(CountFiles&&) noexcept = default;
CountFiles& CountFiles::operator=(CountFiles&&) noexcept = default;
CountFiles::~CountFiles() = default;
const CountedText& CountFiles::counted() const { return files_->counted; }

absl::StatusOr<CountFiles> CountFiles::Count(const std::vector<std::string>& inputs,
                                             const TrainOptions& options, const std::string& path) {
  absl::StatusOr<CountedText> counted = CountAndSave(inputs, options, path);
  if (!counted.ok()) return counted.status();
  absl::StatusOr<CountFiles> files = Open({path});
  if (!files.ok()) return files.status();
  files->files_->counted.input = counted->input;  // what was read, which the file does not keep
  return files;
}

absl::StatusOr<CountFiles> CountFiles::Open(const std::vector<std::string>& paths) {
  if (paths.empty()) return absl::InvalidArgumentError("no count file given");
  auto files = std::make_unique<Files>();
  CountedText& out = files->counted;
  uint64_t pretoken_bytes = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    absl::StatusOr<internal::MappedFile> file = internal::MappedFile::Open(paths[i]);
    if (!file.ok()) return file.status();
    absl::StatusOr<internal::CountsFileView> view =
        internal::ReadCountsFile(file->data(), paths[i]);
    if (!view.ok()) return view.status();
    BPEFORGE_RETURN_IF_ERROR(file->CheckUnchanged());
    file->Release(0, file->data().size());  // read again when trained from
    const internal::CountsHeader& header = view->header;
    if (i == 0) {
      out.pattern = header.pattern;
      out.custom_pattern = header.custom_regex;
      out.special_tokens = header.special_tokens;
    } else if (header.pattern != out.pattern || header.custom_regex != out.custom_pattern ||
               header.special_tokens != out.special_tokens) {
      return absl::InvalidArgumentError(absl::StrCat(
          paths[i], " was counted with ",
          DescribeCounting(header.pattern, header.custom_regex, header.special_tokens), ", but ",
          paths[0], " with ", DescribeCounting(out.pattern, out.custom_pattern, out.special_tokens),
          "; counts are added up only when both agree"));
    }
    // Added up, the totals stay within what one file may hold (the trainer's counts are
    // signed 64-bit integers; `count --merge` writes the sums into its header).
    if (__builtin_add_overflow(out.bytes, header.bytes, &out.bytes) ||
        __builtin_add_overflow(out.pretokens, header.pretokens, &out.pretokens) ||
        __builtin_add_overflow(pretoken_bytes, view->pretoken_bytes, &pretoken_bytes) ||
        std::max({out.bytes, out.pretokens, pretoken_bytes}) > internal::kMaxCountTotal) {
      return absl::InvalidArgumentError(
          absl::StrCat(paths[i],
                       ": added to the count files before it, the counts pass 2^63 (of bytes, "
                       "pre-tokens or their bytes), more than any text holds"));
    }
    out.distinct = paths.size() == 1 ? view->distinct : 0;  // not known before they are added
    files->files.push_back(*std::move(file));
    files->views.push_back(*std::move(view));
  }
  return CountFiles(std::move(files));
}

absl::StatusOr<internal::TrainJobResult> CountFiles::Files::Learn(const TrainOptions& options,
                                                                  bool spell_out) {
  const std::vector<std::string> specials =
      internal::SpecialTokens(options.special_tokens).tokens();
  const std::string custom = options.pattern == Pattern::kCustom ? options.custom_pattern : "";
  if (options.pattern != counted.pattern || custom != counted.custom_pattern ||
      specials != counted.special_tokens) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the options give ", DescribeCounting(options.pattern, custom, specials), ", but ",
        files[0].path(), " was counted with ",
        DescribeCounting(counted.pattern, counted.custom_pattern, counted.special_tokens)));
  }
  internal::TrainJob job = ToInternal(options);
  job.trainer.spell_out = spell_out;
  auto release_all = [&] {
    for (const internal::MappedFile& file : files) file.Release(0, file.data().size());
  };
  absl::StatusOr<internal::TrainJobResult> result;
  double merging = 0;  // seconds adding several files up, before the words are made
  if (files.size() == 1) {
    // The entries are the words: copied into the word table by the workers, in parts.
    const internal::CountsFileView& view = views[0];
    const std::vector<absl::string_view> parts =
        internal::SplitCounts(view.entries, 8 * internal::ThreadsToUse(options.threads));
    result = internal::LearnFromDistinct(
        parts.size(), [&](size_t part, auto fn) { internal::ForEachCount(parts[part], fn); },
        view.distinct, job, release_all);
  } else {
    // Merged as read into entries laid out as one file's, which then are the words, rather
    // than merged again to size the word table and again to fill it.
    const auto start = std::chrono::steady_clock::now();
    Merged merged = Merge(options.threads);
    merging = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    release_all();
    std::vector<Block>& ranges = merged.ranges;
    result = internal::LearnFromDistinct(
        ranges.size(),
        [&](size_t part, auto fn) {
          internal::ForEachCount(absl::string_view(ranges[part].data(), ranges[part].size()), fn);
        },
        merged.distinct, job, [&] { std::vector<Block>().swap(ranges); });
  }
  for (const internal::MappedFile& file : files) {
    BPEFORGE_RETURN_IF_ERROR(file.CheckUnchanged());
  }
  if (!result.ok()) return result.status();
  result->stats.bytes = counted.bytes;
  result->stats.pretokens = counted.pretokens;
  // Adding the files up is part of reading them, not of the merge loop.
  result->stats.pretokenize_seconds = merging;
  result->stats.total_seconds += merging;
  return result;
}

absl::StatusOr<TrainResult> CountFiles::Train(const TrainOptions& options) {
  absl::StatusOr<internal::TrainJobResult> result = files_->Learn(options, /*spell_out=*/true);
  if (!result.ok()) return result.status();
  return FromInternal(*std::move(result), options);
}

absl::StatusOr<TrainStats> TrainAndSave(CountFiles& files, const TrainOptions& options,
                                        const std::string& dir) {
  absl::StatusOr<internal::TrainJobResult> result =
      files.files_->Learn(options, /*spell_out=*/false);
  if (!result.ok()) return result.status();
  return SaveTrained(*result, options, dir);
}

CountFiles::Files::Merged CountFiles::Files::Merge(int threads) const {
  const std::vector<std::vector<absl::string_view>> parts =
      internal::SplitCountsAlike(Entries(), 8 * internal::ThreadsToUse(threads));
  Merged merged;
  merged.ranges.resize(parts.size());
  std::atomic<uint64_t> distinct{0};
  internal::RunInParallel(parts.size(), threads, [&](size_t part) {
    Block& out = merged.ranges[part];
    size_t bytes = 0;  // at most the files' bytes of the range
    for (absl::string_view entries : parts[part]) bytes += entries.size();
    out.reserve(bytes);
    uint64_t here = 0;
    ForEachMerged(parts[part], [&](absl::string_view pretoken, uint64_t n) {
      internal::AppendCountEntry(pretoken, n, &out);
      ++here;
    });
    distinct += here;
    // What is merged is not read again: the files' pages of the range go as the blocks grow.
    for (size_t f = 0; f < files.size(); ++f) {
      if (parts[part][f].empty()) continue;
      files[f].Release(static_cast<size_t>(parts[part][f].data() - files[f].data().data()),
                       parts[part][f].size());
    }
  });
  merged.distinct = distinct;
  return merged;
}

absl::StatusOr<CountedText> CountFiles::Save(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("the output path is empty (\"\")");
  std::vector<std::string> inputs;
  for (const internal::MappedFile& f : files_->files) inputs.push_back(f.path());
  BPEFORGE_RETURN_IF_ERROR(CheckNotAnInput(path, inputs));
  internal::AtomicFile file;
  BPEFORGE_RETURN_IF_ERROR(internal::AtomicFile::Open(path, &file));
  CountedText out = files_->counted;
  // Merged by all the threads, then written in order (merged as written, the merge ran on one
  // thread).
  Files::Merged merged = files_->Merge(0);
  out.distinct = merged.distinct;
  std::vector<absl::string_view> ranges;
  for (const Files::Block& range : merged.ranges) ranges.emplace_back(range.data(), range.size());
  BPEFORGE_RETURN_IF_ERROR(
      internal::WriteCountsFile(HeaderOf(out), out.distinct, ranges,
                                [&](absl::string_view bytes) { return file.Write(bytes); }));
  for (const internal::MappedFile& f : files_->files) {
    f.Release(0, f.data().size());
    BPEFORGE_RETURN_IF_ERROR(f.CheckUnchanged());
  }
  BPEFORGE_RETURN_IF_ERROR(file.Commit());
  return out;
}

}  // namespace bpeforge
