// Compressing test inputs with the libraries themselves (gzip: zlib, xz: liblzma, zstd).
#ifndef BPEFORGE_TESTS_COMPRESSION_H_
#define BPEFORGE_TESTS_COMPRESSION_H_

#include <string>

namespace bpeforge::internal::testing {

std::string Gzip(const std::string& text);
std::string Xz(const std::string& text);
// With a checksum, as the zstd command writes by default, so that corruption is detected.
std::string Zstd(const std::string& text);
// A zstd skippable frame holding `payload`, with magic 0x184D2A50 + `variant` (0 to 15), as pzstd
// writes one before each frame (its payload is the frame's size).
std::string ZstdSkippableFrame(const std::string& payload, int variant = 0);
// A zstd frame that declares a window of 2^window_log bytes, as `zstd --long=N` writes when the
// size is not known beforehand (a pipe): decoding needs that much memory, whatever the size.
std::string ZstdWithWindow(const std::string& text, int window_log);

}  // namespace bpeforge::internal::testing

#endif  // BPEFORGE_TESTS_COMPRESSION_H_
