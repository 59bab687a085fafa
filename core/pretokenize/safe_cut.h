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
//  * and the pre-tokenizer restarts there: a special token starts at `pos`, or
//    - a letter (\p{L}, in any script) is followed by ' ' or '\n': under the gpt2, cl100k
//      and o200k patterns no pre-token contains a letter followed by white space (only the
//      optional leading space or punctuation comes before letters), and no alternative
//      looks past that white space from a match that starts earlier;
//    - or a lone '\n' (no white space before it) is followed by a character that is neither
//      white space nor '/': the newline is a pre-token of its own or ends one (cl100k and
//      o200k give newlines after punctuation to it, [\r\n]*, and o200k '/' too), and none
//      takes a newline as the prefix of what starts after it. After two or more white-space
//      characters it would not do: \s+(?!\S) splits a run before a non-space differently
//      from one at the end of a chunk.
//    Either way a pass over text[pos:] makes the same pre-tokens. Text in scripts without
//    ASCII letters (Cyrillic, Greek, CJK paragraphs) is cut as often as English.
//    With `letter_cuts` false (a custom pattern, about which nothing is known) only the
//    special-token starts remain. Bytes that are not well-formed UTF-8 around `pos` give no
//    cut of these kinds.
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
