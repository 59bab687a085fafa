// The public Tokenizer and StreamEncoder: loading, encoding, decoding, on core's tokenizer and
// the parallel encoder.
#include "core/encode/tokenizer.h"

#include <sys/stat.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bpeforge/bpeforge.h"
#include "core/formats/gpt2_files.h"
#include "core/formats/hf_tokenizer_json.h"
#include "core/formats/id_array.h"
#include "core/formats/manifest.h"
#include "core/formats/tiktoken_files.h"
#include "core/internal/atomic_file.h"
#include "core/internal/file_status.h"
#include "core/internal/status_macros.h"
#include "core/internal/utf8.h"
#include "core/train/vocab.h"
#include "parallel/mapped_file.h"
#include "parallel/parallel_encode.h"
#include "parallel/stream_encoder.h"
#include "parallel/train.h"

namespace bpeforge {

struct Tokenizer::State {
  State(internal::Tokenizer t, std::optional<BpeModel> m)
      : tokenizer(std::move(t)), model(std::move(m)) {}
  internal::Tokenizer tokenizer;
  std::optional<BpeModel> model;  // absent for rank files
  // Per-thread caches of recent pre-tokens for EncodeBatch, kept warm from call to call (a
  // batch of short texts gains most from them: 2x on TinyStories-like documents).
  mutable tbb::enumerable_thread_specific<internal::EncodeCache> batch_caches;
};

namespace {

using State = Tokenizer::State;

using internal::Prefixed;

// Whether two paths name the same file (device and inode), so that an output never
// overwrites an input.
bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa, sb;
  return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

absl::Status CheckNotAnInput(const std::string& output, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs) {
    if (SameFile(output, input)) {
      return absl::InvalidArgumentError(absl::StrCat("the output ", output, " is the input ", input,
                                                     "; refusing to overwrite it"));
    }
  }
  return absl::OkStatus();
}

// The model of a tokenizer made from a vocab and merges: its whole id -> bytes table (special
// tokens included) and the layout that table follows, if any.
BpeModel ModelOf(const internal::Tokenizer& t, const Merges& merges) {
  BpeModel model;
  model.merges = merges;
  model.special_tokens = t.special_tokens().tokens();
  model.pattern = t.pattern();
  model.custom_pattern = t.custom_regex();
  model.vocab.resize(t.id_limit());
  for (size_t id = 0; id < t.id_limit(); ++id) {
    if (auto bytes = t.TokenBytes(static_cast<TokenId>(id))) model.vocab[id] = std::string(*bytes);
  }
  model.layout = internal::BuildVocab(model.special_tokens, merges, IdLayout::kHf) == model.vocab
                     ? IdLayout::kHf
                     : IdLayout::kBytesFirst;
  return model;
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
  absl::StatusOr<internal::Tokenizer> t =
      internal::Tokenizer::Create(vocab, merges, specials, pattern.pattern, pattern.regex);
  if (!t.ok()) return t.status();
  auto state = std::make_shared<State>(*std::move(t), std::nullopt);
  state->model = ModelOf(state->tokenizer, merges);
  return state;
}

absl::StatusOr<std::shared_ptr<State>> FromGpt2Files(const std::string& vocab_path,
                                                     const std::string& merges_path,
                                                     const std::vector<std::string>& specials,
                                                     const PatternChoice& pattern) {
  absl::StatusOr<Vocab> vocab = internal::ReadVocabJson(vocab_path);
  if (!vocab.ok()) return vocab.status();
  absl::StatusOr<Merges> merges = internal::ReadMergesTxt(merges_path);
  if (!merges.ok()) return merges.status();
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
absl::Status CheckVocabJson(const std::string& vocab_path, const Vocab& expected) {
  auto entries = internal::ReadVocabJsonEntries(vocab_path);
  if (!entries.ok()) return entries.status();
  absl::flat_hash_map<absl::string_view, TokenId> distinct;
  for (size_t id = 0; id < expected.size(); ++id) {
    distinct.try_emplace(expected[id], static_cast<TokenId>(id));
  }
  auto mismatch = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(vocab_path, " does not match merges.txt and ",
                                                   internal::kManifestFile, " beside it (", why,
                                                   "); were they written by different runs?"));
  };
  for (const auto& [bytes, id] : *entries) {
    if (id >= expected.size() || expected[id] != bytes) {
      return mismatch(absl::StrCat("token \"", absl::CHexEscape(bytes), "\" has id ", id));
    }
  }
  if (entries->size() != distinct.size()) {
    return mismatch(absl::StrCat(entries->size(), " tokens instead of ", distinct.size()));
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
  if (absl::Status s = CheckPattern(options, pattern, manifest_path); !s.ok()) {
    return s;
  }
  std::vector<std::string> specials = manifest->special_tokens;
  specials.insert(specials.end(), options.special_tokens.begin(), options.special_tokens.end());
  const std::string vocab_path = absl::StrCat(dir, "/", internal::kVocabFile);
  const std::string merges_path = absl::StrCat(dir, "/", internal::kMergesFile);
  // The training options are the model's history, recorded for users; encoding ignores them.
  auto with_options = [&](absl::StatusOr<std::shared_ptr<State>> state) {
    if (state.ok() && (*state)->model.has_value()) {
      (*state)->model->min_frequency = manifest->min_frequency;
      (*state)->model->max_token_length = manifest->max_token_length;
    }
    return state;
  };
  if (manifest->ids_from_vocab_json) {
    return with_options(FromGpt2Files(vocab_path, merges_path, specials, pattern));
  }
  absl::StatusOr<Merges> merges = internal::ReadMergesTxt(merges_path);
  if (!merges.ok()) return merges.status();
  Vocab vocab = internal::BuildVocab(manifest->special_tokens, *merges, manifest->layout);
  if (vocab.size() != manifest->vocab_size) {
    return absl::InvalidArgumentError(
        absl::StrCat(merges_path, ": ", merges->size(), " merges give a vocab of ", vocab.size(),
                     ", but ", internal::kManifestFile, " says ", manifest->vocab_size));
  }
  BPEFORGE_RETURN_IF_ERROR(CheckVocabJson(vocab_path, vocab));
  auto state = FromVocab(vocab, *merges, specials, pattern);
  if (!state.ok()) return Prefixed(dir, state.status());
  return with_options(std::move(state));
}

// A rank file. Its special tokens and pattern come from tiktoken.json beside it (as `bpeforge
// train` writes them) unless a special-ids file is named: then only the requested special
// tokens are used, with the ids it gives.
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
  } else if (std::filesystem::exists(beside)) {
    absl::StatusOr<internal::TiktokenJson> meta = internal::ReadTiktokenJson(beside);
    if (!meta.ok()) return meta.status();
    pattern = {meta->pattern, meta->custom_regex};
    BPEFORGE_RETURN_IF_ERROR(CheckPattern(options, pattern, beside));
    for (const auto& [token, id] : meta->specials) specials.push_back({token, id});
  }
  for (const std::string& s : options.special_tokens) {
    auto it = known.find(s);
    specials.push_back({s, it == known.end() ? std::nullopt : std::optional(it->second)});
  }
  absl::StatusOr<internal::Tokenizer> t =
      internal::Tokenizer::FromRanks(*ranks, specials, pattern.pattern, pattern.regex);
  if (!t.ok()) return Prefixed(path, t.status());
  return std::make_shared<State>(*std::move(t), std::nullopt);
}

// A Hugging Face tokenizer.json of a byte-level BPE model; its added tokens are special.
absl::StatusOr<std::shared_ptr<State>> FromHfJson(const std::string& path,
                                                  const LoadOptions& options) {
  absl::StatusOr<internal::HfTokenizer> hf = internal::ReadHfTokenizerJson(path);
  if (!hf.ok()) return hf.status();
  if (absl::Status s = CheckPattern(options, {hf->pattern, hf->custom_regex}, path); !s.ok()) {
    return s;
  }
  BPEFORGE_RETURN_IF_ERROR(internal::ValidateSpecialTokens(options.special_tokens));
  std::vector<internal::SpecialToken> specials;
  for (const auto& [token, id] : hf->specials) specials.push_back({token, id});
  for (const std::string& s : options.special_tokens) specials.push_back({s, std::nullopt});
  absl::StatusOr<internal::Tokenizer> t = internal::Tokenizer::CreateWithIds(
      hf->vocab, hf->merges, specials, hf->pattern, hf->custom_regex);
  if (!t.ok()) return Prefixed(path, t.status());
  auto state = std::make_shared<State>(*std::move(t), std::nullopt);
  // Saved as a bpeforge directory only when every id has a token, as vocab.json needs.
  bool all_ids = true;
  for (size_t id = 0; all_ids && id < state->tokenizer.id_limit(); ++id) {
    all_ids = state->tokenizer.TokenBytes(static_cast<TokenId>(id)).has_value();
  }
  if (all_ids) state->model = ModelOf(state->tokenizer, hf->merges);
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

absl::Status CheckIdType(const internal::Tokenizer& t, IdType type) {
  if (type == IdType::kUint16 && t.id_limit() > 65536) {
    return absl::InvalidArgumentError(
        absl::StrFormat("the vocabulary has ids up to %d, which do not fit in uint16; use uint32",
                        t.id_limit() - 1));
  }
  return absl::OkStatus();
}

// As in training: all hardware threads by default, and never more.
int ArenaThreads(int threads) { return internal::ThreadsToUse(threads); }

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

absl::Status Tokenizer::Save(const std::string& dir) const {
  if (!state_->model.has_value()) {
    return absl::FailedPreconditionError(
        "this tokenizer cannot be saved: one loaded from a rank file has no merges list, and "
        "one from a tokenizer.json with ids that no token has cannot be written as vocab.json");
  }
  return SaveTokenizer(*state_->model, dir);
}

const BpeModel* Tokenizer::model() const {
  return state_->model.has_value() ? &*state_->model : nullptr;
}

std::vector<TokenId> Tokenizer::Encode(absl::string_view text) const {
  return state_->tokenizer.Encode(text);
}

std::vector<TokenId> Tokenizer::EncodeOrdinary(absl::string_view text) const {
  // A cache pays only on longer texts, where pre-tokens repeat.
  internal::EncodeCache cache(text.size() > 4096 ? 1 << 16 : 0);
  std::vector<TokenId> ids;
  state_->tokenizer.EncodeOrdinary(text, &cache, &ids);
  return ids;
}

std::vector<std::vector<TokenId>> Tokenizer::EncodeBatch(absl::Span<const absl::string_view> texts,
                                                         int threads) const {
  std::vector<std::vector<TokenId>> out(texts.size());
  tbb::task_arena arena(ArenaThreads(threads));
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, texts.size(), [&](size_t i) {
      state_->tokenizer.Encode(texts[i], &state_->batch_caches.local(), &out[i]);
    });
  });
  return out;
}

absl::StatusOr<EncodeFilesStats> Tokenizer::EncodeFiles(
    const std::vector<std::string>& inputs, const EncodeFilesOptions& options,
    absl::FunctionRef<absl::Status(absl::Span<const TokenId>)> sink) const {
  internal::EncodeFilesOptions internal_options;
  internal_options.chunk_bytes = options.chunk_bytes;
  internal_options.progress = options.progress;
  internal_options.jsonl.field = options.input.jsonl_field;
  internal_options.jsonl.skip_bad_records = options.input.skip_bad_records;
  if (!options.separator_token.empty()) {
    const internal::Tokenizer& t = state_->tokenizer;
    const std::vector<std::string>& specials = t.special_tokens().tokens();
    auto it = std::find(specials.begin(), specials.end(), options.separator_token);
    if (it == specials.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the separator token \"", options.separator_token,
                       "\" is not a special token of this tokenizer"));
    }
    internal_options.separator = t.special_ids()[it - specials.begin()];
  }
  auto checked_sink = [&](absl::Span<const TokenId> ids) -> absl::Status {
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) {
      return absl::CancelledError("encoding was cancelled");
    }
    return sink(ids);
  };
  tbb::task_arena arena(ArenaThreads(options.threads));
  absl::StatusOr<internal::EncodeFilesStats> stats;
  arena.execute([&] {
    stats = internal::EncodeFiles(state_->tokenizer, inputs, internal_options, checked_sink);
  });
  if (!stats.ok()) return stats.status();
  return EncodeFilesStats{stats->bytes, stats->tokens, stats->input, arena.max_concurrency()};
}

absl::StatusOr<EncodeFilesStats> Tokenizer::EncodeFile(const std::vector<std::string>& inputs,
                                                       const std::string& output,
                                                       const EncodeFilesOptions& options) const {
  BPEFORGE_RETURN_IF_ERROR(CheckIdType(state_->tokenizer, options.id_type));
  if (output.empty()) return absl::InvalidArgumentError("the output path is empty (\"\")");
  const std::string sidecar_path = internal::IdsSidecarPath(output);
  for (const std::string& path : {output, sidecar_path}) {
    BPEFORGE_RETURN_IF_ERROR(CheckNotAnInput(path, inputs));
  }
  internal::AtomicFile out, sidecar;
  BPEFORGE_RETURN_IF_ERROR(internal::AtomicFile::Open(output, &out));
  BPEFORGE_RETURN_IF_ERROR(internal::AtomicFile::Open(sidecar_path, &sidecar));
  const size_t width = internal::IdWidth(options.id_type);
  std::string buffer;
  absl::StatusOr<EncodeFilesStats> stats =
      EncodeFiles(inputs, options, [&](absl::Span<const TokenId> ids) {
        buffer.clear();
        internal::AppendIds(ids, width, &buffer);
        return out.Write(buffer);
      });
  if (!stats.ok()) return stats.status();
  // Both files complete before either is renamed; the ids first, so that a crash in between
  // leaves new ids beside an old sidecar, whose count then gives it away.
  if (absl::Status s = sidecar.Write(
          internal::FormatIdsSidecar({options.id_type, stats->tokens, Fingerprint()}));
      !s.ok()) {
    return s;
  }
  for (internal::AtomicFile* f : {&out, &sidecar}) {
    BPEFORGE_RETURN_IF_ERROR(f->Finish());
  }
  for (internal::AtomicFile* f : {&out, &sidecar}) {
    BPEFORGE_RETURN_IF_ERROR(f->Commit());
  }
  return stats;
}

absl::StatusOr<std::string> Tokenizer::DecodeBytes(absl::Span<const TokenId> ids) const {
  return state_->tokenizer.DecodeBytes(ids);
}

absl::StatusOr<std::string> Tokenizer::Decode(absl::Span<const TokenId> ids) const {
  return state_->tokenizer.Decode(ids);
}

absl::Status Tokenizer::DecodeFile(const std::string& ids_path, const DecodeFileOptions& options,
                                   absl::FunctionRef<absl::Status(absl::string_view)> sink) const {
  absl::StatusOr<std::optional<internal::IdsSidecar>> sidecar = internal::ReadIdsSidecar(ids_path);
  if (!sidecar.ok()) return sidecar.status();
  const std::string sidecar_path = internal::IdsSidecarPath(ids_path);
  IdType id_type = options.id_type.value_or(IdType::kUint32);
  if (sidecar->has_value()) {
    const internal::IdsSidecar& meta = **sidecar;
    if (options.id_type.has_value() && *options.id_type != meta.type) {
      return absl::InvalidArgumentError(absl::StrCat(ids_path, " holds ", IdTypeName(meta.type),
                                                     " ids (", sidecar_path, "), not ",
                                                     IdTypeName(*options.id_type)));
    }
    if (const std::string mine = Fingerprint(); meta.fingerprint != mine) {
      return absl::InvalidArgumentError(
          absl::StrCat(ids_path, " was encoded with another tokenizer (", sidecar_path, " says ",
                       meta.fingerprint, ", this one is ", mine, ")"));
    }
    id_type = meta.type;
  }
  absl::StatusOr<internal::MappedFile> ids = internal::MappedFile::Open(ids_path);
  if (!ids.ok()) return ids.status();
  const size_t width = internal::IdWidth(id_type);
  const absl::string_view data = ids->data();
  if (data.size() % width != 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: size %d is not a multiple of %d bytes (%s); truncated?", ids_path,
                        data.size(), width, IdTypeName(id_type)));
  }
  const size_t count = data.size() / width;
  if (sidecar->has_value() && (*sidecar)->count != count) {
    return absl::InvalidArgumentError(absl::StrCat(ids_path, " holds ", count, " ids, but ",
                                                   sidecar_path, " says ", (*sidecar)->count));
  }
  // Check every id before writing anything, so that a bad file leaves no output.
  for (size_t i = 0; i < count; ++i) {
    const TokenId id = internal::IdAt(data.data(), i, width);
    if (!state_->tokenizer.TokenBytes(id).has_value()) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: id %d at index %d is not in the vocabulary (ids are below %d)",
                          ids_path, id, i, state_->tokenizer.id_limit()));
    }
  }
  std::string buffer;
  for (size_t i = 0; i < count; ++i) {
    const absl::string_view bytes =
        *state_->tokenizer.TokenBytes(internal::IdAt(data.data(), i, width));
    buffer.append(bytes.data(), bytes.size());
    if (buffer.size() >= (1 << 20)) {
      if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) {
        return absl::CancelledError("decoding was cancelled");
      }
      BPEFORGE_RETURN_IF_ERROR(sink(buffer));
      buffer.clear();
    }
  }
  BPEFORGE_RETURN_IF_ERROR(ids->CheckUnchanged());
  return sink(buffer);
}

absl::Status Tokenizer::DecodeFile(const std::string& ids_path, const DecodeFileOptions& options,
                                   const std::string& output) const {
  if (output.empty()) return absl::InvalidArgumentError("the output path is empty (\"\")");
  if (absl::Status s = CheckNotAnInput(output, {ids_path, internal::IdsSidecarPath(ids_path)});
      !s.ok()) {
    return s;
  }
  internal::AtomicFile file;
  BPEFORGE_RETURN_IF_ERROR(internal::AtomicFile::Open(output, &file));
  absl::Status s =
      DecodeFile(ids_path, options, [&](absl::string_view bytes) { return file.Write(bytes); });
  if (!s.ok()) return s;
  return file.Commit();
}

std::string Tokenizer::Fingerprint() const {
  // FNV-1a over what decoding depends on (id -> bytes, special tokens, pattern): stable across
  // runs and machines, unlike absl::Hash. It tells tokenizers apart; it does not authenticate.
  uint64_t h = 0xcbf29ce484222325ull;
  auto add = [&h](absl::string_view bytes) {
    const std::string length = absl::StrCat(bytes.size(), ":");
    for (absl::string_view part : {absl::string_view(length), bytes}) {
      for (unsigned char c : part) h = (h ^ c) * 0x100000001b3ull;
    }
  };
  add(PatternName(pattern()));
  if (pattern() == Pattern::kCustom) add(custom_pattern());
  for (size_t id = 0; id < id_limit(); ++id) add(TokenBytes(static_cast<TokenId>(id)).value_or(""));
  for (const std::string& s : special_tokens()) add(s);
  return absl::StrFormat("fnv1a64:%016x", h);
}

std::optional<absl::string_view> Tokenizer::TokenBytes(TokenId id) const {
  return state_->tokenizer.TokenBytes(id);
}
size_t Tokenizer::id_limit() const { return state_->tokenizer.id_limit(); }
Pattern Tokenizer::pattern() const { return state_->tokenizer.pattern(); }
const std::string& Tokenizer::custom_pattern() const { return state_->tokenizer.custom_regex(); }
const std::vector<std::string>& Tokenizer::special_tokens() const {
  return state_->tokenizer.special_tokens().tokens();
}
std::optional<TokenId> Tokenizer::SpecialTokenId(absl::string_view token) const {
  const std::vector<std::string>& tokens = special_tokens();
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] == token) return state_->tokenizer.special_ids()[i];
  }
  return std::nullopt;
}

struct StreamEncoder::Impl {
  Impl(std::shared_ptr<const Tokenizer::State> s, size_t cache_entries)
      : state(std::move(s)), encoder(state->tokenizer, 1 << 20, cache_entries) {}
  std::shared_ptr<const Tokenizer::State> state;  // keeps the tables alive
  internal::StreamEncoder encoder;
};

StreamEncoder::StreamEncoder(const Tokenizer& tokenizer, size_t cache_entries)
    : impl_(std::make_unique<Impl>(tokenizer.state_, cache_entries)) {}
StreamEncoder::StreamEncoder(StreamEncoder&&) noexcept = default;
StreamEncoder& StreamEncoder::operator=(StreamEncoder&&) noexcept = default;
StreamEncoder::~StreamEncoder() = default;

void StreamEncoder::Push(absl::string_view piece, std::vector<TokenId>* out) {
  impl_->encoder.Push(piece, out);
}
void StreamEncoder::Finish(std::vector<TokenId>* out) { impl_->encoder.Finish(out); }

}  // namespace bpeforge
