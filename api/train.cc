// Training and saving, on the parallel trainer.
#include "parallel/train.h"

#include <cerrno>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "api/options.h"
#include "bpeforge/bpeforge.h"
#include "bpeforge/internal/front_ends.h"
#include "core/formats/gpt2_files.h"
#include "core/formats/hf_tokenizer_json.h"
#include "core/formats/manifest.h"
#include "core/formats/merge_counts.h"
#include "core/formats/tiktoken_files.h"
#include "core/formats/token_spelling.h"
#include "core/internal/atomic_file.h"
#include "core/internal/file_status.h"
#include "core/internal/status_macros.h"
#include "core/train/vocab.h"

namespace bpeforge {
namespace {

// The files of SaveTokenizer, written together, whole or not at all; once `cancel` (when given)
// reads true, none (Cancelled).
absl::Status WriteTokenizerFiles(const internal::TokenSpelling& tokens,
                                 const internal::Manifest& manifest,
                                 absl::Span<const uint64_t> merge_counts, const std::string& dir,
                                 const std::atomic<bool>* cancel) {
  absl::StatusOr<internal::TiktokenTables> tables =
      internal::TiktokenTablesOf(tokens, manifest.special_tokens, cancel);
  if (!tables.ok()) return tables.status();
  const Pattern pattern = manifest.pattern;
  const std::string& regex = manifest.custom_regex;
  using internal::TextSink;
  std::vector<std::pair<std::string, internal::WriteContents>> files = {
      {internal::kVocabFile,
       [&](TextSink& out) {
         internal::WriteVocabJson(tokens, out);
         return absl::OkStatus();
       }},
      {internal::kMergesFile,
       [&](TextSink& out) {
         internal::WriteMergesTxt(tokens, out);
         return absl::OkStatus();
       }},
      {internal::kHfTokenizerFile,
       [&](TextSink& out) {
         return internal::WriteHfTokenizerJson(*tables, tokens, pattern, regex, out);
       }},
      {internal::kTiktokenRanksFile,
       [&](TextSink& out) {
         internal::WriteTiktokenRanks(*tables, tokens, out);
         return absl::OkStatus();
       }},
      {internal::kTiktokenJsonFile,
       [&](TextSink& out) {
         internal::WriteTiktokenJson(*tables, tokens, pattern, regex, out);
         return absl::OkStatus();
       }},
  };
  if (!merge_counts.empty()) {
    files.emplace_back(internal::kMergeCountsFile, [&](TextSink& out) {
      internal::WriteMergeCounts(merge_counts, out);
      return absl::OkStatus();
    });
  }
  // Last, so that a manifest beside the files means the set is complete.
  files.emplace_back(internal::kManifestFile, [&](TextSink& out) {
    out.Append(internal::FormatManifestJson(manifest));
    return absl::OkStatus();
  });
  return internal::WriteFilesAtomically(dir, files, cancel);
}

// The files of SaveTokenizer, from any spelling of the tokens; merge_counts.txt with the
// counts when they are known (one per merge), and else none, not even an earlier run's. Once
// `cancel` (when given) reads true, none (Cancelled).
absl::Status SaveFiles(const internal::TokenSpelling& tokens, const internal::Manifest& manifest,
                       absl::Span<const uint64_t> merge_counts, const std::string& dir,
                       const std::atomic<bool>* cancel = nullptr) {
  if (!merge_counts.empty() && merge_counts.size() != tokens.merges()) {
    return absl::InvalidArgumentError(
        absl::StrCat(merge_counts.size(), " merge counts for ", tokens.merges(), " merges"));
  }
  absl::Status saved = WriteTokenizerFiles(tokens, manifest, merge_counts, dir, cancel);
  if (!saved.ok() || !merge_counts.empty()) return saved;
  const std::string stale = absl::StrCat(dir, "/", internal::kMergeCountsFile);
  if (std::remove(stale.c_str()) != 0 && errno != ENOENT) {
    return internal::ErrnoStatus(errno, "cannot remove the earlier", stale);
  }
  return absl::OkStatus();
}

internal::Manifest ManifestOf(const TrainOptions& options,
                              const std::vector<std::string>& special_tokens, size_t vocab_size) {
  internal::Manifest manifest{options.pattern, special_tokens, options.layout, vocab_size};
  manifest.min_frequency = options.min_frequency;
  manifest.custom_regex = options.pattern == Pattern::kCustom ? options.custom_pattern : "";
  manifest.max_token_length = options.max_token_length;
  return manifest;
}

// How often each merge of training's tree occurred when it was made.
std::vector<uint64_t> MergeCountsOf(const internal::TokenTree& tokens) {
  std::vector<uint64_t> counts(tokens.merges());
  for (size_t i = 0; i < counts.size(); ++i) counts[i] = tokens.merge_count(i);
  return counts;
}

}  // namespace

std::string ProgressLine(const ProgressFigures& figures, size_t vocab_size) {
  const absl::string_view phase = figures.phase;
  std::string line;
  if (phase == "merging") {
    return absl::StrCat("merging: ", figures.done, " merges (vocab goal ", vocab_size, ")");
  }
  if (phase == "counting" || figures.total == 0) {
    // Documents in memory, and standard input, have no size to show a share of.
    line = absl::StrFormat("%s: %.1f MB %s", phase, figures.done / 1e6,
                           phase == "counting" ? "counted" : "read");
  } else {
    // Compressed bytes are counted as read.
    line = absl::StrFormat("%s: %.0f%% of %.1f MB", phase, 100.0 * figures.done / figures.total,
                           figures.total / 1e6);
  }
  if (figures.documents > 1) absl::StrAppend(&line, ", ", figures.documents, " documents");
  return line;
}

TrainResult FromInternal(internal::TrainJobResult result, const TrainOptions& options) {
  TrainResult out;
  out.model.vocab = std::move(result.trained.vocab);
  out.model.merges = std::move(result.trained.merges);
  out.model.special_tokens = std::move(result.trained.special_tokens);
  out.model.pattern = options.pattern;
  out.model.custom_pattern = options.pattern == Pattern::kCustom ? options.custom_pattern : "";
  out.model.layout = options.layout;
  out.model.min_frequency = options.min_frequency;
  out.model.max_token_length = options.max_token_length;
  out.model.merge_counts = MergeCountsOf(result.trained.tokens);
  out.stats = result.stats;
  return out;
}

// Its tokens stay a tree, spelled out one at a time as the files are written.
absl::StatusOr<TrainStats> SaveTrained(const internal::TrainJobResult& result,
                                       const TrainOptions& options, const std::string& dir) {
  const internal::TrainedVocab& trained = result.trained;
  const internal::TreeSpelling tokens(trained.tokens, trained.special_tokens, options.layout);
  BPEFORGE_RETURN_IF_ERROR(SaveFiles(tokens,
                                     ManifestOf(options, trained.special_tokens, tokens.size()),
                                     MergeCountsOf(trained.tokens), dir, options.cancel));
  return result.stats;
}

absl::StatusOr<TrainResult> Train(const std::vector<std::string>& inputs,
                                  const TrainOptions& options) {
  internal::TrainJob job = ToInternal(options);
  job.inputs = inputs;
  absl::StatusOr<internal::TrainJobResult> result = internal::RunTrainJob(job);
  if (!result.ok()) return result.status();
  return FromInternal(*std::move(result), options);
}

absl::StatusOr<TrainStats> TrainAndSave(const std::vector<std::string>& inputs,
                                        const TrainOptions& options, const std::string& dir) {
  internal::TrainJob job = ToInternal(options);
  job.inputs = inputs;
  job.trainer.spell_out = false;
  absl::StatusOr<internal::TrainJobResult> result = internal::RunTrainJob(job);
  if (!result.ok()) return result.status();
  return SaveTrained(*result, options, dir);
}

absl::StatusOr<TrainStats> TrainFromCountsAndSave(const PreTokenCounts& counts,
                                                  const TrainOptions& options,
                                                  const std::string& dir) {
  internal::TrainJob job = ToInternal(options);
  job.trainer.spell_out = false;
  absl::StatusOr<internal::TrainJobResult> result = internal::LearnFromCounts({&counts}, job);
  if (!result.ok()) return result.status();
  for (const auto& [word, n] : counts) result->stats.pretokens += n;
  return SaveTrained(*result, options, dir);
}

absl::Status SaveTokenizer(const BpeModel& model, const std::string& dir) {
  internal::Manifest manifest{model.pattern, model.special_tokens, model.layout,
                              model.vocab.size()};
  manifest.min_frequency = model.min_frequency;
  manifest.custom_regex = model.custom_pattern;
  manifest.max_token_length = model.max_token_length;
  manifest.ids_from_vocab_json =
      !internal::IsBuiltVocab(model.vocab, model.special_tokens, model.merges, model.layout);
  return SaveFiles(internal::VocabSpelling(model.vocab, model.merges), manifest, model.merge_counts,
                   dir);
}

}  // namespace bpeforge
