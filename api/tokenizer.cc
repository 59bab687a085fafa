// The public Tokenizer and StreamEncoder: encoding, decoding and saving, on core's tokenizer
// and the parallel encoder (loading is in load_tokenizer.cc).
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "api/options.h"
#include "api/tokenizer_state.h"
#include "bpeforge/bpeforge.h"
#include "core/encode/stream_encoder.h"
#include "core/formats/id_array.h"
#include "core/internal/atomic_file.h"
#include "core/internal/file_status.h"
#include "core/internal/status_macros.h"
#include "input/mapped_file.h"
#include "parallel/background_writer.h"
#include "parallel/parallel_encode.h"
#include "parallel/train.h"

namespace bpeforge {

namespace {

// FNV-1a, 64 bits, over length-prefixed strings ("5:hello"), so that no two lists of strings
// run together alike.
class Fnv1a64 {
 public:
  void Add(absl::string_view bytes) {
    Start(bytes.size());
    More(bytes);
  }
  // A string in pieces: its length first, then each piece.
  void Start(uint64_t length) { More(absl::StrCat(length, ":")); }
  void More(absl::string_view bytes) {
    for (unsigned char c : bytes) h_ = (h_ ^ c) * 0x100000001b3ull;
  }
  // The bytes of token `id` ("" where no token has it), a piece at a time: a long token is
  // never spelled out whole (core/encode/long_tokens.h).
  void AddToken(const internal::BpeCodec& t, TokenId id) {
    if (!t.HasToken(id)) return Add("");
    Start(t.TokenLength(id));
    t.ForEachTokenPiece(id, [this](absl::string_view piece) { More(piece); });
  }
  std::string Hex() const { return absl::StrFormat("%016x", h_); }

 private:
  uint64_t h_ = 0xcbf29ce484222325ull;
};

constexpr absl::string_view kFingerprintPrefix = "ids-fnv1a64:";

// The fingerprint that sidecars written before the current one record ("fnv1a64:"), which
// also covered the pattern and the special tokens: their ids still decode.
std::string EarlierFingerprint(const internal::BpeCodec& t) {
  Fnv1a64 h;
  h.Add(PatternName(t.pattern()));
  if (t.pattern() == Pattern::kCustom) h.Add(t.custom_regex());
  for (size_t id = 0; id < t.id_limit(); ++id) h.AddToken(t, static_cast<TokenId>(id));
  for (const std::string& s : t.special_tokens().tokens()) h.Add(s);
  return absl::StrCat("fnv1a64:", h.Hex());
}

using State = Tokenizer::State;

absl::Status CheckIdType(const internal::BpeCodec& t, IdType type) {
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

absl::Status Tokenizer::Save(const std::string& dir) const {
  const BpeModel* model = state_->model();
  if (model == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("this tokenizer cannot be saved: ", state_->why_no_model));
  }
  return SaveTokenizer(*model, dir);
}

const BpeModel* Tokenizer::model() const { return state_->model(); }

bool Tokenizer::from_rank_file() const { return state_->from_rank_file; }

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

std::vector<TokenId> Tokenizer::EncodeAllowing(absl::string_view text,
                                               const std::vector<std::string>& allowed) const {
  const internal::BpeCodec& t = state_->tokenizer;
  std::vector<std::string> matched;  // the tokenizer's own among `allowed`
  for (const std::string& token : allowed) {
    if (SpecialTokenId(token).has_value()) matched.push_back(token);
  }
  const internal::SpecialTokens specials(matched);
  internal::EncodeCache cache(text.size() > 4096 ? 1 << 16 : 0);
  std::vector<TokenId> ids;
  specials.Split(
      text, [&](absl::string_view piece) { t.EncodeOrdinary(piece, &cache, &ids); },
      [&](size_t index) { ids.push_back(*SpecialTokenId(specials.tokens()[index])); });
  return ids;
}

std::vector<std::vector<TokenId>> Tokenizer::EncodeBatch(absl::Span<const absl::string_view> texts,
                                                         int threads,
                                                         const std::atomic<bool>* cancel) const {
  std::vector<std::vector<TokenId>> out(texts.size());
  tbb::task_arena arena(ArenaThreads(threads));
  arena.execute([&] {
    tbb::parallel_for(size_t{0}, texts.size(), [&](size_t i) {
      if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) return;
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
  internal_options.cancel = options.cancel;
  internal_options.jsonl.field = options.input.jsonl_field;
  internal_options.jsonl.skip_bad_records = options.input.skip_bad_records;
  if (!options.separator_token.empty()) {
    const internal::BpeCodec& t = state_->tokenizer;
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
  // Ids sent down a pipe or to a device (/dev/stdout, /dev/null) have no file to sit beside.
  const bool with_sidecar = !out.streams();
  if (with_sidecar) BPEFORGE_RETURN_IF_ERROR(internal::AtomicFile::Open(sidecar_path, &sidecar));
  const size_t width = internal::IdWidth(options.id_type);
  std::vector<char> buffer;
  // Gigabytes of ids: written to the disk while the workers encode (background_writer.h).
  internal::BackgroundWriter writer(&out);
  absl::StatusOr<EncodeFilesStats> stats =
      EncodeFiles(inputs, options, [&](absl::Span<const TokenId> ids) {
        return writer.Write(internal::IdBytes(ids, width, &buffer));
      });
  if (!stats.ok()) return stats.status();
  BPEFORGE_RETURN_IF_ERROR(writer.Finish());
  if (!with_sidecar) {
    BPEFORGE_RETURN_IF_ERROR(out.Commit());
    return stats;
  }
  // Both files complete before either is renamed; the ids first, so that a crash in between
  // leaves new ids beside an old sidecar, whose count then gives it away.
  BPEFORGE_RETURN_IF_ERROR(
      sidecar.Write(internal::FormatIdsSidecar({options.id_type, stats->tokens, Fingerprint()})));
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
    if (const std::string mine = Fingerprint();
        meta.fingerprint != mine && meta.fingerprint != EarlierFingerprint(state_->tokenizer)) {
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
    if (!state_->tokenizer.HasToken(id)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: id %d at index %d is not in the vocabulary (ids are below %d)",
                          ids_path, id, i, state_->tokenizer.id_limit()));
    }
  }
  std::string buffer;
  for (size_t i = 0; i < count; ++i) {
    state_->tokenizer.AppendTokenBytes(internal::IdAt(data.data(), i, width), &buffer);
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
  BPEFORGE_RETURN_IF_ERROR(CheckNotAnInput(output, {ids_path, internal::IdsSidecarPath(ids_path)}));
  internal::AtomicFile file;
  BPEFORGE_RETURN_IF_ERROR(internal::AtomicFile::Open(output, &file));
  internal::BackgroundWriter writer(&file);
  absl::Status s =
      DecodeFile(ids_path, options, [&](absl::string_view bytes) { return writer.Write(bytes); });
  if (!s.ok()) return s;
  BPEFORGE_RETURN_IF_ERROR(writer.Finish());
  return file.Commit();
}

std::string Tokenizer::Fingerprint() const {
  // FNV-1a over what decoding depends on, the bytes of every id (special tokens' included):
  // stable across runs and machines, unlike absl::Hash. Tokenizers that decode every id alike
  // have the same one, whatever their pattern or which of their tokens are special (GPT-2's
  // vocab with and without <|endoftext|> as a special token). It tells tokenizers apart; it
  // does not authenticate.
  Fnv1a64 h;
  for (size_t id = 0; id < id_limit(); ++id)
    h.AddToken(state_->tokenizer, static_cast<TokenId>(id));
  return absl::StrCat(kFingerprintPrefix, h.Hex());
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
