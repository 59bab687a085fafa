// Hugging Face's tokenizer.json for byte-level BPE: written so that the `tokenizers` library
// encodes exactly as bpeforge does, and read back when it describes something bpeforge
// implements (a byte-level BPE model with one of the known patterns, no normalizer).
//
// Written:
//   model          BPE with the vocab (GPT-2 visible form) and merges ("A B"), ignore_merges
//                  (a pre-token that is a token is that token, as in tiktoken)
//   pre_tokenizer  gpt2: ByteLevel with its own regex; cl100k, o200k: Split(regex, Isolated)
//                  then ByteLevel without regex, as Hugging Face ships those tokenizers;
//                  a custom pattern: Split by its regex as written
//   decoder        ByteLevel
//   added_tokens   the special tokens, with their ids (special, not normalized); they are in
//                  the model's vocab too, under their own text, or the ids would not hold
#ifndef BPEFORGE_CORE_FORMATS_HF_TOKENIZER_JSON_H_
#define BPEFORGE_CORE_FORMATS_HF_TOKENIZER_JSON_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/formats/tiktoken_files.h"
#include "core/internal/text_sink.h"
#include "core/internal/types.h"
#include "core/pretokenize/pretokenizer.h"

namespace bpeforge::internal {

inline constexpr char kHfTokenizerFile[] = "tokenizer.json";

// `tables` as TiktokenTablesOf makes them: one id per byte string, the special tokens apart.
// Fails only when a special token's text is also an ordinary token's visible form.
absl::Status WriteHfTokenizerJson(const TiktokenTables& tables, const TokenSpelling& tokens,
                                  Pattern pattern, absl::string_view custom_regex, TextSink& out);

struct HfTokenizer {
  Vocab vocab;  // id -> bytes; "" where no token has the id
  Merges merges;
  std::vector<std::pair<std::string, TokenId>> specials;  // the added tokens
  Pattern pattern = Pattern::kGpt2;
  std::string custom_regex;  // for Pattern::kCustom: any Split regex but the known ones
  // Whether a pre-token that is a vocab entry whole is that entry, merges or not (Hugging
  // Face's default is false: merges alone).
  bool ignore_merges = false;
};

// Errors name the file and what is not supported ("normalizer NFKC is not supported").
absl::StatusOr<HfTokenizer> ParseHfTokenizerJson(absl::string_view text, absl::string_view path);
absl::StatusOr<HfTokenizer> ReadHfTokenizerJson(const std::string& path);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_FORMATS_HF_TOKENIZER_JSON_H_
