// Every parser of files that come from outside: vocab.json, merges.txt, tiktoken rank files,
// the manifest, special-token id JSON, Hugging Face tokenizer.json and tiktoken.json (the first
// byte picks one). Malformed input must give
// an error, never a crash, a hang or a huge allocation; what parses is used to build a
// tokenizer, which must then encode a text.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/encode/bpe_codec.h"
#include "core/formats/gpt2_files.h"
#include "core/formats/hf_tokenizer_json.h"
#include "core/formats/manifest.h"
#include "core/formats/tiktoken_files.h"
#include "core/train/vocab.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bpeforge;            // NOLINT
  using namespace bpeforge::internal;  // NOLINT
  if (size == 0) return 0;
  const absl::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const char* kSample = "Hello, world! <|endoftext|> 123 ünïcödé";
  switch (data[0] % 7) {
    case 0:
      if (auto entries = ParseVocabJsonEntries(text, "vocab.json"); entries.ok()) {
        bpeforge::Vocab vocab;
        for (auto& [bytes, id] : *entries) {
          if (id < 1 << 16) {
            if (vocab.size() <= id) vocab.resize(id + 1);
            vocab[id] = bytes;
          }
        }
        if (auto t = BpeCodec::Create(vocab, {}, {"<|endoftext|>"}); t.ok()) t->Encode(kSample);
      }
      break;
    case 1:
      if (auto merges = ParseMergesTxt(text, "merges.txt"); merges.ok()) {
        const bpeforge::Vocab vocab = BuildVocab({"<|endoftext|>"}, *merges, IdLayout::kHf);
        if (auto t = BpeCodec::Create(vocab, *merges, {"<|endoftext|>"}); t.ok()) {
          t->Encode(kSample);
        }
      }
      break;
    case 2:
      if (auto ranks = ParseTiktokenRanks(text, "ranks.tiktoken"); ranks.ok()) {
        if (auto t = BpeCodec::FromRanks(*ranks, {{"<|endoftext|>", std::nullopt}}); t.ok()) {
          t->Encode(kSample);
        }
      }
      break;
    case 3:
      ParseManifest(text, "bpeforge.json").IgnoreError();
      break;
    case 4:
      if (auto ids = ParseSpecialTokenIds(text, "special.json"); ids.ok()) {
        std::vector<SpecialToken> specials;
        for (const auto& [token, id] : *ids) specials.push_back({token, id});
        std::vector<std::pair<std::string, bpeforge::TokenId>> byte_ranks;
        for (int b = 0; b < 256; ++b)
          byte_ranks.emplace_back(std::string(1, static_cast<char>(b)), b);
        if (auto t = BpeCodec::FromRanks(byte_ranks, specials); t.ok()) t->Encode(kSample);
      }
      break;
    case 5:
      if (auto hf = ParseHfTokenizerJson(text, "tokenizer.json"); hf.ok()) {
        std::vector<SpecialToken> specials;
        for (const auto& [token, id] : hf->specials) specials.push_back({token, id});
        if (auto t = BpeCodec::CreateWithIds(hf->vocab, hf->merges, specials, hf->pattern,
                                             hf->custom_regex);
            t.ok()) {
          try {
            t->Encode(kSample);
          } catch (const std::runtime_error&) {
            // A custom regex that Boost gives up on: documented, and reported by the callers.
          }
        }
      }
      break;
    case 6:
      ParseTiktokenJson(text, "tiktoken.json").IgnoreError();
      break;
  }
  return 0;
}
