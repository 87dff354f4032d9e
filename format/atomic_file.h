// AtomicFile: writes a file so that readers see either nothing or all of it.
// Data goes to `<path>.<random>.tmp` (O_EXCL, mode 0600), is fsynced, then
// published with link() (no overwrite) or rename() (overwrite), and the
// directory is fsynced. An uncommitted AtomicFile removes its temp file.
// A path naming a device, FIFO or socket (/dev/null, /dev/stdout, a named
// pipe) is written in place: there is no file to replace, and a rename would
// replace the device itself. A directory is refused.
#ifndef RETRACE_FORMAT_ATOMIC_FILE_H_
#define RETRACE_FORMAT_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include <retrace/engine/base/status.h>
#include <retrace/engine/base/unique_fd.h>

namespace retrace::format {

class AtomicFile {
 public:
  static Result<AtomicFile> Create(const std::string& path);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile();

  Status Append(std::string_view bytes);
  // Publishes the file; with `overwrite` false an existing file is an error.
  Status Commit(bool overwrite);

 private:
  AtomicFile(std::string path, std::string tmp, base::UniqueFd fd)
      : path_(std::move(path)), tmp_(std::move(tmp)), fd_(std::move(fd)) {}
  std::string path_;
  std::string tmp_;
  base::UniqueFd fd_;
  bool committed_ = false;
};

// Writes `bytes` as the whole of `path` through an AtomicFile, replacing any file there.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

// Creates `dir` and its missing parents with mode 0700, fsyncing each parent.
Status MakeDirectories(const std::string& dir);

}  // namespace retrace::format

#endif  // RETRACE_FORMAT_ATOMIC_FILE_H_
