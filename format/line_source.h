// LineSource: the logical JSONL text of a dsh log file, line by line, read
// incrementally from a raw `.jsonl` or a `.jsonl.zstd` file (frame by frame),
// so memory stays bounded by the largest line or frame, not the file.
#ifndef RETRACE_FORMAT_LINE_SOURCE_H_
#define RETRACE_FORMAT_LINE_SOURCE_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <retrace/engine/base/status.h>

namespace retrace::format {

class LineSource {
 public:
  virtual ~LineSource() = default;

  // Opens `path`, choosing raw or zstd by the file's first bytes. An empty
  // file is refused here.
  static Result<std::unique_ptr<LineSource>> Open(const std::string& path);
  // The bytes [begin, end) of a raw (uncompressed) file only: one piece of a
  // file read in pieces (event_source.h). `end` is clamped to the file's size.
  static Result<std::unique_ptr<LineSource>> OpenRange(const std::string& path, uint64_t begin, uint64_t end);

  // The next complete ('\n'-terminated) line without its '\n', valid until the
  // next call; nullopt at the end. Errors are physical corruption (zstd).
  // At least kLinePadding readable bytes follow every line in memory (the next
  // lines, or scratch), so a SIMD parser may read past its end (FastJsonParser).
  Result<std::optional<std::string_view>> NextLine();
  static constexpr size_t kLinePadding = 64;

  // After NextLine() returned nullopt: bytes of a final line that had no '\n'.
  const std::string& partial_tail() const { return partial_; }

  virtual bool compressed() const = 0;
  // Physical bytes consumed so far / in total, for progress reporting.
  // physical_read() may be called from another thread than the reading one.
  uint64_t physical_read() const { return physical_read_.load(std::memory_order_relaxed); }
  uint64_t physical_size() const { return physical_size_; }

 protected:
  // Writes more logical text into `buf` from `end` on and moves `end` past
  // it (Room() makes the space); returns false at the end.
  virtual Result<bool> Refill(std::string& buf, size_t& end) = 0;
  // buf[end, end + n) to write into. The buffer only grows: bytes past the
  // text are scratch, so a refill writes over them instead of first having
  // them zeroed by a resize.
  static char* Room(std::string& buf, size_t end, size_t n);
  // Copies `text` to buf[end...] and moves `end` past it.
  static void Append(std::string& buf, size_t& end, std::string_view text);
  std::atomic<uint64_t> physical_read_{0};
  uint64_t physical_size_ = 0;

 private:
  std::string buf_;      // the text read so far, then at least kLinePadding scratch bytes
  size_t end_ = 0;       // where the text ends in buf_
  size_t pos_ = 0;
  size_t searched_ = 0;  // no '\n' in buf_[pos_, searched_)
  bool eof_ = false;
  std::string partial_;
};

}  // namespace retrace::format

#endif  // RETRACE_FORMAT_LINE_SOURCE_H_
