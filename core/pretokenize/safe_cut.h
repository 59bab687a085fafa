// Cutting a text into chunks that can be pre-tokenized independently with exactly the
// result of one pass over the whole text.
#ifndef BPEFORGE_CORE_PRETOKENIZE_SAFE_CUT_H_
#define BPEFORGE_CORE_PRETOKENIZE_SAFE_CUT_H_

#include <cstddef>
#include <vector>

#include "absl/strings/string_view.h"
#include "core/pretokenize/pattern.h"
#include "core/pretokenize/special_tokens.h"

namespace bpeforge::internal {

// True if position `pos` (0 < pos < text.size()) is a safe cut for `pattern`:
//  * no special-token occurrence can span it: the bytes on either side form no pair that
//    occurs inside any special token; so special-token scanning restarts cleanly there;
//  * and the pre-tokenizer restarts there: a special token starts at `pos`, or, for the
//    built-in patterns (where a pass over text[pos:] then makes the same pre-tokens):
//    - a letter (\p{L}, in any script) is followed by ' ' or '\n': under the gpt2, cl100k
//      and o200k patterns no pre-token contains a letter followed by white space (only the
//      optional leading space or punctuation comes before letters), and no alternative
//      looks past that white space from a match that starts earlier;
//    - gpt2 only: any character but white space is followed by '\n': every gpt2 pre-token
//      that holds a non-space ends before the white space after it. (In cl100k and o200k
//      punctuation takes the newlines after it, [\r\n]*.)
//    - a '\n' is followed by a character that is neither white space nor '/': the newline
//      ends a pre-token (cl100k and o200k give newlines after punctuation to it, o200k '/'
//      too), and none takes a newline as the prefix of what starts after it. For gpt2 the
//      newline must be a lone one (no white space before it): after two or more white-space
//      characters \s+(?!\S) splits a run before a non-space differently from one at the end
//      of a chunk. cl100k and o200k take a run of white space ending in newlines whole,
//      \s*[\r\n]+, at a chunk's end or not.
//    So text in scripts without ASCII letters (Cyrillic, Greek, CJK paragraphs, which end in
//    punctuation and a blank line: "。\n\n") is cut as often as English. For a custom
//    pattern, about which nothing is known, only the special-token starts remain. Bytes that
//    are not well-formed UTF-8 around `pos` give no cut of these kinds.
bool IsSafeCut(absl::string_view text, size_t pos, const SpecialTokens& specials, Pattern pattern);

// The end of the chunk that starts at `begin`: the first safe cut at or after
// begin + target (at least begin + 1), or text.size() if there is none.
size_t NextChunkEnd(absl::string_view text, size_t begin, const SpecialTokens& specials,
                    size_t target, Pattern pattern);

// Offsets 0 = c0 < c1 < ... < ck = text.size() of safe cuts about `target` bytes apart
// (a chunk grows past `target` until a safe cut is found). An empty text gives {0, 0}.
std::vector<size_t> FindChunkBounds(absl::string_view text, const SpecialTokens& specials,
                                    size_t target, Pattern pattern);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_PRETOKENIZE_SAFE_CUT_H_
