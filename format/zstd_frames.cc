#include "format/zstd_frames.h"

#include <zstd.h>

#include <memory>

namespace retrace::format {
namespace {

uint32_t Le32(std::string_view b, size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(b[at])) |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8 |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 2])) << 16 |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 3])) << 24;
}

Status Corrupt(uint64_t offset, const std::string& why) {
  return Status::Corruption("corrupt Zstandard session log: frame at byte " + std::to_string(offset) +
                            " failed validation (" + why + ")");
}

struct DCtxFree {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

// Streams `frame` through a decompression context. `done` reports whether the
// frame ended (ZSTD_decompressStream returned 0).
Result<std::string> Stream(std::string_view frame, bool& done, uint64_t offset) {
  std::unique_ptr<ZSTD_DCtx, DCtxFree> ctx(ZSTD_createDCtx());
  std::string out;
  std::string buf(ZSTD_DStreamOutSize(), '\0');
  ZSTD_inBuffer in{frame.data(), frame.size(), 0};
  done = false;
  while (true) {
    ZSTD_outBuffer o{buf.data(), buf.size(), 0};
    const size_t rc = ZSTD_decompressStream(ctx.get(), &o, &in);
    if (ZSTD_isError(rc)) return Corrupt(offset, ZSTD_getErrorName(rc));
    out.append(buf.data(), o.pos);
    if (rc == 0) {
      done = true;
      return out;
    }
    if (in.pos == in.size && o.pos < o.size) return out;  // input exhausted mid-frame
  }
}

}  // namespace

bool LooksLikeZstd(std::string_view b) { return b.size() >= 4 && Le32(b, 0) == kZstdMagic; }

Result<ZstdFrameSpan> ScanZstdFrame(std::string_view b, uint64_t offset) {
  const ZstdFrameSpan torn{ZstdFrameSpan::Kind::kTorn, b.size()};
  if (b.size() < 4) return torn;
  const uint32_t magic = Le32(b, 0);
  if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {  // skippable frame
    if (b.size() < 8) return torn;
    const uint64_t size = 8 + static_cast<uint64_t>(Le32(b, 4));
    return size > b.size() ? torn : ZstdFrameSpan{ZstdFrameSpan::Kind::kSkippable, static_cast<size_t>(size)};
  }
  if (magic != kZstdMagic) return Corrupt(offset, "bad magic number");
  if (b.size() < 5) return torn;
  const auto fhd = static_cast<unsigned char>(b[4]);
  if (fhd & 0x08) return Corrupt(offset, "reserved descriptor bit set");
  const int fcs_flag = fhd >> 6, single_segment = (fhd >> 5) & 1, checksum = (fhd >> 2) & 1, dict_flag = fhd & 3;
  static constexpr int kDictSize[] = {0, 1, 2, 4};
  static constexpr int kFcsSize[] = {0, 2, 4, 8};
  const size_t header = 5 + (single_segment ? 0 : 1) + kDictSize[dict_flag] +
                        (fcs_flag == 0 && single_segment ? 1 : kFcsSize[fcs_flag]);
  size_t pos = header;
  while (true) {
    if (pos + 3 > b.size()) return torn;
    const uint32_t bh = static_cast<unsigned char>(b[pos]) | static_cast<unsigned char>(b[pos + 1]) << 8 |
                        static_cast<unsigned char>(b[pos + 2]) << 16;
    const bool last = bh & 1;
    const auto type = static_cast<int>((bh >> 1) & 3);
    const size_t size = bh >> 3;
    if (type == 3) return Corrupt(offset, "reserved block type");
    pos += 3 + (type == 1 ? 1 : size);  // an RLE block stores one byte
    if (pos > b.size()) return torn;
    if (last) break;
  }
  if (checksum) pos += 4;
  if (pos > b.size()) return torn;
  return ZstdFrameSpan{ZstdFrameSpan::Kind::kComplete, pos};
}

Result<std::string> DecompressFrame(std::string_view frame, uint64_t offset) {
  bool done = false;
  ASSIGN_OR_RETURN(std::string out, Stream(frame, done, offset));
  if (!done) return Corrupt(offset, "frame ended early");
  return out;
}

std::string DecompressTornFrame(std::string_view frame) {
  bool done = false;
  auto out = Stream(frame, done, 0);
  return out.ok() ? std::move(out).value() : std::string();
}

Result<std::string> CompressFrame(std::string_view plain, int level) {
  struct CCtxFree {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
  };
  std::unique_ptr<ZSTD_CCtx, CCtxFree> ctx(ZSTD_createCCtx());
  ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_contentSizeFlag, 0);  // as dsh's streaming writer
  std::string out(ZSTD_compressBound(plain.size()), '\0');
  const size_t n = ZSTD_compress2(ctx.get(), out.data(), out.size(), plain.data(), plain.size());
  if (ZSTD_isError(n)) return Status::IoError(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

}  // namespace retrace::format
