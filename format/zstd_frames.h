// Zstandard physical encoding of dsh logs (dsh-session-log §7.4): a
// file is a concatenation of independent zstd frames with content checksums;
// frame 1 holds the header line, each write batch one further frame.
#ifndef RETRACE_FORMAT_ZSTD_FRAMES_H_
#define RETRACE_FORMAT_ZSTD_FRAMES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include <retrace/engine/base/status.h>

namespace retrace::format {

inline constexpr uint32_t kZstdMagic = 0xFD2FB528;

// True when `bytes` starts with the zstd frame magic.
bool LooksLikeZstd(std::string_view bytes);

struct ZstdFrameSpan {
  enum class Kind { kComplete, kTorn, kSkippable };
  Kind kind;
  size_t size;  // bytes of the frame (to EOF when torn)
};

// Structural scan of the frame starting at `bytes[0]`, without decompressing:
// walks the frame header and block headers. EOF inside the frame → kTorn;
// reserved descriptor bits, block type 3 or a bad magic → Corruption naming
// `offset` (the frame's position in the file).
Result<ZstdFrameSpan> ScanZstdFrame(std::string_view bytes, uint64_t offset);

// Decompresses one complete frame, verifying its checksum; failure →
// "corrupt Zstandard session log: frame at byte N failed validation".
Result<std::string> DecompressFrame(std::string_view frame, uint64_t offset);

// Decompresses as much of a torn final frame as possible (flush mode).
std::string DecompressTornFrame(std::string_view frame);

// One frame with a content checksum, as dsh writes it (no content size).
Result<std::string> CompressFrame(std::string_view plain, int level = 3);

}  // namespace retrace::format

#endif  // RETRACE_FORMAT_ZSTD_FRAMES_H_
