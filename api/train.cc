// Training and saving, on the parallel trainer.
#include "parallel/train.h"

#include <utility>

#include "api/options.h"
#include "bpeforge/bpeforge.h"
#include "core/formats/gpt2_files.h"
#include "core/formats/hf_tokenizer_json.h"
#include "core/formats/manifest.h"
#include "core/formats/tiktoken_files.h"
#include "core/internal/atomic_file.h"
#include "core/train/vocab.h"

namespace bpeforge {
namespace {

TrainResult FromInternal(internal::TrainResult result, const TrainOptions& options) {
  TrainResult out;
  out.model.vocab = std::move(result.trained.vocab);
  out.model.merges = std::move(result.trained.merges);
  out.model.special_tokens = std::move(result.trained.special_tokens);
  out.model.pattern = options.pattern;
  out.model.custom_pattern = options.pattern == Pattern::kCustom ? options.custom_pattern : "";
  out.model.layout = options.layout;
  out.model.min_frequency = options.min_frequency;
  out.model.max_token_length = options.max_token_length;
  out.stats = result.stats;
  return out;
}

}  // namespace

absl::StatusOr<TrainResult> Train(const std::vector<std::string>& inputs,
                                  const TrainOptions& options) {
  internal::TrainJob job = ToInternal(options);
  job.inputs = inputs;
  absl::StatusOr<internal::TrainResult> result = internal::Train(job);
  if (!result.ok()) return result.status();
  return FromInternal(*std::move(result), options);
}

absl::StatusOr<TrainResult> TrainFromCounts(const PreTokenCounts& counts,
                                            const TrainOptions& options) {
  absl::StatusOr<internal::TrainResult> result =
      internal::LearnFromCounts({&counts}, ToInternal(options));
  if (!result.ok()) return result.status();
  for (const auto& [word, n] : counts) result->stats.pretokens += n;
  return FromInternal(*std::move(result), options);
}

absl::Status SaveTokenizer(const BpeModel& model, const std::string& dir) {
  internal::Manifest manifest{model.pattern, model.special_tokens, model.layout,
                              model.vocab.size()};
  manifest.min_frequency = model.min_frequency;
  manifest.custom_regex = model.custom_pattern;
  manifest.max_token_length = model.max_token_length;
  manifest.ids_from_vocab_json =
      !internal::IsBuiltVocab(model.vocab, model.special_tokens, model.merges, model.layout);
  absl::StatusOr<internal::TiktokenTables> tables =
      internal::TiktokenTablesOf(model.vocab, model.merges, model.special_tokens);
  if (!tables.ok()) return tables.status();
  using internal::TextSink;
  return internal::WriteFilesAtomically(
      dir, {
               {internal::kVocabFile,
                [&](TextSink& out) {
                  internal::WriteVocabJson(model.vocab, out);
                  return absl::OkStatus();
                }},
               {internal::kMergesFile,
                [&](TextSink& out) {
                  internal::WriteMergesTxt(model.merges, out);
                  return absl::OkStatus();
                }},
               {internal::kHfTokenizerFile,
                [&](TextSink& out) {
                  return internal::WriteHfTokenizerJson(*tables, model.merges, model.pattern,
                                                        model.custom_pattern, out);
                }},
               {internal::kTiktokenRanksFile,
                [&](TextSink& out) {
                  internal::WriteTiktokenRanks(tables->ranks, out);
                  return absl::OkStatus();
                }},
               {internal::kTiktokenJsonFile,
                [&](TextSink& out) {
                  internal::WriteTiktokenJson(*tables, model.pattern, model.custom_pattern, out);
                  return absl::OkStatus();
                }},
               // Last, so that a manifest beside the files means the set is complete.
               {internal::kManifestFile,
                [&](TextSink& out) {
                  out.Append(internal::FormatManifestJson(manifest));
                  return absl::OkStatus();
                }},
           });
}

}  // namespace bpeforge
