// What the public Tokenizer holds (its State), and how api/load_tokenizer.cc makes one from
// each kind of file. Private to api/.
#ifndef BPEFORGE_API_TOKENIZER_STATE_H_
#define BPEFORGE_API_TOKENIZER_STATE_H_

#include <tbb/enumerable_thread_specific.h>

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "bpeforge/bpeforge.h"
#include "core/encode/bpe_codec.h"

namespace bpeforge {

struct Tokenizer::State {
  explicit State(internal::BpeCodec t) : tokenizer(std::move(t)) {}
  internal::BpeCodec tokenizer;
  // The model (vocab and merges as bytes), made by make_model when first asked for: the bytes
  // of a vocabulary of long tokens are many times the memory its tokenizer takes
  // (core/encode/long_tokens.h). Null for rank files and ids with gaps.
  const BpeModel* model() const {
    std::call_once(model_made_, [this] {
      if (make_model) model_ = make_model();
    });
    return model_.has_value() ? &*model_ : nullptr;
  }
  std::function<BpeModel()> make_model;  // unset for rank files and ids with gaps
  std::string why_no_model;              // then, why (for Save's error)
  bool from_rank_file = false;
  // Whether the model holds the training's merge counts (merge_counts.txt), known without
  // making it.
  bool has_merge_counts = false;
  // Per-thread caches of recent pre-tokens for EncodeBatch, kept warm from call to call (a
  // batch of short texts gains most from them).
  mutable tbb::enumerable_thread_specific<internal::EncodeCache> batch_caches;

 private:
  mutable std::once_flag model_made_;
  mutable std::optional<BpeModel> model_;
};

// What the rest of api/ sees of a public Tokenizer: its core tables.
struct TokenizerCore {
  static const internal::BpeCodec& Of(const Tokenizer& t) { return t.state_->tokenizer; }
  static const Tokenizer::State& StateOf(const Tokenizer& t) { return *t.state_; }
};

}  // namespace bpeforge

#endif  // BPEFORGE_API_TOKENIZER_STATE_H_
