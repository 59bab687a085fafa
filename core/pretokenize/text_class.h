// What kind of text a pre-token is, for reports that split a tokenizer's compression by it: the
// Unicode script of its first letter (Latin, Cyrillic, Han, ...), or, for a pre-token without
// one, digits, white space, punctuation or symbols (emoji, math, currency signs).
//
//   TextClass c = ClassifyText(" the");    // Latin
//   absl::string_view name = TextClassName(ClassifyText(" 2024"));  // "digits"
#ifndef BPEFORGE_CORE_PRETOKENIZE_TEXT_CLASS_H_
#define BPEFORGE_CORE_PRETOKENIZE_TEXT_CLASS_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace bpeforge::internal {

// An ICU script code (UScriptCode) below kTextClassScripts, or one of the classes after it.
using TextClass = uint16_t;
inline constexpr TextClass kTextClassScripts = 512;
inline constexpr TextClass kDigits = kTextClassScripts, kWhiteSpace = kDigits + 1,
                           kPunctuation = kDigits + 2, kSymbols = kDigits + 3,
                           kOtherText = kDigits + 4;
// Not a class ClassifyText gives: a tokenizer's special tokens found in the text.
inline constexpr TextClass kSpecialTokenText = kDigits + 5;
inline constexpr TextClass kTextClassLimit = kSpecialTokenText + 1;

// The class of UTF-8 `text`: the script of its first code point whose script is neither
// Common nor Inherited (combining marks); else digits if it holds a decimal digit, white space
// if it is all white space, punctuation if it holds a punctuation mark, symbols if a symbol,
// else other (also for bytes that are not UTF-8).
TextClass ClassifyText(absl::string_view text);
// "Latin", "Cyrillic", "Han", ... (ICU's long script names), "digits", "white space",
// "punctuation", "symbols", "other", "special tokens".
absl::string_view TextClassName(TextClass c);

}  // namespace bpeforge::internal

#endif  // BPEFORGE_CORE_PRETOKENIZE_TEXT_CLASS_H_
