#include "cli/tokenizer_flags.h"

#include <filesystem>

#include "cli/command_support.h"

namespace bpeforge::cli {

void AddTokenizerFlags(CLI::App* cmd, TokenizerFlags* flags) {
  cmd->add_option("--tokenizer", flags->dir,
                  "Directory written by `bpeforge train` (pattern, special tokens and id "
                  "layout come from its bpeforge.json); a directory holding a GPT-2 vocab.json "
                  "and merges.txt; a Hugging Face tokenizer.json of a byte-level BPE (its added "
                  "tokens are special tokens); or a tiktoken rank file, whose pattern and "
                  "special tokens come from tiktoken.json beside it")
      ->check(CLI::ExistingPath);
  cmd->add_option("--vocab", flags->vocab, "GPT-2 vocab.json (with --merges)");
  cmd->add_option("--merges", flags->merges, "GPT-2 merges.txt (with --vocab)");
  cmd->add_option("--ranks", flags->ranks,
                  "tiktoken rank file (\"<base64 token> <rank>\" per line); id = rank. With "
                  "--special-ids, tiktoken.json beside it is not read");
  cmd->add_option("--special-ids", flags->special_ids,
                  "JSON file with ids for special tokens of a rank file: tiktoken's "
                  "{\"special_tokens\": {TOKEN: ID}} or {TOKEN: ID}; only the tokens named "
                  "with --special-token are used");
  cmd->add_option("--pattern", flags->pattern,
                  "Pre-tokenizer pattern: gpt2, cl100k, o200k or a regex (default: what the "
                  "tokenizer's files say, else gpt2; a rank file needs it unless tiktoken.json "
                  "is beside it or it is OpenAI's gpt2, cl100k_base or o200k_base)");
  cmd->add_option("--special-token", flags->special_tokens,
                  "A special token (repeatable), added to the manifest's. Its id: from "
                  "--special-ids, else an equal vocab entry, else the next free id")
      ->allow_extra_args(false);  // one value per flag, so inputs may follow it
}

absl::StatusOr<Tokenizer> LoadTokenizer(const TokenizerFlags& flags) {
  const int sources =
      !flags.dir.empty() + (!flags.vocab.empty() || !flags.merges.empty()) + !flags.ranks.empty();
  if (sources != 1) {
    return absl::InvalidArgumentError(
        "give exactly one tokenizer: --tokenizer DIR, --vocab V --merges M, or --ranks R");
  }
  if (!flags.special_ids.empty() && flags.ranks.empty()) {
    return absl::InvalidArgumentError("--special-ids goes with --ranks");
  }
  LoadOptions options;
  options.special_tokens = flags.special_tokens;
  options.special_ids_path = flags.special_ids;
  if (!flags.pattern.empty()) {
    Pattern pattern = Pattern::kGpt2;
    if (absl::Status s = ParsePatternFlag(flags.pattern, &pattern, &options.custom_pattern);
        !s.ok()) {
      return s;
    }
    options.pattern = pattern;
  }
  if (!flags.ranks.empty()) return Tokenizer::Load(flags.ranks, options);
  if (!flags.dir.empty()) return Tokenizer::Load(flags.dir, options);
  if (flags.vocab.empty() || flags.merges.empty()) {
    return absl::InvalidArgumentError("--vocab and --merges go together");
  }
  return Tokenizer::LoadGpt2(flags.vocab, flags.merges, options);
}

std::vector<std::string> TokenizerFilesIn(const std::string& dir) {
  std::vector<std::string> files;
  for (const char* name : {"vocab.json", "merges.txt", "tokenizer.json", "tokenizer.tiktoken",
                           "tiktoken.json", "bpeforge.json"}) {
    files.push_back((std::filesystem::path(dir) / name).string());
  }
  return files;
}

std::vector<std::string> TokenizerFiles(const TokenizerFlags& flags) {
  namespace fs = std::filesystem;
  std::vector<std::string> files = {flags.vocab, flags.merges, flags.special_ids};
  auto add_with_manifest = [&](const std::string& file) {  // a rank file reads tiktoken.json
    files.push_back(file);
    files.push_back((fs::path(file).parent_path() / "tiktoken.json").string());
  };
  std::error_code ec;
  if (!flags.dir.empty() && fs::is_directory(flags.dir, ec)) {
    const std::vector<std::string> in_dir = TokenizerFilesIn(flags.dir);
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  } else if (!flags.dir.empty()) {
    add_with_manifest(flags.dir);
  }
  if (!flags.ranks.empty()) add_with_manifest(flags.ranks);
  return files;
}

}  // namespace bpeforge::cli
