// An obviously-correct, slow BPE trainer used as the oracle in tests: it splits special
// tokens naively, pre-tokenizes with the Boost.Regex reference, and recounts every pair
// from scratch before each merge.
#ifndef BPEFORGE_TESTS_REFERENCE_TRAINER_H_
#define BPEFORGE_TESTS_REFERENCE_TRAINER_H_

#include <string>
#include <vector>

#include "core/pretokenizer.h"
#include "core/types.h"

namespace bpeforge::internal::testing {

// Merges learned from the concatenated documents `docs` (each a separate document).
Merges ReferenceTrain(const std::vector<std::string>& docs, size_t vocab_size,
                      const std::vector<std::string>& special_tokens,
                      Pattern pattern = Pattern::kGpt2);

}  // namespace bpeforge::internal::testing

#endif  // BPEFORGE_TESTS_REFERENCE_TRAINER_H_
