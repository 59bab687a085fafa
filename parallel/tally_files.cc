#include "parallel/tally_files.h"

#include <tbb/enumerable_thread_specific.h>
#include <tbb/global_control.h>

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "core/pretokenize/text_class.h"
#include "parallel/parallel_count.h"
#include "parallel/train.h"

namespace bpeforge::internal {
namespace {

CountOptions CountOptionsOf(const TallyOptions& options) {
  CountOptions count;
  count.special_tokens = options.special_tokens;
  count.pattern = options.pattern;
  count.custom_regex = options.custom_regex;
  count.chunk_bytes = options.chunk_bytes;
  count.per_worker = true;
  count.cancel = options.cancel;
  count.progress = PreTokenizingProgress(options.progress);
  return count;
}

}  // namespace

absl::StatusOr<std::vector<std::pair<std::optional<std::string>, uint64_t>>> CountGroupValues(
    const std::vector<std::string>& paths, JsonlOptions jsonl, const TallyOptions& options) {
  using Counts = absl::flat_hash_map<std::optional<std::string>, uint64_t>;
  const int threads = ThreadsToUse(options.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<size_t>(threads));
  tbb::enumerable_thread_specific<Counts> workers;
  // Every record is passed over once its value is counted: nothing is pre-tokenized.
  jsonl.keep = [&workers](std::optional<absl::string_view> value) {
    ++workers.local()[value.has_value() ? std::optional<std::string>(*value) : std::nullopt];
    return false;
  };
  CountOptions count = CountOptionsOf(options);
  count.jsonl = std::move(jsonl);
  absl::StatusOr<ShardedCounts> counted = CountPreTokensInFiles(paths, count);
  if (!counted.ok()) return counted.status();
  Counts all;
  for (const Counts& counts : workers) {
    for (const auto& [value, n] : counts) all[value] += n;
  }
  std::vector<std::pair<std::optional<std::string>, uint64_t>> values(all.begin(), all.end());
  std::sort(values.begin(), values.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  return values;
}

absl::StatusOr<FilesTally> TallyFiles(const std::vector<TallyInput>& inputs,
                                      const std::vector<const BpeCodec*>& tokenizers,
                                      const TallyOptions& options) {
  const int threads = ThreadsToUse(options.threads);
  tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                            static_cast<size_t>(threads));
  CountOptions count = CountOptionsOf(options);

  auto fresh_tallies = [&] {
    std::vector<EncodeTally> tallies;
    for (const BpeCodec* t : tokenizers) tallies.emplace_back(*t);
    return tallies;
  };
  FilesTally out;
  out.totals = fresh_tallies();
  tbb::enumerable_thread_specific<std::vector<EncodeTally>> workers(fresh_tallies);
  for (const TallyInput& input : inputs) {
    count.jsonl = input.jsonl;
    absl::StatusOr<ShardedCounts> counted = CountPreTokensInFiles({input.path}, count);
    if (!counted.ok()) return counted.status();
    std::vector<CountingTable>& tables = counted->tables;
    if (!tokenizers.empty()) CountingTable::MakeDisjoint(tables, LentParallelism(threads));
    uint64_t distinct = 0;
    for (const CountingTable& table : tables) distinct += table.size();
    std::atomic<uint64_t> encoded{0};
    // Each table in parts, several per thread, so that the threads finish together.
    const size_t per_table = static_cast<size_t>(threads) * 4;
    tbb::enumerable_thread_specific<std::vector<uint64_t>> file_tokens(tokenizers.size(), 0);
    std::atomic<bool> cancelled{false};
    RunInParallel(tokenizers.empty() ? 0 : tables.size() * per_table, threads, [&](size_t part) {
      if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) {
        cancelled = true;
        return;
      }
      std::vector<EncodeTally>& tallies = workers.local();
      std::vector<uint64_t>& tokens = file_tokens.local();
      uint64_t here = 0;
      tables[part / per_table].ForEachInPart(
          part % per_table, per_table, [&](absl::string_view pretoken, uint64_t n) {
            const TextClass text_class = ClassifyText(pretoken);
            for (size_t t = 0; t < tallies.size(); ++t) {
              tokens[t] += n * tallies[t].Add(pretoken, n, text_class);
            }
            ++here;
          });
      if (options.progress) {
        options.progress({"encoding", encoded += here, distinct, "pre-tokens", 0});
      }
    });
    if (cancelled) return absl::CancelledError("the report was cancelled");
    // The end, whichever worker's figures came last.
    if (options.progress && !tokenizers.empty()) {
      options.progress({"encoding", distinct, distinct, "pre-tokens", 0});
    }
    FileTally file;
    file.bytes = counted->bytes;
    file.pretokens = counted->pretokens;
    file.documents = counted->documents;
    file.skipped_records = counted->skipped_records;
    file.tokens.assign(tokenizers.size(), 0);
    for (const std::vector<uint64_t>& tokens : file_tokens) {
      for (size_t t = 0; t < tokens.size(); ++t) file.tokens[t] += tokens[t];
    }
    for (size_t s = 0; s < counted->special_counts.size(); ++s) {
      const uint64_t n = counted->special_counts[s];
      if (n == 0) continue;
      for (size_t t = 0; t < tokenizers.size(); ++t) {
        out.totals[t].AddSpecial(s, n);
        file.tokens[t] += n;
      }
    }
    out.files.push_back(std::move(file));
  }
  for (const std::vector<EncodeTally>& tallies : workers) {
    for (size_t t = 0; t < tallies.size(); ++t) out.totals[t].MergeFrom(tallies[t]);
  }
  return out;
}

}  // namespace bpeforge::internal
