// Placeholder until the hand-written matcher lands: the production pre-tokenizer is the
// reference one.
#include "core/pretokenizer.h"

namespace bpeforge {

std::unique_ptr<PreTokenizer> MakePreTokenizer(Pattern pattern) {
  return MakeRegexPreTokenizer(pattern);
}

}  // namespace bpeforge
