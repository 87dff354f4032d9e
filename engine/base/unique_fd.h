// UniqueFd: owns a POSIX file descriptor and closes it once, on destruction,
// reset() or Close(). Move-only; -1 stands for none. Every descriptor retrace
// opens is held by one.
#ifndef RETRACE_ENGINE_BASE_UNIQUE_FD_H_
#define RETRACE_ENGINE_BASE_UNIQUE_FD_H_

#include <unistd.h>

#include <utility>

namespace retrace::base {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  // Gives up ownership without closing.
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }
  // Closes now, for a caller to whom the result matters (a written file whose
  // last bytes the close may still fail to store): false with errno set on
  // an error. Either way the descriptor is gone; none held counts as closed.
  [[nodiscard]] bool Close() { return fd_ < 0 || ::close(release()) == 0; }

 private:
  int fd_ = -1;
};

}  // namespace retrace::base

#endif  // RETRACE_ENGINE_BASE_UNIQUE_FD_H_
