#include "core/pretokenize/text_class.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>

#include "core/internal/utf8.h"

namespace bpeforge::internal {

static_assert(USCRIPT_CODE_LIMIT <= kTextClassScripts);

TextClass ClassifyText(absl::string_view text) {
  bool digit = false, space = true, punctuation = false, symbol = false;
  while (!text.empty()) {
    char32_t cp = 0;
    const size_t length = DecodeUtf8(text, &cp);
    if (length == 0) return kOtherText;
    text.remove_prefix(length);
    UErrorCode error = U_ZERO_ERROR;
    const UScriptCode script = uscript_getScript(static_cast<UChar32>(cp), &error);
    if (U_SUCCESS(error) && script != USCRIPT_COMMON && script != USCRIPT_INHERITED &&
        script != USCRIPT_UNKNOWN) {
      return static_cast<TextClass>(script);
    }
    digit = digit || u_isdigit(static_cast<UChar32>(cp));
    space = space && u_isUWhiteSpace(static_cast<UChar32>(cp));
    punctuation = punctuation || u_ispunct(static_cast<UChar32>(cp));
    const int8_t category = u_charType(static_cast<UChar32>(cp));
    symbol = symbol || category == U_MATH_SYMBOL || category == U_CURRENCY_SYMBOL ||
             category == U_MODIFIER_SYMBOL || category == U_OTHER_SYMBOL;
  }
  if (digit) return kDigits;
  if (space) return kWhiteSpace;
  if (punctuation) return kPunctuation;
  if (symbol) return kSymbols;
  return kOtherText;
}

absl::string_view TextClassName(TextClass c) {
  switch (c) {
    case kDigits:
      return "digits";
    case kWhiteSpace:
      return "white space";
    case kPunctuation:
      return "punctuation";
    case kSymbols:
      return "symbols";
    case kOtherText:
      return "other";
    case kSpecialTokenText:
      return "special tokens";
    default:
      break;
  }
  if (c < USCRIPT_CODE_LIMIT) {
    if (const char* name = uscript_getName(static_cast<UScriptCode>(c))) return name;
  }
  return "other";
}

}  // namespace bpeforge::internal
