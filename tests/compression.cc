#include "tests/compression.h"

#include <gtest/gtest.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

namespace bpeforge::internal::testing {

std::string Gzip(const std::string& text) {
  z_stream z{};
  deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, text.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string Xz(const std::string& text) {
  std::string out(lzma_stream_buffer_bound(text.size()), '\0');
  size_t pos = 0;
  EXPECT_EQ(lzma_easy_buffer_encode(1, LZMA_CHECK_CRC64, nullptr,
                                    reinterpret_cast<const uint8_t*>(text.data()), text.size(),
                                    reinterpret_cast<uint8_t*>(out.data()), &pos, out.size()),
            LZMA_OK);
  out.resize(pos);
  return out;
}

// With a checksum, as the zstd command writes by default, so that corruption is detected.
std::string Zstd(const std::string& text) {
  std::string out(ZSTD_compressBound(text.size()), '\0');
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), text.data(), text.size());
  ZSTD_freeCCtx(cctx);
  EXPECT_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

std::string ZstdSkippableFrame(const std::string& payload, int variant) {
  std::string out = {static_cast<char>(0x50 + variant), '\x2a', '\x4d', '\x18'};
  for (int i = 0; i < 4; ++i) out += static_cast<char>(payload.size() >> (8 * i));
  return out + payload;
}

std::string ZstdWithWindow(const std::string& text, int window_log) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, window_log);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_enableLongDistanceMatching, 1);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  // Streamed, the input given before the end is asked for, so that its size is not known when
  // the frame's header is written: the frame keeps the window it was asked for.
  std::string out(ZSTD_compressBound(text.size()) + 1024, '\0');
  ZSTD_inBuffer in{text.data(), text.size(), 0};
  ZSTD_outBuffer dst{out.data(), out.size(), 0};
  while (in.pos < in.size) {
    EXPECT_FALSE(ZSTD_isError(ZSTD_compressStream2(cctx, &dst, &in, ZSTD_e_continue)));
  }
  ZSTD_inBuffer none{nullptr, 0, 0};
  size_t left = 0;
  do {
    left = ZSTD_compressStream2(cctx, &dst, &none, ZSTD_e_end);
    EXPECT_FALSE(ZSTD_isError(left));
  } while (left != 0 && !ZSTD_isError(left));
  ZSTD_freeCCtx(cctx);
  out.resize(dst.pos);
  return out;
}

}  // namespace bpeforge::internal::testing
