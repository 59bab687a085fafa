// OpenAI's own tiktoken encodings, told apart by their ranks, with what their rank files leave
// out: the pre-tokenizer pattern and the special tokens (as tiktoken's openai_public.py gives
// them). A rank file alone names neither, and read with the wrong pattern it gives wrong ids.
//
//   if (const OpenAiEncoding* known = RecognizeOpenAiRanks(ranks)) pattern = known->pattern;
#ifndef BPEFORGE_CORE_FORMATS_OPENAI_ENCODINGS_H_
#define BPEFORGE_CORE_FORMATS_OPENAI_ENCODINGS_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/formats/tiktoken_files.h"
#include "core/internal/types.h"

namespace bpeforge::internal {

struct OpenAiEncoding {
  absl::string_view name;  // tiktoken's: "gpt2" (whose ranks r50k_base shares), "cl100k_base"...
  Pattern pattern;
  std::vector<std::pair<std::string, TokenId>> specials;
};

// The encoding whose rank file `ranks` were read from (the same tokens with the same ranks, in
// the same order), or nullptr.
const OpenAiEncoding* RecognizeOpenAiRanks(const Ranks& ranks);

// The fingerprint RecognizeOpenAiRanks compares: FNV-1a (64 bits) over each entry in order as
// "<length of the bytes>:<bytes> <rank>\n".
uint64_t RanksFingerprint(const Ranks& ranks);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_FORMATS_OPENAI_ENCODINGS_H_
