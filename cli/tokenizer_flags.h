// The flags that say which tokenizer `encode` and `decode` use, and loading it.
#ifndef BPEFORGE_CLI_TOKENIZER_FLAGS_H_
#define BPEFORGE_CLI_TOKENIZER_FLAGS_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "bpeforge/bpeforge.h"

namespace bpeforge::cli {

struct TokenizerFlags {
  std::string dir;            // a `bpeforge train` output, or any vocab.json + merges.txt folder
  std::string vocab, merges;  // a GPT-2 pair
  std::string ranks;          // a tiktoken rank file
  std::string special_ids;    // JSON ids for special tokens of a rank file
  std::string pattern;        // empty: the manifest's, else gpt2
  std::vector<std::string> special_tokens;
};

void AddTokenizerFlags(CLI::App* cmd, TokenizerFlags* flags);
// The files `bpeforge train` writes into the directory `dir` (SaveTokenizer).
std::vector<std::string> TokenizerFilesIn(const std::string& dir);
// The files the flags name or may read: for a directory, TokenizerFilesIn it; for a rank file,
// tiktoken.json beside it.
std::vector<std::string> TokenizerFiles(const TokenizerFlags& flags);
absl::StatusOr<Tokenizer> LoadTokenizer(const TokenizerFlags& flags);

}  // namespace bpeforge::cli

#endif  // BPEFORGE_CLI_TOKENIZER_FLAGS_H_
