#include "core/formats/openai_encodings.h"

#include "absl/strings/str_cat.h"

namespace bpeforge::internal {
namespace {

struct Known {
  size_t ranks;          // how many entries its rank file has
  uint64_t fingerprint;  // RanksFingerprint of them
  OpenAiEncoding encoding;
};

const std::vector<Known>& KnownEncodings() {
  static const auto* known = new std::vector<Known>{
      {50256, 0x86b14d89af8fea91ull, {"gpt2", Pattern::kGpt2, {{"<|endoftext|>", 50256}}}},
      {100256,
       0xaaec7b645f388208ull,
       {"cl100k_base",
        Pattern::kCl100k,
        {{"<|endoftext|>", 100257},
         {"<|fim_prefix|>", 100258},
         {"<|fim_middle|>", 100259},
         {"<|fim_suffix|>", 100260},
         {"<|endofprompt|>", 100276}}}},
      {199998,
       0xdd407db22c743625ull,
       {"o200k_base", Pattern::kO200k, {{"<|endoftext|>", 199999}, {"<|endofprompt|>", 200018}}}},
  };
  return *known;
}

}  // namespace

uint64_t RanksFingerprint(const Ranks& ranks) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto add = [&h](absl::string_view bytes) {
    for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  };
  for (const auto& [bytes, rank] : ranks) {
    add(absl::StrCat(bytes.size(), ":"));
    add(bytes);
    add(absl::StrCat(" ", rank, "\n"));
  }
  return h;
}

const OpenAiEncoding* RecognizeOpenAiRanks(const Ranks& ranks) {
  for (const Known& known : KnownEncodings()) {
    // The count first: the fingerprint reads every token.
    if (ranks.size() == known.ranks && RanksFingerprint(ranks) == known.fingerprint) {
      return &known.encoding;
    }
  }
  return nullptr;
}

}  // namespace bpeforge::internal
