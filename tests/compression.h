// Compressing test inputs with the libraries themselves (gzip: zlib, xz: liblzma, zstd).
#ifndef BPEFORGE_TESTS_COMPRESSION_H_
#define BPEFORGE_TESTS_COMPRESSION_H_

#include <string>

namespace bpeforge::internal::testing {

std::string Gzip(const std::string& text);
std::string Xz(const std::string& text);
// With a checksum, as the zstd command writes by default, so that corruption is detected.
std::string Zstd(const std::string& text);

}  // namespace bpeforge::internal::testing

#endif  // BPEFORGE_TESTS_COMPRESSION_H_
