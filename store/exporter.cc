#include "store/exporter.h"

#include <filesystem>

#include "engine/log/session_header.h"
#include "format/atomic_file.h"
#include "format/dsh_layout.h"
#include "format/zstd_frames.h"

namespace retrace::store {
namespace {

constexpr size_t kFrameText = 1 << 20;

// Refuses a dsh root holding logs of the opposite encoding (dsh reads one only).
Status CheckRootEncoding(const std::string& root, bool zstd) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) return Status::Ok();
  const std::string other = zstd ? "session.jsonl" : "session.jsonl.zstd";
  for (const auto& project : fs::directory_iterator(root, ec)) {
    if (!project.is_directory()) continue;
    for (const auto& session : fs::directory_iterator(project.path(), ec)) {
      if (fs::exists(session.path() / other, ec)) {
        return Status::FailedPrecondition("dsh root " + root + " already holds " + (zstd ? "raw" : "zstd") +
                                          " logs (e.g. " + (session.path() / other).string() +
                                          "); a dsh root holds one encoding only");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status ExportSession(EventStore& store, std::string_view session_id, bool zstd, const ByteSink& sink) {
  ASSIGN_OR_RETURN(std::string header, store.HeaderText(session_id));
  header += '\n';
  if (!zstd) {
    RETURN_IF_ERROR(sink(header));
    return store.ForEachStorageLine(session_id, [&](std::string_view line) -> Status {
      RETURN_IF_ERROR(sink(line));
      return sink("\n");
    });
  }
  ASSIGN_OR_RETURN(std::string first, format::CompressFrame(header));
  RETURN_IF_ERROR(sink(first));
  std::string pending;
  auto flush = [&]() -> Status {
    if (pending.empty()) return Status::Ok();
    ASSIGN_OR_RETURN(std::string frame, format::CompressFrame(pending));
    pending.clear();
    return sink(frame);
  };
  RETURN_IF_ERROR(store.ForEachStorageLine(session_id, [&](std::string_view line) -> Status {
    pending.append(line);
    pending += '\n';
    return pending.size() >= kFrameText ? flush() : Status::Ok();
  }));
  return flush();
}

Status ExportToFile(EventStore& store, std::string_view session_id, bool zstd, const std::string& path) {
  ASSIGN_OR_RETURN(format::AtomicFile file, format::AtomicFile::Create(path));
  RETURN_IF_ERROR(ExportSession(store, session_id, zstd, [&](std::string_view b) { return file.Append(b); }));
  return file.Commit(/*overwrite=*/true);
}

Result<std::string> ExportToDshRoot(EventStore& store, std::string_view session_id, bool zstd, const std::string& root) {
  ASSIGN_OR_RETURN(std::string header_text, store.HeaderText(session_id));
  ASSIGN_OR_RETURN(log::SessionHeader header, log::ParseHeaderLine(header_text));
  ASSIGN_OR_RETURN(std::string rel, format::DshLogPath(header.id, header.cwd, zstd));
  RETURN_IF_ERROR(CheckRootEncoding(root, zstd));
  const std::string path = root + "/" + rel;
  RETURN_IF_ERROR(format::MakeDirectories(std::filesystem::path(path).parent_path().string()));
  ASSIGN_OR_RETURN(format::AtomicFile file, format::AtomicFile::Create(path));
  RETURN_IF_ERROR(ExportSession(store, session_id, zstd, [&](std::string_view b) { return file.Append(b); }));
  RETURN_IF_ERROR(file.Commit(/*overwrite=*/false));
  return path;
}

}  // namespace retrace::store
