// What dsh's local filesystem provider (dsh-fs-local) does under the write
// and edit tools, done natively: reading, atomic writing, line endings, and
// the sandbox-escalation argument checks that run even where nothing
// sandboxes.
#ifndef RETRACE_TOOLS_FILE_OPS_H_
#define RETRACE_TOOLS_FILE_OPS_H_

#include <optional>
#include <string>
#include <string_view>

#include <retrace/engine/json/value.h>

namespace retrace::tools {

struct FileInfo {
  bool regular = false;
  unsigned mode = 0644;
  uint64_t size = 0;
};

// stat() following symlinks; nullopt when nothing is there.
std::optional<FileInfo> Probe(const std::string& real_path);

// The whole file, or nullopt if it cannot be read.
std::optional<std::string> ReadBytes(const std::string& real_path);
// The rest of an open regular file, `size` bytes expected (fstat's; it may
// have changed since), or nullopt on a read error. A short read ends it.
std::optional<std::string> ReadAll(int fd, uint64_t size);

// Writes `content` through a temporary file and rename (parents created,
// the mode of a replaced file kept). Throws FsError on failure.
void WriteFileAtomic(const std::string& real_path, std::string_view content, std::optional<unsigned> mode,
                     const std::string& display_path, std::string_view verb);

// content.replaceAll("\r\n", "\n")
std::string NormalizeLineEndings(std::string_view content);

// Writes all of `bytes` to `fd`, retrying short writes and EINTR. False on an error (errno set).
bool WriteAll(int fd, std::string_view bytes);

// `bytes` random bytes as lowercase hex: unpredictable file-name parts.
std::string RandomHex(int bytes);

// dsh-sandbox's validateEscalationArgs, then — since nothing here sandboxes —
// the refusal of an escalation, naming the `confiner` ("filesystem" for the
// fs tools, "executor" for bash). Throws std::runtime_error.
void CheckEscalationArgs(const json::Value& args, std::string_view confiner = "filesystem");

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_FILE_OPS_H_
