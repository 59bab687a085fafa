#include "core/internal/byte_unicode.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "core/internal/utf8.h"

namespace bpeforge::internal {
namespace {

struct Table {
  std::array<char32_t, 256> cp{};
  std::array<uint8_t, 256> order{};
  Table() {
    int n = 0;
    int next_extra = 0;
    auto printable = [](int b) {
      return (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    };
    for (int b = 0; b < 256; ++b) {
      if (printable(b)) {
        cp[b] = static_cast<char32_t>(b);
        order[n++] = static_cast<uint8_t>(b);
      }
    }
    for (int b = 0; b < 256; ++b) {
      if (!printable(b)) {
        cp[b] = static_cast<char32_t>(256 + next_extra++);
        order[n++] = static_cast<uint8_t>(b);
      }
    }
  }
};

const Table& GetTable() {
  static const Table table;
  return table;
}

}  // namespace

char32_t ByteToCodePoint(uint8_t b) { return GetTable().cp[b]; }

const std::array<uint8_t, 256>& BytesInGpt2Order() { return GetTable().order; }

std::string BytesToGpt2(absl::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) AppendUtf8(ByteToCodePoint(c), &out);
  return out;
}

absl::StatusOr<std::string> Gpt2ToBytes(absl::string_view visible) {
  std::string out;
  out.reserve(visible.size());
  size_t pos = 0;
  while (pos < visible.size()) {
    char32_t cp;
    size_t len = DecodeUtf8(visible.substr(pos), &cp);
    if (len == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid UTF-8 in token \"", visible, "\" at byte ", pos));
    }
    if (cp < 256 && GetTable().cp[cp] == cp) {
      out.push_back(static_cast<char>(cp));
    } else if (cp >= 256 && cp < 256 + 68) {
      // The non-printable bytes were numbered 256.. in increasing byte order.
      out.push_back(static_cast<char>(GetTable().order[188 + (cp - 256)]));
    } else {
      return absl::InvalidArgumentError(absl::StrCat("character U+", absl::Hex(cp), " in token \"",
                                                     visible, "\" is not a GPT-2 byte character"));
    }
    pos += len;
  }
  return out;
}

}  // namespace bpeforge::internal
