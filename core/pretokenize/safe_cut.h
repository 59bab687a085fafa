// Cutting a text into chunks that can be pre-tokenized independently with exactly the
// result of one pass over the whole text.
#ifndef BPEFORGE_CORE_PRETOKENIZE_SAFE_CUT_H_
#define BPEFORGE_CORE_PRETOKENIZE_SAFE_CUT_H_

#include <cstddef>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/pretokenize/special_tokens.h"

namespace bpeforge::internal {

// True if position `pos` (0 < pos < text.size()) is a safe cut:
//  * no special-token occurrence can span it: the bytes on either side form no pair that
//    occurs inside any special token; so special-token scanning restarts cleanly there;
//  * and the pre-tokenizer restarts there: either a special token starts at `pos`, or an
//    ASCII letter is followed by ' ' or '\n'. Under the gpt2, cl100k and o200k patterns no
//    pre-token contains a letter followed by white space (only the optional leading space
//    or punctuation comes before letters), and no alternative looks past that white space
//    from a match that starts earlier, so a pass over text[pos:] makes the same pre-tokens.
//    With `letter_cuts` false (a custom pattern, about which nothing is known) only the
//    special-token starts remain.
bool IsSafeCut(absl::string_view text, size_t pos, const SpecialTokens& specials,
               bool letter_cuts = true);

// The end of the chunk that starts at `begin`: the first safe cut at or after
// begin + target (at least begin + 1), or text.size() if there is none.
size_t NextChunkEnd(absl::string_view text, size_t begin, const SpecialTokens& specials,
                    size_t target, bool letter_cuts = true);

// Offsets 0 = c0 < c1 < ... < ck = text.size() of safe cuts about `target` bytes apart
// (a chunk grows past `target` until a safe cut is found). An empty text gives {0, 0}.
std::vector<size_t> FindChunkBounds(absl::string_view text, const SpecialTokens& specials,
                                    size_t target, bool letter_cuts = true);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_PRETOKENIZE_SAFE_CUT_H_
