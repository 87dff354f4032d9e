#include "format/line_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

#include "engine/base/unique_fd.h"
#include "format/zstd_frames.h"

namespace retrace::format {
namespace {

constexpr size_t kReadChunk = 1 << 17;

using base::UniqueFd;

Status ReadError(const std::string& path) { return Status::IoError("cannot read " + path + ": " + std::strerror(errno)); }

// Reads from the fd's position to the end of the file (whatever it has
// grown to by then), or only `limit` bytes; `first` holds the first few,
// already read.
class RawLineSource final : public LineSource {
 public:
  RawLineSource(UniqueFd fd, std::string path, uint64_t size, std::string first, uint64_t limit = UINT64_MAX)
      : fd_(std::move(fd)), path_(std::move(path)), first_(std::move(first)), limit_(limit) {
    physical_size_ = size;
  }
  bool compressed() const override { return false; }

 protected:
  Result<bool> Refill(std::string& buf, size_t& end) override {
    if (!first_.empty()) {
      Append(buf, end, first_);
      physical_read_ += first_.size();
      first_.clear();
      return true;
    }
    const uint64_t left = limit_ - physical_read_;
    if (left == 0) return false;
    const size_t chunk = static_cast<size_t>(std::min<uint64_t>(kReadChunk, left));
    const ssize_t n = read(fd_.get(), Room(buf, end, chunk), chunk);
    if (n < 0) return ReadError(path_);
    end += static_cast<size_t>(n);
    physical_read_ += static_cast<uint64_t>(n);
    return n > 0;
  }

 private:
  UniqueFd fd_;
  std::string path_;
  std::string first_;
  uint64_t limit_;
};

// Holds the compressed bytes (typically ~10x smaller than the text) and
// decompresses one frame per refill.
class ZstdLineSource final : public LineSource {
 public:
  ZstdLineSource(std::string bytes) : bytes_(std::move(bytes)) { physical_size_ = bytes_.size(); }
  bool compressed() const override { return true; }

 protected:
  Result<bool> Refill(std::string& buf, size_t& end) override {
    while (offset_ < bytes_.size()) {
      const std::string_view rest = std::string_view(bytes_).substr(offset_);
      ASSIGN_OR_RETURN(ZstdFrameSpan span, ScanZstdFrame(rest, offset_));
      const uint64_t at = offset_;
      offset_ += span.size;
      physical_read_.store(offset_, std::memory_order_relaxed);
      if (span.kind == ZstdFrameSpan::Kind::kSkippable) continue;
      if (span.kind == ZstdFrameSpan::Kind::kTorn) {
        RETURN_IF_ERROR(RefuseIfFollowedByFrame(rest, at));
        Append(buf, end, DecompressTornFrame(rest));  // complete lines in it are still committed
        return true;
      }
      ASSIGN_OR_RETURN(std::string plain, DecompressFrame(rest.substr(0, span.size), at));
      if (!plain.empty() && plain.back() != '\n') {
        return Status::Corruption("corrupt Zstandard session log: frame at byte " + std::to_string(at) +
                                  " ends inside a line");
      }
      Append(buf, end, plain);
      return true;
    }
    return false;
  }

 private:
  // A frame that looks torn but is followed by a valid complete frame was
  // truncated in the middle of the file: that is corruption, not a torn tail.
  static Status RefuseIfFollowedByFrame(std::string_view rest, uint64_t at) {
    for (size_t i = 1; i + 4 <= rest.size(); ++i) {
      const std::string_view cand = rest.substr(i);
      if (!LooksLikeZstd(cand)) continue;
      auto span = ScanZstdFrame(cand, at + i);
      if (!span.ok() || span->kind != ZstdFrameSpan::Kind::kComplete) continue;
      if (DecompressFrame(cand.substr(0, span->size), at + i).ok()) {
        return Status::Corruption("corrupt Zstandard session log: frame at byte " + std::to_string(at) +
                                  " is truncated, yet a complete frame follows at byte " + std::to_string(at + i));
      }
    }
    return Status::Ok();
  }

  std::string bytes_;
  uint64_t offset_ = 0;
};

Result<UniqueFd> OpenFile(const std::string& path, struct stat& st) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return Status::IoError("cannot open " + path + ": " + std::strerror(errno));
  if (fstat(fd.get(), &st) != 0) return ReadError(path);
  if (S_ISDIR(st.st_mode)) return Status::InvalidArgument(path + " is a directory");
  // A log is read by its size: a device or a pipe (/dev/zero, /dev/stdin)
  // has none, and is named for what it is rather than taken for empty.
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISCHR(st.st_mode) ? "a character device" : S_ISFIFO(st.st_mode) ? "a pipe" : "not a regular file";
    return Status::Corruption(path + ": not a dsh log (" + kind + "; a dsh log is a regular file)");
  }
  return fd;
}

}  // namespace

Result<std::unique_ptr<LineSource>> LineSource::OpenRange(const std::string& path, uint64_t begin, uint64_t end) {
  struct stat st {};
  ASSIGN_OR_RETURN(UniqueFd fd, OpenFile(path, st));
  end = std::min(end, static_cast<uint64_t>(st.st_size));
  if (begin > end) return Status::InvalidArgument(path + ": byte range starts past its end");
  if (lseek(fd.get(), static_cast<off_t>(begin), SEEK_SET) < 0) return ReadError(path);
  return std::unique_ptr<LineSource>(
      std::make_unique<RawLineSource>(std::move(fd), path, end - begin, std::string(), end - begin));
}

Result<std::unique_ptr<LineSource>> LineSource::Open(const std::string& path) {
  struct stat st {};
  ASSIGN_OR_RETURN(UniqueFd fd, OpenFile(path, st));
  if (st.st_size == 0) return Status::Corruption(path + ": empty file (a dsh log starts with a session header line)");
  std::string first(4, '\0');
  const ssize_t n = read(fd.get(), first.data(), first.size());
  if (n < 0) return ReadError(path);
  first.resize(static_cast<size_t>(n));
  if (!LooksLikeZstd(first)) {
    return std::unique_ptr<LineSource>(
        std::make_unique<RawLineSource>(std::move(fd), path, static_cast<uint64_t>(st.st_size), std::move(first)));
  }
  std::string bytes = first;
  bytes.resize(static_cast<size_t>(st.st_size));
  size_t got = first.size();
  while (got < bytes.size()) {
    const ssize_t r = read(fd.get(), bytes.data() + got, bytes.size() - got);
    if (r < 0) return ReadError(path);
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  bytes.resize(got);
  return std::unique_ptr<LineSource>(std::make_unique<ZstdLineSource>(std::move(bytes)));
}

char* LineSource::Room(std::string& buf, size_t end, size_t n) {
  // Grows by doubling, so a long line costs a few resizes, not one per refill.
  if (buf.size() < end + n) buf.resize(std::max(end + n, 2 * buf.size()), ' ');
  return buf.data() + end;
}

void LineSource::Append(std::string& buf, size_t& end, std::string_view text) {
  std::memcpy(Room(buf, end, text.size()), text.data(), text.size());
  end += text.size();
}

Result<std::optional<std::string_view>> LineSource::NextLine() {
  while (true) {
    const size_t nl = std::string_view(buf_.data(), end_).find('\n', std::max(pos_, searched_));
    if (nl != std::string::npos) {
      std::string_view line(buf_.data() + pos_, nl - pos_);
      pos_ = nl + 1;
      searched_ = pos_;
      return std::optional<std::string_view>(line);
    }
    if (eof_) {
      partial_ = buf_.substr(pos_, end_ - pos_);
      pos_ = end_;
      return std::optional<std::string_view>();
    }
    std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);  // keep only the unfinished line
    end_ -= pos_;
    pos_ = 0;
    searched_ = end_;
    ASSIGN_OR_RETURN(bool more, Refill(buf_, end_));
    eof_ = !more;
    Room(buf_, end_, kLinePadding);
  }
}

}  // namespace retrace::format
