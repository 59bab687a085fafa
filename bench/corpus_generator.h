// Synthetic training corpora for benchmarks: deterministic by seed, any size, fast.
//
// Three flavours imitate the corpora BPE trainers are usually measured on:
//   stories  TinyStories-like: simple English children's stories built from templates over a
//            few hundred common words, names, dialogue with contractions, plus a Zipf tail of
//            rarer words so that distinct pre-tokens number in the tens of thousands per GB.
//   web      OpenWebText-like: prose over a Zipf-distributed synthetic vocabulary of millions
//            of words (capitalised names, diacritics), numbers in many forms, URLs, e-mail
//            addresses, code fragments, and some Cyrillic, Greek, Arabic, CJK and emoji.
//   cjk      the stories written as a CJK language: ideographs for words, no spaces,
//            full-width punctuation, paragraphs ending "。\n\n" (corpus/cjk.h).
// Documents end with "\n<|endoftext|>\n", so the special token sits on its own line between
// documents.
//
// The text is made of blocks of about kBlockBytes that each hold whole documents; block i
// depends only on (flavor, seed, i). A corpus of N bytes is the concatenation of blocks
// 0, 1, ... cut to exactly N bytes: the cut falls on a UTF-8 character boundary and is padded
// with '\n' up to N, so the last document is usually incomplete. Hence a shorter corpus is a
// prefix of a longer one (up to that padding), and output never depends on the thread count.
#ifndef BPEFORGE_BENCH_CORPUS_GENERATOR_H_
#define BPEFORGE_BENCH_CORPUS_GENERATOR_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace bpeforge::internal::bench {

enum class Flavor { kStories, kWeb, kCjk };

// "stories", "web" or "cjk".
absl::StatusOr<Flavor> ParseFlavor(absl::string_view name);
absl::string_view FlavorName(Flavor flavor);

// A byte count: digits with an optional suffix K, M, G, T (powers of 1000) or Ki, Mi, Gi, Ti
// (powers of 1024), optionally followed by "B": "100M" = 100,000,000, "1GiB" = 2^30.
absl::StatusOr<uint64_t> ParseSize(absl::string_view text);

inline constexpr size_t kBlockBytes = 1 << 20;

struct CorpusOptions {
  Flavor flavor = Flavor::kStories;
  uint64_t size = 0;  // exact output size in bytes
  uint64_t seed = 1;
  int threads = 1;  // blocks generated in parallel; the output does not depend on it
};

// Block `index` of the corpus: whole documents, at least kBlockBytes in total.
std::string GenerateBlock(Flavor flavor, uint64_t seed, uint64_t index);

// Streams the corpus to `sink` in order, in pieces of about kBlockBytes. Stops at the first
// error `sink` returns.
absl::Status GenerateCorpus(const CorpusOptions& options,
                            absl::FunctionRef<absl::Status(absl::string_view)> sink);

// The whole corpus as one string (for tests and small benchmarks).
std::string GenerateCorpusString(const CorpusOptions& options);

}  // namespace bpeforge::internal::bench

#endif  // BPEFORGE_BENCH_CORPUS_GENERATOR_H_
