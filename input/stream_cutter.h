// Cutting a stream of bytes (standard input, a compressed file, JSON Lines) into pieces that
// can be processed apart, as the bytes arrive: at safe cuts (core/pretokenize/safe_cut.h) for text,
// so that each piece pre-tokenizes as the whole would; at line ends for JSON Lines.
//
//   StreamCutter cutter(source, StreamCutter::Mode::kSafeCuts, 4 << 20, &specials, true);
//   for (;;) {
//     absl::StatusOr<std::optional<StreamCutter::Piece>> piece = cutter.Next();
//     if (!piece.ok()) return piece.status();
//     if (!piece->has_value()) break;  // the end
//     Process((*piece)->text, (*piece)->offset);
//   }
#ifndef BPEFORGE_INPUT_STREAM_CUTTER_H_
#define BPEFORGE_INPUT_STREAM_CUTTER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "core/pretokenize/pattern.h"
#include "core/pretokenize/special_tokens.h"
#include "input/byte_source.h"

namespace bpeforge::internal {

class StreamCutter {
 public:
  enum class Mode {
    kSafeCuts,  // text: cut where the pre-tokenizer restarts (IsSafeCut)
    kLines,     // JSON Lines: cut after a '\n'; a piece holds whole lines
  };
  struct Piece {
    // Followed by at least kPadding allocated bytes past its end (for simdjson).
    std::string text;
    uint64_t offset = 0;      // of text[0] in the decompressed stream
    uint64_t first_line = 0;  // 1-based line number of text[0]
  };
  static constexpr size_t kPadding = 64;

  // `specials` must outlive the cutter; it and `pattern` (whose cuts) matter only for
  // kSafeCuts.
  StreamCutter(ByteSource& source, Mode mode, size_t target_bytes, const SpecialTokens* specials,
               Pattern pattern);

  // The next piece (about `target_bytes` long, longer when no cut comes sooner), or nullopt
  // after the last one. Read errors name the file and offset (ByteSource::Read).
  absl::StatusOr<std::optional<Piece>> Next();

  uint64_t consumed() const { return source_.consumed(); }  // stored (compressed) bytes read
  uint64_t bytes() const { return offset_; }                // decompressed bytes handed out

 private:
  absl::Status ReadMore();
  size_t FindCut();  // 0: none yet

  ByteSource& source_;
  const Mode mode_;
  const size_t target_;
  const size_t block_;
  const SpecialTokens* specials_;
  const Pattern pattern_;
  // How far back a cut's verdict may change as bytes arrive: a special token, or the (up to
  // 4-byte) character after a newline.
  size_t slack_ = 4;
  std::string carry_;
  size_t checked_ = 0;  // carry_[1..checked_) holds no cut
  uint64_t offset_ = 0;
  uint64_t line_ = 1;
  bool eof_ = false;
};

}  // namespace bpeforge::internal

#endif  // BPEFORGE_INPUT_STREAM_CUTTER_H_
