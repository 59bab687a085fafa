#include "cli/tokenizer_source.h"

#include <filesystem>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/gpt2_files.h"
#include "core/manifest.h"
#include "core/tiktoken_files.h"
#include "core/vocab.h"

namespace bpeforge {
namespace {

absl::StatusOr<Pattern> PatternOr(const TokenizerFlags& flags, Pattern fallback) {
  return flags.pattern.empty() ? fallback : ParsePattern(flags.pattern);
}

absl::StatusOr<Tokenizer> FromGpt2Files(const std::string& vocab_path,
                                        const std::string& merges_path,
                                        std::vector<std::string> special_tokens, Pattern pattern) {
  absl::StatusOr<Vocab> vocab = ReadVocabJson(vocab_path);
  if (!vocab.ok()) return vocab.status();
  absl::StatusOr<Merges> merges = ReadMergesTxt(merges_path);
  if (!merges.ok()) return merges.status();
  absl::StatusOr<Tokenizer> t = Tokenizer::Create(*vocab, *merges, special_tokens, pattern);
  if (!t.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(vocab_path, " + ", merges_path, ": ", t.status().message()));
  }
  return t;
}

// A trained directory: the manifest gives pattern, special tokens and id layout, and the
// vocab follows from them and merges.txt (so repeated merge results keep their own ids).
absl::StatusOr<Tokenizer> FromTrainedDir(const TokenizerFlags& flags) {
  const std::string dir = flags.dir;
  absl::StatusOr<Manifest> manifest = ReadManifest(dir + "/" + kManifestFile);
  if (!manifest.ok()) return manifest.status();
  if (!flags.pattern.empty()) {
    absl::StatusOr<Pattern> p = ParsePattern(flags.pattern);
    if (!p.ok()) return p.status();
    if (*p != manifest->pattern) {
      return absl::InvalidArgumentError(absl::StrCat("--pattern ", flags.pattern, " differs from ",
                                                     PatternName(manifest->pattern), " in ", dir,
                                                     "/", kManifestFile));
    }
  }
  const std::string merges_path = dir + "/" + kMergesFile;
  absl::StatusOr<Merges> merges = ReadMergesTxt(merges_path);
  if (!merges.ok()) return merges.status();
  Vocab vocab = BuildVocab(manifest->special_tokens, *merges, manifest->layout);
  if (vocab.size() != manifest->vocab_size) {
    return absl::InvalidArgumentError(
        absl::StrCat(merges_path, ": ", merges->size(), " merges give a vocab of ", vocab.size(),
                     ", but ", kManifestFile, " says ", manifest->vocab_size));
  }
  std::vector<std::string> specials = manifest->special_tokens;
  specials.insert(specials.end(), flags.special_tokens.begin(), flags.special_tokens.end());
  absl::StatusOr<Tokenizer> t = Tokenizer::Create(vocab, *merges, specials, manifest->pattern);
  if (!t.ok()) return absl::InvalidArgumentError(absl::StrCat(dir, ": ", t.status().message()));
  return t;
}

absl::StatusOr<Tokenizer> FromRankFile(const TokenizerFlags& flags) {
  absl::StatusOr<Pattern> pattern = PatternOr(flags, Pattern::kGpt2);
  if (!pattern.ok()) return pattern.status();
  absl::StatusOr<Ranks> ranks = ReadTiktokenRanks(flags.ranks);
  if (!ranks.ok()) return ranks.status();
  absl::flat_hash_map<std::string, TokenId> known;
  if (!flags.special_ids.empty()) {
    auto ids = ReadSpecialTokenIds(flags.special_ids);
    if (!ids.ok()) return ids.status();
    for (const auto& [token, id] : *ids) known[token] = id;
  }
  std::vector<SpecialToken> specials;
  for (const std::string& s : flags.special_tokens) {
    auto it = known.find(s);
    specials.push_back({s, it == known.end() ? std::nullopt : std::optional(it->second)});
  }
  absl::StatusOr<Tokenizer> t = Tokenizer::FromRanks(*ranks, specials, *pattern);
  if (!t.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(flags.ranks, ": ", t.status().message()));
  }
  return t;
}

}  // namespace

void AddTokenizerFlags(CLI::App* cmd, TokenizerFlags* flags) {
  cmd->add_option("--tokenizer", flags->dir,
                  "Directory written by `bpeforge train` (pattern, special tokens and id "
                  "layout come from its bpeforge.json), or any directory holding a GPT-2 "
                  "vocab.json and merges.txt")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--vocab", flags->vocab, "GPT-2 vocab.json (with --merges)");
  cmd->add_option("--merges", flags->merges, "GPT-2 merges.txt (with --vocab)");
  cmd->add_option("--ranks", flags->ranks,
                  "tiktoken rank file (\"<base64 token> <rank>\" per line); id = rank");
  cmd->add_option("--special-ids", flags->special_ids,
                  "JSON file with ids for special tokens of a rank file: tiktoken's "
                  "{\"special_tokens\": {TOKEN: ID}} or {TOKEN: ID}; only the tokens named "
                  "with --special-token are used");
  cmd->add_option("--pattern", flags->pattern,
                  "Pre-tokenizer pattern: gpt2, cl100k or o200k (default: the manifest's, "
                  "else gpt2)")
      ->check(CLI::IsMember({"gpt2", "cl100k", "o200k"}));
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
  if (!flags.ranks.empty()) return FromRankFile(flags);
  if (!flags.dir.empty()) {
    if (std::filesystem::exists(flags.dir + "/" + kManifestFile)) return FromTrainedDir(flags);
    absl::StatusOr<Pattern> pattern = PatternOr(flags, Pattern::kGpt2);
    if (!pattern.ok()) return pattern.status();
    return FromGpt2Files(flags.dir + "/" + kVocabFile, flags.dir + "/" + kMergesFile,
                         flags.special_tokens, *pattern);
  }
  if (flags.vocab.empty() || flags.merges.empty()) {
    return absl::InvalidArgumentError("--vocab and --merges go together");
  }
  absl::StatusOr<Pattern> pattern = PatternOr(flags, Pattern::kGpt2);
  if (!pattern.ok()) return pattern.status();
  return FromGpt2Files(flags.vocab, flags.merges, flags.special_tokens, *pattern);
}

}  // namespace bpeforge
