// An obviously-correct, slow BPE trainer used as the oracle in tests: it splits special
// tokens naively, pre-tokenizes with the Boost.Regex reference, and recounts every pair
// from scratch before each merge.
#ifndef BPEFORGE_TESTS_REFERENCE_TRAINER_H_
#define BPEFORGE_TESTS_REFERENCE_TRAINER_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/internal/types.h"
#include "core/pretokenize/pretokenizer.h"

namespace bpeforge::internal::testing {

// Merges learned from the concatenated documents `docs` (each a separate document).
// With `min_frequency`, it stops when the most frequent pair occurs fewer times; with
// `max_token_length` (bytes, 0: none), pairs that would make a longer token are not candidates.
// `merge_counts`, when given, gets how often each merged pair occurred.
Merges ReferenceTrain(const std::vector<std::string>& docs, size_t vocab_size,
                      const std::vector<std::string>& special_tokens,
                      Pattern pattern = Pattern::kGpt2, uint64_t min_frequency = 0,
                      size_t max_token_length = 0, const std::string& custom_regex = "",
                      std::vector<uint64_t>* merge_counts = nullptr);

// ReferenceTrain's merge loop on its own: up to `max_merges` merges of the pre-tokens in
// `counts`, recounting every pair before each merge. `merge_counts`, when given, gets how often
// each merged pair occurred.
Merges ReferenceMerges(const std::map<std::string, uint64_t>& counts, size_t max_merges,
                       uint64_t min_frequency = 0, size_t max_token_length = 0,
                       std::vector<uint64_t>* merge_counts = nullptr);

}  // namespace bpeforge::internal::testing

#endif  // BPEFORGE_TESTS_REFERENCE_TRAINER_H_
