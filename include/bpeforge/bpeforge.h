// bpeforge: fast, exact byte-level BPE. Train GPT-2-style tokenizers on large corpora, save
// and load them, and encode text with ids equal to tiktoken's.
//
// Example:
//
//   #include "bpeforge/bpeforge.h"
//
//   bpeforge::TrainOptions options;
//   options.vocab_size = 10000;
//   options.special_tokens = {"<|endoftext|>"};
//   absl::StatusOr<bpeforge::TrainResult> trained = bpeforge::Train({"corpus.txt"}, options);
//   if (!trained.ok()) return trained.status();
//   if (absl::Status s = bpeforge::SaveTokenizer(trained->model, "out/tok"); !s.ok()) return s;
//   // Count once, train several sizes: the counts kept in a count file (CountFiles below).
//   absl::StatusOr<bpeforge::CountFiles> counts =
//       bpeforge::CountFiles::Count({"corpus.txt"}, options, "corpus.counts");
//   if (!counts.ok()) return counts.status();
//   options.vocab_size = 32000;
//   absl::StatusOr<bpeforge::TrainResult> larger = counts->Train(options);
//
//   absl::StatusOr<bpeforge::Tokenizer> tok = bpeforge::Tokenizer::Load("out/tok");
//   if (!tok.ok()) return tok.status();
//   std::vector<bpeforge::TokenId> ids = tok->Encode("Once upon a time<|endoftext|>");
//   absl::StatusOr<std::string> text = tok->Decode(ids);  // "Once upon a time<|endoftext|>"
//
// Errors come back as absl::Status: kNotFound for a missing file (the message names it),
// kInvalidArgument for bad arguments and malformed files (file and line or byte offset),
// kDataLoss for an input that changed while it was read, kCancelled when a `cancel` flag
// stopped the work. A failed file-system call also carries the errno and the path as payloads
// (kErrnoPayload, kPathPayload: decimal text and bytes). Results never depend on the number of
// threads or the chunk size.
#ifndef BPEFORGE_BPEFORGE_H_
#define BPEFORGE_BPEFORGE_H_

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "bpeforge/types.h"

#define BPEFORGE_API __attribute__((visibility("default")))

namespace bpeforge {

inline constexpr absl::string_view kErrnoPayload = "bpeforge.errno";
inline constexpr absl::string_view kPathPayload = "bpeforge.path";

// ---------------------------------------------------------------------------------------------
// Names

BPEFORGE_API absl::StatusOr<Pattern> ParsePattern(absl::string_view name);  // gpt2|cl100k|o200k
BPEFORGE_API absl::string_view PatternName(Pattern pattern);
// The regex of a built-in pattern as Python's `regex` reads it ("" for kCustom).
BPEFORGE_API absl::string_view PatternRegex(Pattern pattern);
// A pattern as users write it: gpt2, cl100k, o200k, or else a regex (Pattern::kCustom, the
// regex in *custom_pattern), which must compile. A bare word that names no pattern is refused,
// so that a typo is not taken for a regex.
BPEFORGE_API absl::StatusOr<Pattern> ParsePatternOrRegex(absl::string_view value,
                                                         std::string* custom_pattern);
BPEFORGE_API absl::StatusOr<IdLayout> ParseIdLayout(absl::string_view name);  // bytes-first|hf
BPEFORGE_API absl::string_view IdLayoutName(IdLayout layout);
BPEFORGE_API absl::StatusOr<IdType> ParseIdType(absl::string_view name);  // uint16|uint32
BPEFORGE_API absl::string_view IdTypeName(IdType type);
// The SIMD instructions the pre-tokenizer uses: "sse2", "avx2" or "avx512" ("portable" off
// x86-64). The widest this CPU has, or the one the environment variable BPEFORGE_SIMD names
// (a name that is none of these, or a path the CPU lacks, gives the widest and one warning on
// standard error). Results never depend on it.
BPEFORGE_API absl::string_view SimdPathInUse();

// ---------------------------------------------------------------------------------------------
// Inputs. Plain UTF-8 text files are memory-mapped. gzip, xz and zstd files (told by their
// first bytes) are decompressed as they are read, and "-" reads standard input as a stream.
// Every file is a separate document: no pre-token or token spans two.

struct InputOptions {
  // JSON Lines: each line a JSON object whose string field is one document (documents never
  // merge across records, as if a special token stood between them). Empty: files named
  // *.jsonl, *.ndjson or *.json (also under .gz, .zst, .xz) are JSON Lines with the field
  // "text", other files are text. Set: every input is JSON Lines, with this field.
  std::string jsonl_field;
  // A bad record (not a JSON object; the field missing or not a string; invalid UTF-8 or a
  // \u escape of a lone surrogate in it) fails the run, naming the file and line; with this
  // set it is counted in InputStats::skipped_records and passed over.
  bool skip_bad_records = false;
};

// Arguments as users type them, made into a list of files: a directory means the files under
// it (recursively, sorted by path, without hidden names; with `include` non-empty, only those
// whose name matches one of its shell patterns, e.g. "*.jsonl.zst"); an argument that names no
// file but holds * ? or [ is a glob, expanded (sorted). "-" (standard input) stays. An empty
// directory and a glob that matches nothing are errors.
// What bpeforge itself wrote inside a directory is not text and is left out, each path added to
// `*left_out` when given: tokenizer folders (they hold bpeforge.json), ids files with their
// sidecars, and count files unless `count_files` says they are the inputs (to add up, or to
// train from). Naming a tokenizer folder itself is an error.
BPEFORGE_API absl::StatusOr<std::vector<std::string>> ExpandInputs(
    const std::vector<std::string>& inputs, const std::vector<std::string>& include = {},
    std::vector<std::string>* left_out = nullptr, bool count_files = false);

// ---------------------------------------------------------------------------------------------
// Training (CS336 semantics): the text is split on the special tokens, which never merge; each
// piece is pre-tokenized with `pattern`; then the most frequent adjacent pair is merged (ties:
// the lexicographically greater pair of byte strings) until 256 + specials + merges reaches
// `vocab_size` or no pair is left. Separate input files are separate documents.

struct TrainOptions {
  size_t vocab_size = 0;  // 256 bytes + distinct special tokens + merges
  std::vector<std::string> special_tokens;
  Pattern pattern = Pattern::kGpt2;
  // With pattern = Pattern::kCustom: any pre-tokenization regex, written as for Python's
  // `regex` module (\p{L}, \s, (?i:...), lookahead), run by the Boost.Regex reference matcher.
  // Text it does not match becomes a pre-token of its own. Results still do not depend on
  // threads or chunk size: such text is cut only at special tokens (and between files).
  std::string custom_pattern;
  IdLayout layout = IdLayout::kBytesFirst;
  // Hugging Face's trainer options. A pair merges only if it occurs at least `min_frequency`
  // times (training stops at the first that does not); a pair whose token would be longer than
  // `max_token_length` bytes is passed over (0: no limit). Both are recorded in bpeforge.json.
  uint64_t min_frequency = 0;
  size_t max_token_length = 0;
  InputOptions input;            // JSON Lines
  int threads = 0;               // 0: all hardware threads
  size_t chunk_bytes = 4 << 20;  // the parallel work unit; results do not depend on it
  // Human-readable progress lines ("pre-tokenizing: 41% of 2000.0 MB"), from any thread.
  std::function<void(absl::string_view line)> progress;
  // The same progress as figures, for a caller that shows it its own way (with a rate and the
  // time left): called as `progress` is, with what its lines say.
  std::function<void(const ProgressFigures& figures)> progress_figures;
  // When set and it becomes true, the work stops within a fraction of a second and the call
  // returns absl::CancelledError.
  const std::atomic<bool>* cancel = nullptr;
};

// What training learns: everything a tokenizer needs.
struct BpeModel {
  Vocab vocab;                              // id -> bytes, in `layout`
  Merges merges;                            // creation order
  std::vector<std::string> special_tokens;  // distinct, in given order
  Pattern pattern = Pattern::kGpt2;
  std::string custom_pattern;  // the regex, for Pattern::kCustom
  IdLayout layout = IdLayout::kBytesFirst;
  uint64_t min_frequency = 0;   // the training options, as recorded in bpeforge.json
  size_t max_token_length = 0;  // (encoding does not depend on them)
  // How often each merge's pair occurred in the training text when it was merged, in merge
  // order (merge_counts.txt); empty where not known (a tokenizer not trained by bpeforge).
  std::vector<uint64_t> merge_counts;
};

struct TrainResult {
  BpeModel model;
  TrainStats stats;
};

// Pre-token bytes -> number of occurrences.
using PreTokenCounts = absl::flat_hash_map<std::string, uint64_t>;

// Pre-token counts with what they were counted with: the unit of reuse (train many vocab
// sizes from one count) and of scale-out (count shards apart, add them up). What the API
// returns describes a count file, `counts` left empty: the counts stay in the file.
struct CountedText {
  PreTokenCounts counts;
  Pattern pattern = Pattern::kGpt2;
  std::string custom_pattern;  // the regex, for Pattern::kCustom
  std::vector<std::string> special_tokens;
  uint64_t bytes = 0;      // of text counted
  uint64_t pretokens = 0;  // occurrences, the sum of `counts`
  // Distinct pre-tokens, also where `counts` is left empty; 0 where not yet known (several
  // count files before they are added up).
  uint64_t distinct = 0;
  // What was read to count them, from CountFiles::Count and DocumentCounter::Save (not saved in
  // count files: zero for CountFiles::Open).
  InputStats input;
};

// Trains on UTF-8 text files (memory-mapped, counted in parallel).
BPEFORGE_API absl::StatusOr<TrainResult> Train(const std::vector<std::string>& inputs,
                                               const TrainOptions& options);

// Count files (pre-token counts, the unit of a vocabulary sweep and of counting shards apart),
// opened and checked whole (magic, version, checksum, order; all counted alike), their counts
// left in the files: what they were counted with, training straight from them, and adding
// them up into one. A file lists each pre-token once, sorted: one file's entries become the
// training's words as they lie, and several are merged as they are read, never held in a map.
// The files' pages are given back once read; each call reads them again (from the page
// cache). The format is in docs/formats.md: versioned, checksummed, its bytes independent of
// threads.
//
//   absl::StatusOr<bpeforge::CountFiles> files = bpeforge::CountFiles::Open({"web.counts"});
//   if (!files.ok()) return files.status();
//   options.pattern = files->counted().pattern;  // and custom_pattern, special_tokens: theirs
//   for (size_t v : {10000, 32000, 50000}) {
//     options.vocab_size = v;
//     absl::StatusOr<bpeforge::TrainResult> trained = files->Train(options);
//     if (!trained.ok()) return trained.status();
//     absl::Status s = bpeforge::SaveTokenizer(trained->model, absl::StrCat("tok-", v));
//   }
class BPEFORGE_API CountFiles {
 public:
  // Reads count files to add them up. Files counted with another pattern or other special
  // tokens than the first are refused, as are truncated or corrupted ones (checksum).
  static absl::StatusOr<CountFiles> Open(const std::vector<std::string>& paths);
  // Counts the pre-tokens of text files as Train does (options.special_tokens, pattern,
  // threads, chunk_bytes, progress, cancel; vocab_size is not used) into the count file
  // `path`, written whole or not at all and never over one of the inputs, and opens it.
  static absl::StatusOr<CountFiles> Count(const std::vector<std::string>& inputs,
                                          const TrainOptions& options, const std::string& path);
  CountFiles(CountFiles&&) noexcept;
  CountFiles& operator=(CountFiles&&) noexcept;
  ~CountFiles();

  // What they were counted with, `counts` left empty; `bytes` and `pretokens` are the sums.
  const CountedText& counted() const;
  // Learns merges from the files' counts added up, as Train does from the text they were
  // counted from. options.pattern, custom_pattern and special_tokens must be those the files
  // were counted with (else kInvalidArgument); kDataLoss if a file changed since Open.
  absl::StatusOr<TrainResult> Train(const TrainOptions& options);
  // Writes their counts added up as one count file (the file of counting all their text at
  // once), whole or not at all, never over one of them (kInvalidArgument, whatever links lead
  // there); returns what it holds, `counts` left empty.
  absl::StatusOr<CountedText> Save(const std::string& path);

 private:
  struct Files;
  explicit CountFiles(std::unique_ptr<Files> files);
  std::unique_ptr<Files> files_;
  // The command line's training that writes as it spells (bpeforge/internal/front_ends.h).
  friend BPEFORGE_API absl::StatusOr<TrainStats> TrainAndSave(CountFiles& files,
                                                              const TrainOptions& options,
                                                              const std::string& dir);
};

// Training from documents held in memory (a Python iterator, a database cursor, a stream of
// records): the caller hands them over in batches, and the workers count each batch while the
// caller makes the next. Each document is a document of its own, as a file or a JSON Lines
// record is (no pre-token spans two), and special tokens inside one split it as in a file: the
// counts, and so the merges, equal Train's on a file of the same documents joined by a special
// token, for any number of threads. Memory holds the counts and a few batches, not the text.
//
//   absl::StatusOr<bpeforge::DocumentCounter> counter = bpeforge::DocumentCounter::Start(options);
//   if (!counter.ok()) return counter.status();
//   while (more) {
//     std::vector<absl::string_view> batch = NextBatch();
//     if (absl::Status s = counter->Add(batch); !s.ok()) return s;
//   }
//   absl::StatusOr<bpeforge::TrainResult> trained = counter->Train();
class BPEFORGE_API DocumentCounter {
 public:
  // Starts the workers with the options' special tokens, pattern, threads, progress and cancel
  // (which must outlive the counter). A nonzero vocab_size is checked now, so that a bad one
  // fails before the documents are made; counting alone (Save) takes vocab_size 0.
  static absl::StatusOr<DocumentCounter> Start(const TrainOptions& options);
  DocumentCounter(DocumentCounter&&) noexcept;
  DocumentCounter& operator=(DocumentCounter&&) noexcept;
  ~DocumentCounter();  // stops the workers, dropping what they counted

  // Copies the documents and hands them to the workers. Waits while earlier batches wait to be
  // counted, so that memory holds only a few. Fails with the first failure of the counting
  // (invalid UTF-8, named by the document's index from 0 and the byte offset in it; a custom
  // pattern that cannot be matched), or kCancelled once `cancel` is true.
  absl::Status Add(absl::Span<const absl::string_view> documents);
  // As Add, but waits for room at most `timeout`: false, and nothing added, if none came by
  // then (for a caller that must look at something else meanwhile, such as Python's signals).
  absl::StatusOr<bool> TryAdd(absl::Span<const absl::string_view> documents,
                              std::chrono::milliseconds timeout);
  // Documents and bytes counted so far (from any thread).
  uint64_t documents() const;
  uint64_t bytes() const;

  // Waits for the documents added, then learns merges from their counts as Train does (with
  // the options of Start). Either this or Save, once.
  absl::StatusOr<TrainResult> Train();
  // Waits for the documents added, then writes their counts as CountFiles::Count does, whole
  // or not at all; returns what was counted, `counts` left empty.
  absl::StatusOr<CountedText> Save(const std::string& path);

 private:
  struct Impl;
  explicit DocumentCounter(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Writes, creating DIR if needed:
//   vocab.json + merges.txt            GPT-2's form (byte-to-unicode strings)
//   tokenizer.json                     Hugging Face `tokenizers` (byte-level BPE)
//   tokenizer.tiktoken + tiktoken.json tiktoken's ranks, and its pattern and special-token ids
//                                      (tiktoken.json is also js-tiktoken's constructor argument)
//   bpeforge.json                      pattern, special tokens, id layout
//   merge_counts.txt                   how often each merge occurred (with model.merge_counts)
// Two merges may build the same bytes; tokenizer.json and the rank file hold one id per byte
// string, the first, which is the one encoding produces. All or nothing: on failure no file of
// the set is left behind, and earlier files are kept as they were.
BPEFORGE_API absl::Status SaveTokenizer(const BpeModel& model, const std::string& dir);

// ---------------------------------------------------------------------------------------------
// Tokenizing, with tiktoken's semantics: special tokens are matched first (leftmost, then
// longest); the text between them is cut by the pattern; inside a pre-token the adjacent pair
// whose concatenation has the lowest merge rank is joined until none is a token.

struct LoadOptions {
  std::optional<Pattern> pattern;  // default: the directory's manifest, else gpt2
  std::string custom_pattern;      // the regex, with pattern = Pattern::kCustom
  // Added to the tokenizer's own. Each takes its id from `special_ids_path`, else from an
  // equal vocab entry, else the next free id.
  std::vector<std::string> special_tokens;
  // For rank files: JSON with ids for special tokens, tiktoken's {"special_tokens": {T: id}}
  // or a plain {T: id}.
  std::string special_ids_path;
};

struct EncodeFilesOptions {
  int threads = 0;                   // 0: all hardware threads
  size_t chunk_bytes = 1 << 20;      // the parallel work unit; ids do not depend on it
  IdType id_type = IdType::kUint32;  // for EncodeFile's output
  InputOptions input;                // JSON Lines
  // A special token of the tokenizer whose id goes between two documents (files, JSON Lines
  // records), as training pipelines expect; empty: none.
  std::string separator_token;
  // Called in order, from one thread at a time, after each chunk.
  std::function<void(uint64_t done_bytes, uint64_t total_bytes)> progress;
  const std::atomic<bool>* cancel = nullptr;  // as in TrainOptions
};

struct DecodeFileOptions {
  // The ids' type; unset: the sidecar's (IDS.json), else uint32.
  std::optional<IdType> id_type;
  const std::atomic<bool>* cancel = nullptr;  // as in TrainOptions
};

struct EncodeFilesStats {
  uint64_t bytes = 0;  // of text (for JSON Lines, of the documents)
  uint64_t tokens = 0;
  InputStats input;
  int threads = 0;
};

// Immutable once made, so it may be used from many threads at once; copies share the tables.
class BPEFORGE_API Tokenizer {
 public:
  // From a trained model.
  static absl::StatusOr<Tokenizer> FromModel(const BpeModel& model);
  // From a vocab (dense ids; every byte and every merge result present) and merges in rank
  // order; the CS336 constructor. Special tokens not in the vocab get the next free ids.
  static absl::StatusOr<Tokenizer> Create(const Vocab& vocab, const Merges& merges,
                                          const std::vector<std::string>& special_tokens = {},
                                          Pattern pattern = Pattern::kGpt2,
                                          absl::string_view custom_pattern = "");
  // `path` is a directory written by SaveTokenizer or `bpeforge train`; any directory with a
  // GPT-2 vocab.json and merges.txt; a Hugging Face tokenizer.json (a file, or a directory
  // holding only that) of a byte-level BPE with one of the known patterns and no normalizer,
  // whose added tokens become special tokens; or a tiktoken rank file ("<base64 token> <rank>"
  // lines, id = rank), with its pattern and special tokens from tiktoken.json beside it unless
  // options.special_ids_path is set; for OpenAI's gpt2 (r50k_base), cl100k_base and o200k_base
  // rank files (told by their ranks), from what tiktoken gives them. A rank file that nothing
  // names a pattern for is refused unless options.pattern is set.
  // Anything else is refused, naming what is unsupported.
  static absl::StatusOr<Tokenizer> Load(const std::string& path, const LoadOptions& options = {});
  // A GPT-2 vocab.json + merges.txt pair.
  static absl::StatusOr<Tokenizer> LoadGpt2(const std::string& vocab_path,
                                            const std::string& merges_path,
                                            const LoadOptions& options = {});

  // Writes the tokenizer as SaveTokenizer does. Fails for one loaded from a rank file, whose
  // merges are not known, and for a tokenizer.json with ids that no token has.
  absl::Status Save(const std::string& dir) const;
  // The vocab, merges and settings, when known (not for rank files).
  const BpeModel* model() const;
  // Whether it was read from a tiktoken rank file: its ids are its merge ranks, so its ids, bytes,
  // special tokens and pattern alone make it again (a rank file of them).
  bool from_rank_file() const;

  // `text` must be valid UTF-8 for the ids to decode back to it. With a custom pattern that
  // Boost.Regex gives up on for this text (its complexity limit: catastrophic backtracking),
  // the in-memory encoders throw std::runtime_error; the file ones return an error.
  std::vector<TokenId> Encode(absl::string_view text) const;
  // As Encode, but special tokens are ordinary text.
  std::vector<TokenId> EncodeOrdinary(absl::string_view text) const;
  // As Encode, but only the special tokens in `allowed` are matched (leftmost, then longest);
  // the others are ordinary text (tiktoken's allowed_special). Strings in `allowed` that are
  // not special tokens of this tokenizer are ignored.
  std::vector<TokenId> EncodeAllowing(absl::string_view text,
                                      const std::vector<std::string>& allowed) const;
  // Encodes every text on its own, in parallel; threads = 0: all hardware threads. Once
  // `cancel` reads true, the texts not yet begun are left without ids and the call returns
  // within a fraction of a second.
  std::vector<std::vector<TokenId>> EncodeBatch(absl::Span<const absl::string_view> texts,
                                                int threads = 0,
                                                const std::atomic<bool>* cancel = nullptr) const;
  // Encodes the files one after another into one flat little-endian array of
  // options.id_type written to `output` (whole or not at all; never over an input). No token
  // spans two files. A sidecar `output`.json records the id type, the count and the
  // tokenizer's fingerprint, so that DecodeFile can refuse a mismatch. A symbolic link is written
  // through; a pipe or a device (/dev/stdout, a FIFO, /dev/null) gets the ids as they come and
  // no sidecar.
  absl::StatusOr<EncodeFilesStats> EncodeFile(const std::vector<std::string>& inputs,
                                              const std::string& output,
                                              const EncodeFilesOptions& options = {}) const;
  // The same ids, handed to `sink` chunk by chunk in input order; its first error stops the
  // work and is returned.
  absl::StatusOr<EncodeFilesStats> EncodeFiles(
      const std::vector<std::string>& inputs, const EncodeFilesOptions& options,
      absl::FunctionRef<absl::Status(absl::Span<const TokenId>)> sink) const;

  // The concatenated bytes of the ids; fails on an id that no token has.
  absl::StatusOr<std::string> DecodeBytes(absl::Span<const TokenId> ids) const;
  // DecodeBytes with ill-formed UTF-8 replaced by U+FFFD (Python's errors="replace").
  absl::StatusOr<std::string> Decode(absl::Span<const TokenId> ids) const;
  // Decodes an id file written by EncodeFile, checking every id before the first byte goes
  // to `sink`. When the sidecar IDS.json is there, the file must match it (id type, count,
  // tokenizer fingerprint).
  absl::Status DecodeFile(const std::string& ids_path, const DecodeFileOptions& options,
                          absl::FunctionRef<absl::Status(absl::string_view)> sink) const;
  // As above, into `output` (whole or not at all; never the ids file itself).
  absl::Status DecodeFile(const std::string& ids_path, const DecodeFileOptions& options,
                          const std::string& output) const;
  // A fingerprint of what decoding depends on, the bytes of every id (special tokens' too), as
  // EncodeFile records it in the sidecar: "ids-fnv1a64:<16 hex digits>". Tokenizers that
  // decode every id alike share it, whatever their pattern or special tokens. (DecodeFile also
  // accepts the "fnv1a64:" fingerprints of earlier versions, which covered those too.)
  std::string Fingerprint() const;

  // The bytes of one id, or nullopt if no token has it.
  std::optional<absl::string_view> TokenBytes(TokenId id) const;
  // One more than the largest id (special tokens included).
  size_t id_limit() const;
  Pattern pattern() const;
  const std::string& custom_pattern() const;  // the regex of a Pattern::kCustom, else ""
  const std::vector<std::string>& special_tokens() const;
  // The id of a special token, or nullopt.
  std::optional<TokenId> SpecialTokenId(absl::string_view token) const;

  struct State;  // the implementation's

 private:
  explicit Tokenizer(std::shared_ptr<const State> state) : state_(std::move(state)) {}
  std::shared_ptr<const State> state_;
  friend class StreamEncoder;
  friend struct TokenizerCore;  // the library's own access to State (api/tokenizer_state.h)
};

// Encodes text that arrives in pieces (lines, network reads; a piece may end anywhere, even
// inside a character) with exactly the ids of encoding the whole. It holds only a bounded tail
// and starts no threads, so memory stays flat however long the stream (tiktoken's and CS336's
// encode_iterable).
class BPEFORGE_API StreamEncoder {
 public:
  // `cache_entries` bounds the cache of recently seen pre-tokens (0: none).
  explicit StreamEncoder(const Tokenizer& tokenizer, size_t cache_entries = 1 << 12);
  StreamEncoder(StreamEncoder&&) noexcept;
  StreamEncoder& operator=(StreamEncoder&&) noexcept;
  ~StreamEncoder();

  // Appends to *out the ids that are final once `piece` is added.
  void Push(absl::string_view piece, std::vector<TokenId>* out);
  // Appends the remaining ids; the encoder is then empty and may be used again.
  void Finish(std::vector<TokenId>* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// ---------------------------------------------------------------------------------------------
// Reports: what tokenizers make of text they were not trained on (`bpeforge report`; the
// fields of report.json are listed in docs/report.md). Compression per file and per script,
// bytes per token at every vocabulary size from one pass (a vocabulary cut to its first k
// merges is what training to that size makes), and the use of each token.
//
//   std::vector<bpeforge::ReportTokenizer> tokenizers = {{"out/tok"}, {"gpt2/"}};  // Load's paths
//   absl::StatusOr<std::string> json = bpeforge::MakeReport(tokenizers, {"held-out.txt"}, {});
//   if (!json.ok()) return json.status();
//   absl::Status written = bpeforge::WriteReport(*json, "report");  // report.json, report.html

struct ReportTokenizer {
  // One to load: what Tokenizer::Load takes.
  ReportTokenizer(std::string path, LoadOptions load = {}, std::string name = "")
      : path(std::move(path)), load(std::move(load)), name(std::move(name)) {}
  // One made already.
  ReportTokenizer(Tokenizer tokenizer, std::string name, std::string path = "")
      : path(std::move(path)), tokenizer(std::move(tokenizer)), name(std::move(name)) {}

  std::string path;  // loaded with `load`, unless `tokenizer` is set (then it only names it)
  LoadOptions load;
  std::optional<Tokenizer> tokenizer;
  std::string name;  // shown in the report; empty: the path's last part
};

struct ReportOptions {
  // Vocabulary sizes for the curve, each within some tokenizer's range (256 + its special
  // tokens .. its size); empty: about 30 spaced geometrically over each tokenizer's range.
  std::vector<size_t> sizes;
  InputOptions input;  // JSON Lines
  // JSON Lines: the fields to read, each record's each field a document, with numbers of their
  // own per file and field (report.json's `sources`); empty: input.jsonl_field alone. Given,
  // every input is JSON Lines, as with input.jsonl_field.
  std::vector<std::string> jsonl_fields;
  // JSON Lines: numbers of their own for the records of each value of this field (a dotted
  // name reaches into objects: "meta.source"), per file and field: the `max_groups` values of
  // the most records, the others pooled.
  std::string group_by;
  size_t max_groups = 20;
  int threads = 0;          // 0: all hardware threads
  size_t list_length = 20;  // tokens in each list of the report (most used, longest, ...)
  // Each tokenizer's encoding speed is timed on one thread over this much of the first input.
  size_t throughput_bytes = 4 << 20;
  std::function<void(absl::string_view line)> progress;  // from any thread
  // The same as figures: "pre-tokenizing" (bytes), "encoding" (distinct pre-tokens).
  std::function<void(const ProgressFigures& figures)> progress_figures;
  const std::atomic<bool>* cancel = nullptr;
};

// The report of `tokenizers` on the text files `inputs`, as report.json's text.
BPEFORGE_API absl::StatusOr<std::string> MakeReport(const std::vector<ReportTokenizer>& tokenizers,
                                                    const std::vector<std::string>& inputs,
                                                    const ReportOptions& options);
// report.html of a report: one self-contained page (charts drawn as inline SVG, no script, nothing
// fetched) with the curve, bars per file and per script, token lengths and the tables.
BPEFORGE_API absl::StatusOr<std::string> ReportHtml(absl::string_view report_json);
// Writes DIR/report.json and DIR/report.html (creating DIR), both or neither.
BPEFORGE_API absl::Status WriteReport(absl::string_view report_json, const std::string& dir);

}  // namespace bpeforge

#endif  // BPEFORGE_BPEFORGE_H_
