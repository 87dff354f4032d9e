// The dsh log reader (format/jsonl_reader.h) over any bytes: raw or zstd (the
// frames are detected from the bytes), packed chunk rows, torn tails. It
// must return records or a clear error, never crash, hang or read out of
// bounds. The bytes are given as a file, as import reads them.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "format/jsonl_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd_create("retrace-fuzz-log", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  size_t done = 0;
  while (done < size) {
    const ssize_t n = write(fd, data + done, size - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  auto reader = retrace::format::JsonlReader::Open("/proc/self/fd/" + std::to_string(fd));
  if (reader.ok()) {
    for (int records = 0; records < 100000; ++records) {
      auto next = (*reader)->Next();
      if (!next.ok() || !next->has_value()) break;
    }
  }
  close(fd);
  return 0;
}
