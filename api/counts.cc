// Inputs and pre-token counts: expanding input arguments, counting files, and saving and
// loading count files.
#include <utility>

#include "absl/strings/str_cat.h"
#include "api/options.h"
#include "bpeforge/bpeforge.h"
#include "core/formats/counts_file.h"
#include "core/internal/atomic_file.h"
#include "core/internal/status_macros.h"
#include "core/pretokenize/pretokenizer.h"
#include "core/pretokenize/special_tokens.h"
#include "input/input_paths.h"
#include "input/mapped_file.h"
#include "parallel/train.h"

namespace bpeforge {

absl::StatusOr<std::vector<std::string>> ExpandInputs(const std::vector<std::string>& inputs,
                                                      const std::vector<std::string>& include,
                                                      std::vector<std::string>* left_out,
                                                      bool count_files) {
  return internal::ExpandInputs(inputs, include, left_out, count_files);
}

absl::StatusOr<CountedText> CountPreTokens(const std::vector<std::string>& inputs,
                                           const TrainOptions& options) {
  internal::TrainJob job = ToInternal(options);
  job.inputs = inputs;
  // Counting needs no vocabulary size; the smallest valid one passes the config check.
  job.trainer.vocab_size = 256 + internal::SpecialTokens(options.special_tokens).tokens().size();
  // The workers' own tables, made disjoint and copied into the map once: combined into shards
  // first, every pre-token was copied three times (count of web 1 GB: 0.89 of the time, peak
  // memory 566 against 986 MiB).
  absl::StatusOr<internal::ShardedCounts> sharded = internal::CountInputs(job, /*per_worker=*/true);
  if (!sharded.ok()) return sharded.status();
  CountedText out;
  out.pattern = options.pattern;
  out.custom_pattern = job.custom_regex;
  out.special_tokens = internal::SpecialTokens(options.special_tokens).tokens();
  out.bytes = sharded->bytes;
  out.pretokens = sharded->pretokens;
  out.input = sharded->input_stats();
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
  return out;
}

absl::Status SaveCounts(const CountedText& counted, const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("the output path is empty (\"\")");
  internal::AtomicFile file;
  BPEFORGE_RETURN_IF_ERROR(internal::AtomicFile::Open(path, &file));
  const internal::CountsHeader header{counted.pattern, counted.special_tokens, counted.bytes,
                                      counted.pretokens, counted.custom_pattern};
  BPEFORGE_RETURN_IF_ERROR(internal::WriteCountsFile(
      header, counted.counts, [&](absl::string_view bytes) { return file.Write(bytes); }));
  return file.Commit();
}

absl::StatusOr<CountedText> LoadCounts(const std::vector<std::string>& paths) {
  if (paths.empty()) return absl::InvalidArgumentError("no count file given");
  CountedText out;
  for (size_t i = 0; i < paths.size(); ++i) {
    absl::StatusOr<internal::MappedFile> file = internal::MappedFile::Open(paths[i]);
    if (!file.ok()) return file.status();
    absl::StatusOr<internal::CountsHeader> header =
        internal::ParseCountsFile(file->data(), paths[i], &out.counts);
    if (!header.ok()) return header.status();
    BPEFORGE_RETURN_IF_ERROR(file->CheckUnchanged());
    if (i == 0) {
      out.pattern = header->pattern;
      out.custom_pattern = header->custom_regex;
      out.special_tokens = header->special_tokens;
    } else if (header->pattern != out.pattern || header->custom_regex != out.custom_pattern ||
               header->special_tokens != out.special_tokens) {
      auto describe = [](Pattern p, const std::string& regex,
                         const std::vector<std::string>& specials) {
        std::string s = p == Pattern::kCustom ? absl::StrCat("custom pattern ", regex)
                                              : absl::StrCat("pattern ", PatternName(p));
        absl::StrAppend(&s, ", special tokens [");
        for (size_t k = 0; k < specials.size(); ++k) {
          absl::StrAppend(&s, k > 0 ? ", " : "", "\"", specials[k], "\"");
        }
        return s + "]";
      };
      return absl::InvalidArgumentError(absl::StrCat(
          paths[i], " was counted with ",
          describe(header->pattern, header->custom_regex, header->special_tokens), ", but ",
          paths[0], " with ", describe(out.pattern, out.custom_pattern, out.special_tokens),
          "; counts are added up only when both agree"));
    }
    out.bytes += header->bytes;
    out.pretokens += header->pretokens;
  }
  return out;
}

}  // namespace bpeforge
