#include "service/export.h"

#include "store/exporter.h"

namespace retrace::service {

Result<std::string> ExportSession(const Catalog& catalog, const std::string& session_id, const ExportOptions& o,
                                  const std::function<Status(std::string_view)>& sink) {
  if (!o.file.empty() && !o.dsh_root.empty()) return Status::InvalidArgument("use either -o or --dsh-root, not both");
  if (o.file.empty() && o.dsh_root.empty() && !sink) return Status::InvalidArgument("nowhere to export to");
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  if (!o.dsh_root.empty()) return store::ExportToDshRoot(*store, session_id, o.zstd, o.dsh_root);
  if (!o.file.empty()) {
    RETURN_IF_ERROR(store::ExportToFile(*store, session_id, o.zstd, o.file));
    return o.file;
  }
  RETURN_IF_ERROR(store::ExportSession(*store, session_id, o.zstd, sink));
  return std::string();
}

}  // namespace retrace::service
