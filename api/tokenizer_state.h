// What the public Tokenizer holds (its State), and how api/load_tokenizer.cc makes one from
// each kind of file. Private to api/.
#ifndef BPEFORGE_API_TOKENIZER_STATE_H_
#define BPEFORGE_API_TOKENIZER_STATE_H_

#include <tbb/enumerable_thread_specific.h>

#include <optional>
#include <string>
#include <utility>

#include "bpeforge/bpeforge.h"
#include "core/encode/tokenizer.h"

namespace bpeforge {

struct Tokenizer::State {
  State(internal::Tokenizer t, std::optional<BpeModel> m)
      : tokenizer(std::move(t)), model(std::move(m)) {}
  internal::Tokenizer tokenizer;
  std::optional<BpeModel> model;  // absent for rank files and ids with gaps
  std::string why_no_model;       // then, why (for Save's error)
  bool from_rank_file = false;
  // Per-thread caches of recent pre-tokens for EncodeBatch, kept warm from call to call (a
  // batch of short texts gains most from them: 2x on TinyStories-like documents).
  mutable tbb::enumerable_thread_specific<internal::EncodeCache> batch_caches;
};

// What the rest of api/ sees of a public Tokenizer: its core tables.
struct TokenizerCore {
  static const internal::Tokenizer& Of(const Tokenizer& t) { return t.state_->tokenizer; }
};

}  // namespace bpeforge

#endif  // BPEFORGE_API_TOKENIZER_STATE_H_
