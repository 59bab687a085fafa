// Loading the public Tokenizer: from a vocab and merges, GPT-2 files, a trained directory (its
// manifest, merges and vocab cross-checked), a tiktoken rank file or a Hugging Face
// tokenizer.json.

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "api/tokenizer_state.h"
#include "bpeforge/bpeforge.h"
#include "core/formats/gpt2_files.h"
#include "core/formats/hf_tokenizer_json.h"
#include "core/formats/id_array.h"
#include "core/formats/manifest.h"
#include "core/formats/merge_counts.h"
#include "core/formats/openai_encodings.h"
#include "core/formats/tiktoken_files.h"
#include "core/internal/file_status.h"
#include "core/internal/status_macros.h"
#include "core/train/vocab.h"

namespace bpeforge {
namespace {

using State = Tokenizer::State;

using internal::Prefixed;

// The model of a tokenizer made from a vocab and merges: its whole id -> bytes table (special
// tokens included) and the layout that table follows, if any.
BpeModel ModelOf(const internal::BpeCodec& t, Merges merges) {
  BpeModel model;
  model.merges = std::move(merges);
  model.special_tokens = t.special_tokens().tokens();
  model.pattern = t.pattern();
  model.custom_pattern = t.custom_regex();
  model.vocab.resize(t.id_limit());
  for (size_t id = 0; id < t.id_limit(); ++id) {
    if (t.HasToken(static_cast<TokenId>(id))) {
      t.AppendTokenBytes(static_cast<TokenId>(id), &model.vocab[id]);
    }
  }
  model.layout =
      internal::IsBuiltVocab(model.vocab, model.special_tokens, model.merges, IdLayout::kHf)
          ? IdLayout::kHf
          : IdLayout::kBytesFirst;
  return model;
}

// The same for a tokenizer made by a Builder, its merges spelled from their parts' ids.
BpeModel ModelOfBuilt(const internal::BpeCodec& t) {
  Merges merges;
  merges.reserve(t.merge_ids().size());
  for (const auto& [left, right] : t.merge_ids()) {
    Merge& merge = merges.emplace_back();
    t.AppendTokenBytes(left, &merge.first);
    t.AppendTokenBytes(right, &merge.second);
  }
  return ModelOf(t, std::move(merges));
}

// A State whose model is made when it is first asked for.
std::shared_ptr<State> StateOf(internal::BpeCodec t, std::optional<Merges> merges) {
  auto state = std::make_shared<State>(std::move(t));
  const internal::BpeCodec* tokenizer = &state->tokenizer;  // lives as long as the state
  if (merges.has_value()) {
    state->make_model = [tokenizer, merges = *std::move(merges)] {
      return ModelOf(*tokenizer, merges);
    };
  } else {
    state->make_model = [tokenizer] { return ModelOfBuilt(*tokenizer); };
  }
  return state;
}

// A pattern and, for Pattern::kCustom, its regex.
struct PatternChoice {
  Pattern pattern = Pattern::kGpt2;
  std::string regex;
};
PatternChoice Requested(const LoadOptions& options) {
  return {options.pattern.value_or(Pattern::kGpt2), options.custom_pattern};
}
std::string Describe(const PatternChoice& p) {
  return p.pattern == Pattern::kCustom ? absl::StrCat("custom pattern ", p.regex)
                                       : absl::StrCat("pattern ", internal::PatternName(p.pattern));
}

absl::StatusOr<std::shared_ptr<State>> FromVocab(const Vocab& vocab, const Merges& merges,
                                                 const std::vector<std::string>& specials,
                                                 const PatternChoice& pattern) {
  BPEFORGE_RETURN_IF_ERROR(internal::ValidateSpecialTokens(specials));
  absl::StatusOr<internal::BpeCodec> t =
      internal::BpeCodec::Create(vocab, merges, specials, pattern.pattern, pattern.regex);
  if (!t.ok()) return t.status();
  return StateOf(*std::move(t), merges);
}

absl::StatusOr<std::shared_ptr<State>> FromGpt2Files(const std::string& vocab_path,
                                                     const std::string& merges_path,
                                                     const std::vector<std::string>& specials,
                                                     const PatternChoice& pattern,
                                                     size_t* merge_count = nullptr) {
  absl::StatusOr<Vocab> vocab = internal::ReadVocabJson(vocab_path);
  if (!vocab.ok()) return vocab.status();
  absl::StatusOr<Merges> merges = internal::ReadMergesTxt(merges_path);
  if (!merges.ok()) return merges.status();
  if (merge_count != nullptr) *merge_count = merges->size();
  auto state = FromVocab(*vocab, *merges, specials, pattern);
  if (!state.ok()) return Prefixed(absl::StrCat(vocab_path, " + ", merges_path), state.status());
  return state;
}

absl::Status CheckPattern(const LoadOptions& options, const PatternChoice& found,
                          const std::string& path) {
  const PatternChoice requested = Requested(options);
  if (options.pattern.has_value() &&
      (requested.pattern != found.pattern ||
       (found.pattern == Pattern::kCustom && requested.regex != found.regex))) {
    return absl::InvalidArgumentError(
        absl::StrCat(Describe(requested), " differs from the ", Describe(found), " in ", path));
  }
  return absl::OkStatus();
}

// A directory's vocab.json must say what its manifest and merges.txt say, so that a damaged
// directory, or one whose files come from different runs (an interrupted save), is refused
// rather than used.
absl::Status CheckVocabJson(const std::string& vocab_path,
                            const internal::BpeCodec::Builder& expected) {
  auto mismatch = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(vocab_path, " does not match merges.txt and ",
                                                   internal::kManifestFile, " beside it (", why,
                                                   "); were they written by different runs?"));
  };
  // Read as it comes: a vocabulary of long tokens is many times its tokenizer's memory.
  std::vector<bool> seen(expected.size());
  BPEFORGE_RETURN_IF_ERROR(internal::ForEachVocabJsonEntry(
      vocab_path, [&](absl::string_view bytes, TokenId id) -> absl::Status {
        if (id >= expected.size() || !expected.Is(id, bytes)) {
          return mismatch(absl::StrCat("token \"", absl::CHexEscape(bytes.substr(0, 100)),
                                       bytes.size() > 100 ? "..." : "", "\" has id ", id));
        }
        seen[id] = true;
        return absl::OkStatus();
      }));
  if (const size_t found = std::count(seen.begin(), seen.end(), true); found != seen.size()) {
    return mismatch(absl::StrCat(found, " tokens instead of ", seen.size()));
  }
  return absl::OkStatus();
}

// A trained directory: the manifest gives pattern, special tokens and id layout, and the
// vocab follows from them and merges.txt (so repeated merge results keep their own ids),
// unless the manifest says the ids are vocab.json's.
absl::StatusOr<std::shared_ptr<State>> FromTrainedDir(const std::string& dir,
                                                      const LoadOptions& options) {
  const std::string manifest_path = absl::StrCat(dir, "/", internal::kManifestFile);
  absl::StatusOr<internal::Manifest> manifest = internal::ReadManifest(manifest_path);
  if (!manifest.ok()) return manifest.status();
  const PatternChoice pattern{manifest->pattern, manifest->custom_regex};
  BPEFORGE_RETURN_IF_ERROR(CheckPattern(options, pattern, manifest_path));
  std::vector<std::string> specials = manifest->special_tokens;
  specials.insert(specials.end(), options.special_tokens.begin(), options.special_tokens.end());
  const std::string vocab_path = absl::StrCat(dir, "/", internal::kVocabFile);
  const std::string merges_path = absl::StrCat(dir, "/", internal::kMergesFile);
  // The training options and merge counts are the model's history, recorded for users;
  // encoding ignores them. The counts are read now, so that a damaged file is refused at once.
  auto with_history = [&](absl::StatusOr<std::shared_ptr<State>> state,
                          size_t merges) -> absl::StatusOr<std::shared_ptr<State>> {
    if (state.ok() && (*state)->make_model) {
      absl::StatusOr<std::optional<std::vector<uint64_t>>> counts =
          internal::ReadMergeCountsIfThere(absl::StrCat(dir, "/", internal::kMergeCountsFile),
                                           merges);
      if (!counts.ok()) return counts.status();
      (*state)->has_merge_counts = counts->has_value();
      (*state)->make_model =
          [make = std::move((*state)->make_model), min_frequency = manifest->min_frequency,
           max_token_length = manifest->max_token_length, merge_counts = *std::move(counts)] {
            BpeModel model = make();
            model.min_frequency = min_frequency;
            model.max_token_length = max_token_length;
            if (merge_counts.has_value()) model.merge_counts = *merge_counts;
            return model;
          };
    }
    return state;
  };
  if (manifest->ids_from_vocab_json) {
    size_t merges = 0;
    auto state = FromGpt2Files(vocab_path, merges_path, specials, pattern, &merges);
    return with_history(std::move(state), merges);
  }
  BPEFORGE_RETURN_IF_ERROR(internal::ValidateSpecialTokens(specials));
  // Made as merges.txt is read, a line at a time: the tokens of a file of one letter come to
  // many times the file, and are kept as their merges (core/encode/long_tokens.h).
  internal::BpeCodec::Builder builder(manifest->special_tokens, manifest->layout);
  size_t merges = 0;
  BPEFORGE_RETURN_IF_ERROR(
      internal::ForEachMerge(merges_path, [&](absl::string_view left, absl::string_view right) {
        ++merges;
        return builder.AddMerge(left, right);
      }));
  if (builder.size() != manifest->vocab_size) {
    return absl::InvalidArgumentError(
        absl::StrCat(merges_path, ": ", merges, " merges give a vocab of ", builder.size(),
                     ", but ", internal::kManifestFile, " says ", manifest->vocab_size));
  }
  BPEFORGE_RETURN_IF_ERROR(CheckVocabJson(vocab_path, builder));
  absl::StatusOr<internal::BpeCodec> t =
      std::move(builder).Finish(options.special_tokens, pattern.pattern, pattern.regex);
  if (!t.ok()) return Prefixed(dir, t.status());
  return with_history(StateOf(*std::move(t), std::nullopt), merges);
}

// A rank file, which names neither its pattern nor its special tokens. They come from
// tiktoken.json beside it (as `bpeforge train` writes them), unless a special-ids file is named:
// then only the requested special tokens are used, with the ids it gives. Else, for OpenAI's own
// rank files (told by their ranks), from what tiktoken knows of them; else the pattern must be
// given.
absl::StatusOr<std::shared_ptr<State>> FromRankFile(const std::string& path,
                                                    const LoadOptions& options) {
  absl::StatusOr<internal::Ranks> ranks = internal::ReadTiktokenRanks(path);
  if (!ranks.ok()) return ranks.status();
  BPEFORGE_RETURN_IF_ERROR(internal::ValidateSpecialTokens(options.special_tokens));
  std::vector<internal::SpecialToken> specials;
  PatternChoice pattern = Requested(options);
  absl::flat_hash_map<std::string, TokenId> known;
  const std::string beside =
      (std::filesystem::path(path).parent_path() / internal::kTiktokenJsonFile).string();
  if (!options.special_ids_path.empty()) {
    auto ids = internal::ReadSpecialTokenIds(options.special_ids_path);
    if (!ids.ok()) return ids.status();
    for (const auto& [token, id] : *ids) known[token] = id;
  }
  if (options.special_ids_path.empty() && std::filesystem::exists(beside)) {
    absl::StatusOr<internal::TiktokenJson> meta = internal::ReadTiktokenJson(beside);
    if (!meta.ok()) return meta.status();
    pattern = {meta->pattern, meta->custom_regex};
    BPEFORGE_RETURN_IF_ERROR(CheckPattern(options, pattern, beside));
    for (const auto& [token, id] : meta->specials) specials.push_back({token, id});
  } else if (const internal::OpenAiEncoding* openai = internal::RecognizeOpenAiRanks(*ranks)) {
    pattern = {openai->pattern, ""};
    BPEFORGE_RETURN_IF_ERROR(
        CheckPattern(options, pattern, absl::StrCat(path, " (OpenAI's ", openai->name, " ranks)")));
    if (options.special_ids_path.empty()) {
      for (const auto& [token, id] : openai->specials) specials.push_back({token, id});
    }
  } else if (!options.pattern.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": a tiktoken rank file does not say which pre-tokenizer pattern it was made with, ",
        "and no ", internal::kTiktokenJsonFile,
        " is beside it to say so; give the pattern (gpt2, cl100k, o200k or a regex)"));
  }
  for (const std::string& s : options.special_tokens) {
    auto it = known.find(s);
    specials.push_back({s, it == known.end() ? std::nullopt : std::optional(it->second)});
  }
  absl::StatusOr<internal::BpeCodec> t =
      internal::BpeCodec::FromRanks(*ranks, specials, pattern.pattern, pattern.regex);
  if (!t.ok()) return Prefixed(path, t.status());
  auto state = std::make_shared<State>(*std::move(t));
  state->from_rank_file = true;
  state->why_no_model = absl::StrCat(
      "it was read from the tiktoken rank file ", path,
      ", which has ranks but no merges list (vocab.json, merges.txt and tokenizer.json need one)");
  return state;
}

// The id of a vocab entry of `hf`, longer than a byte and no added token, that no merge makes.
std::optional<TokenId> EntryNoMergeMakes(const internal::HfTokenizer& hf) {
  absl::flat_hash_set<std::string> made;
  for (const auto& [left, right] : hf.merges) made.insert(left + right);
  for (const auto& [token, id] : hf.specials) made.insert(token);
  for (size_t id = 0; id < hf.vocab.size(); ++id) {
    if (hf.vocab[id].size() > 1 && !made.contains(hf.vocab[id])) return static_cast<TokenId>(id);
  }
  return std::nullopt;
}

// A Hugging Face tokenizer.json of a byte-level BPE model; its added tokens are special.
absl::StatusOr<std::shared_ptr<State>> FromHfJson(const std::string& path,
                                                  const LoadOptions& options) {
  absl::StatusOr<internal::HfTokenizer> hf = internal::ReadHfTokenizerJson(path);
  if (!hf.ok()) return hf.status();
  BPEFORGE_RETURN_IF_ERROR(CheckPattern(options, {hf->pattern, hf->custom_regex}, path));
  BPEFORGE_RETURN_IF_ERROR(internal::ValidateSpecialTokens(options.special_tokens));
  std::vector<internal::SpecialToken> specials;
  for (const auto& [token, id] : hf->specials) specials.push_back({token, id});
  for (const std::string& s : options.special_tokens) specials.push_back({s, std::nullopt});
  absl::StatusOr<internal::BpeCodec> t = internal::BpeCodec::CreateWithIds(
      hf->vocab, hf->merges, specials, hf->pattern, hf->custom_regex, hf->ignore_merges);
  if (!t.ok()) return Prefixed(path, t.status());
  // bpeforge's files look a pre-token up whole (tiktoken's rule), which a vocab entry that no
  // merge makes would become under merges alone.
  std::string why_no_model;
  if (std::optional<TokenId> id = hf->ignore_merges ? std::nullopt : EntryNoMergeMakes(*hf)) {
    why_no_model = absl::StrCat(
        path, " holds \"", absl::CHexEscape(hf->vocab[*id]), "\" (id ", *id,
        "), which no merge makes, and its ignore_merges is false: its files would make that entry "
        "a pre-token's id");
  }
  // Saved as a bpeforge directory only when every id has a token, as vocab.json needs.
  for (size_t id = 0; why_no_model.empty() && id < t->id_limit(); ++id) {
    if (!t->HasToken(static_cast<TokenId>(id))) {
      why_no_model = absl::StrCat(path, " leaves id ", id,
                                  " without a token, and vocab.json cannot leave a gap");
    }
  }
  if (why_no_model.empty()) return StateOf(*std::move(t), std::move(hf->merges));
  auto state = std::make_shared<State>(*std::move(t));
  state->why_no_model = std::move(why_no_model);
  return state;
}

bool IsJsonFile(const std::string& path) {
  if (absl::EndsWith(path, ".json")) return true;
  std::string head;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    head.resize(64);
    head.resize(std::fread(head.data(), 1, head.size(), f));
    std::fclose(f);
  }
  const size_t first = head.find_first_not_of(" \t\r\n");
  return first != std::string::npos && head[first] == '{';
}

}  // namespace

absl::StatusOr<Tokenizer> Tokenizer::FromModel(const BpeModel& model) {
  return Create(model.vocab, model.merges, model.special_tokens, model.pattern,
                model.custom_pattern);
}

absl::StatusOr<Tokenizer> Tokenizer::Create(const Vocab& vocab, const Merges& merges,
                                            const std::vector<std::string>& special_tokens,
                                            Pattern pattern, absl::string_view custom_pattern) {
  auto state =
      FromVocab(vocab, merges, special_tokens, PatternChoice{pattern, std::string(custom_pattern)});
  if (!state.ok()) return state.status();
  return Tokenizer(*std::move(state));
}

absl::StatusOr<Tokenizer> Tokenizer::Load(const std::string& path, const LoadOptions& options) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return internal::ErrnoStatus(ENOENT, "cannot load a tokenizer from", path);
  }
  absl::StatusOr<std::shared_ptr<State>> state;
  auto in_dir = [&path](const char* name) { return absl::StrCat(path, "/", name); };
  if (!std::filesystem::is_directory(status)) {
    if (IsJsonFile(path)) {
      if (!options.special_ids_path.empty()) {
        return absl::InvalidArgumentError("special token ids from a JSON file go with a rank file");
      }
      state = FromHfJson(path, options);
    } else {
      state = FromRankFile(path, options);
    }
  } else if (!options.special_ids_path.empty()) {
    return absl::InvalidArgumentError("special token ids from a JSON file go with a rank file");
  } else if (std::filesystem::exists(in_dir(internal::kManifestFile))) {
    state = FromTrainedDir(path, options);
  } else if (!std::filesystem::exists(in_dir(internal::kVocabFile)) &&
             std::filesystem::exists(in_dir(internal::kHfTokenizerFile))) {
    state = FromHfJson(in_dir(internal::kHfTokenizerFile), options);
  } else {
    state = FromGpt2Files(absl::StrCat(path, "/", internal::kVocabFile),
                          absl::StrCat(path, "/", internal::kMergesFile), options.special_tokens,
                          Requested(options));
  }
  if (!state.ok()) return state.status();
  return Tokenizer(*std::move(state));
}

absl::StatusOr<Tokenizer> Tokenizer::LoadGpt2(const std::string& vocab_path,
                                              const std::string& merges_path,
                                              const LoadOptions& options) {
  if (!options.special_ids_path.empty()) {
    return absl::InvalidArgumentError("special token ids from a JSON file go with a rank file");
  }
  auto state = FromGpt2Files(vocab_path, merges_path, options.special_tokens, Requested(options));
  if (!state.ok()) return state.status();
  return Tokenizer(*std::move(state));
}
}  // namespace bpeforge
