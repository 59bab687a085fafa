// Encode then decode gives the text back, for any valid UTF-8 (and any bytes at all are
// encoded without a crash); streaming the text in pieces cut anywhere gives the same ids.
// The tokenizer is trained here, on a fixed text with a special token.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/count/pretoken_counts.h"
#include "core/encode/bpe_codec.h"
#include "core/encode/stream_encoder.h"
#include "core/train/trainer.h"
#include "fuzz/fuzz_util.h"

namespace bpeforge::internal::fuzz {
namespace {

const BpeCodec& FuzzTokenizer() {
  static const BpeCodec* tokenizer = [] {
    const std::string corpus =
        "Once upon a time, there was a little girl named Lily. She liked to play outside.<|eot|>"
        "Hallo Welt! Grüße aus Köln, 1234 5678 -- naïve café. 日本語のテキストです。<|eot|>"
        "   tabs\tand\nnew lines\r\n  're 've 'll 'd 's 't ... !!! ??? 🙂🙃 Ωμέγα "
        "Привет "
        "мир";
    const std::vector<std::string> specials = {"<|eot|>"};
    PreTokenCounts counts;
    CountPreTokens(corpus, SpecialTokens(specials), *MakePreTokenizer(Pattern::kGpt2), &counts);
    TrainerConfig config{400, specials, IdLayout::kBytesFirst, {}};
    absl::StatusOr<TrainedVocab> trained = TrainFromCounts({&counts}, config);
    if (!trained.ok()) Fail(std::string(trained.status().message()));
    absl::StatusOr<BpeCodec> t =
        BpeCodec::Create(trained->vocab, trained->merges, trained->special_tokens);
    if (!t.ok()) Fail(std::string(t.status().message()));
    return new BpeCodec(*std::move(t));
  }();
  return *tokenizer;
}

}  // namespace
}  // namespace bpeforge::internal::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace bpeforge;            // NOLINT
  using namespace bpeforge::internal;  // NOLINT
  const BpeCodec& t = fuzz::FuzzTokenizer();
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  t.Encode(bytes);  // any bytes: no crash (the ids are not promised to round-trip)
  const absl::string_view text = fuzz::ValidPrefix(bytes);
  const std::vector<bpeforge::TokenId> ids = t.Encode(text);
  absl::StatusOr<std::string> back = t.DecodeBytes(ids);
  if (!back.ok() || *back != text) {
    fuzz::Fail(absl::StrCat("round trip fails on \"", absl::CHexEscape(text), "\""));
  }
  // Pieces cut where the input's bytes say (each byte's low bits: the next piece's length).
  StreamEncoder stream(t, 64, 0);
  std::vector<bpeforge::TokenId> streamed;
  size_t pos = 0;
  for (size_t i = 0; pos < text.size(); ++i) {
    const size_t len = 1 + (i < size ? data[i] % 16 : 7);
    stream.Push(text.substr(pos, len), &streamed);
    pos += len;
  }
  stream.Finish(&streamed);
  if (streamed != ids) {
    fuzz::Fail(absl::StrCat("streamed ids differ on \"", absl::CHexEscape(text), "\""));
  }
  return 0;
}
