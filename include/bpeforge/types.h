// The plain value types of bpeforge's public API, shared with its internals.
//
// Example:
//
//   bpeforge::Merges merges = {{"h", "e"}, {"he", "llo"}};  // creation order = rank
//   bpeforge::Vocab vocab;                                  // id -> token bytes
//
#ifndef BPEFORGE_TYPES_H_
#define BPEFORGE_TYPES_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace bpeforge {

using TokenId = uint32_t;

// One learned merge: the byte strings of the left and right token.
using Merge = std::pair<std::string, std::string>;
using Merges = std::vector<Merge>;

// id -> token bytes. Ids are dense, 0..size()-1.
using Vocab = std::vector<std::string>;

// How ids are assigned to the 256 bytes, the special tokens and the merges.
enum class IdLayout {
  kBytesFirst,  // byte b -> id b, then special tokens in the given order, then merges.
  kHf,          // special tokens, the 256 bytes in GPT-2 byte-to-unicode order, then merges
                // (the layout of Hugging Face's byte-level trainer and of the CS336 reference).
};

// The pre-tokenizer pattern, with the semantics of Python's `regex` module: GPT-2's, and
// tiktoken's cl100k_base (GPT-4) and o200k_base (GPT-4o), each with a fast hand-written
// matcher; or kCustom, a regex given beside it (run by the Boost.Regex reference matcher).
enum class Pattern { kGpt2, kCl100k, kO200k, kCustom };

// What a training run counted and how long it took.
// What was read: the files as stored, decompressed, and the documents in them.
struct InputStats {
  uint64_t stored_bytes = 0;        // read from the files (compressed, for compressed files)
  uint64_t decompressed_bytes = 0;  // the same after decompression
  uint64_t documents = 0;           // a text file is one; so is each JSON Lines record
  uint64_t skipped_records = 0;     // bad JSON Lines records passed over (skip_bad_records)
  // The longest piece of text (not counting JSON Lines) that one thread took whole: a piece
  // grows past the chunk size until a safe cut (see docs/cli.md, "Where the text is cut").
  uint64_t largest_piece_bytes = 0;
  // The largest decompression window a compressed stream needed (zstd frames written with
  // `--long=N` need 2^N bytes, held in memory while the stream is read); 0 for the others.
  uint64_t largest_window_bytes = 0;
};

struct TrainStats {
  uint64_t bytes = 0;  // of text (for JSON Lines, of the documents)
  InputStats input;
  uint64_t pretokens = 0;
  uint64_t distinct_pretokens = 0;
  uint64_t merges = 0;
  uint64_t vocab_size = 0;  // 256 bytes + distinct special tokens + merges
  double pretokenize_seconds = 0;
  double merge_seconds = 0;
  double total_seconds = 0;
  int threads = 0;  // the threads actually used
};

// How far a long call has come, as figures: `done` of `total` `unit`s in `phase`, and the
// documents seen so far. Phases: "pre-tokenizing" (bytes as stored: compressed bytes of
// compressed files), "counting" (bytes of documents handed over in memory, whose total is not
// known), "merging" (merges, of the merges the vocabulary size asks for). `total` is 0 when it
// is not known.
struct ProgressFigures {
  const char* phase = "";
  uint64_t done = 0;
  uint64_t total = 0;
  const char* unit = "";
  uint64_t documents = 0;
};

// How `encode` stores ids on disk: flat little-endian integers of this width.
enum class IdType { kUint16, kUint32 };

}  // namespace bpeforge

#endif  // BPEFORGE_TYPES_H_
