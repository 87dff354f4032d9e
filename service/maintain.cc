#include "service/maintain.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "store/session_writer.h"

namespace retrace::service {

Result<RepairOutcome> RepairSession(const Catalog& catalog, const std::string& session_id) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  ASSIGN_OR_RETURN(auto writer, store->OpenWriter(session_id));
  RepairOutcome outcome;
  outcome.first_seq = writer->next_seq();
  ASSIGN_OR_RETURN(outcome.added, writer->RepairOpenTurn());
  return outcome;
}

Status CatchUpSearchIndex(const Catalog& catalog) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  return store->CatchUpSearchIndex();
}

Status RebuildReadModel(const Catalog& catalog, const std::function<void(int64_t, int64_t)>& progress) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  return store->RebuildReadModel(progress);
}

namespace {

int64_t FileBytes(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<int64_t>(size);
}

}  // namespace

Result<DeleteOutcome> DeleteSessions(const Catalog& catalog, const std::vector<std::string>& ids,
                                     const DeleteOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  DeleteOutcome outcome;
  std::set<std::string> named;
  for (const std::string& id : ids) {
    if (!named.insert(id).second) return Status::InvalidArgument("session \"" + id + "\" is named twice");
    ASSIGN_OR_RETURN(store::SessionSummary s, store->Describe(id));
    outcome.deleted.push_back(std::move(s));
  }
  outcome.bytes_before = FileBytes(catalog.db_path());
  const auto total = static_cast<int64_t>(ids.size());
  for (int64_t i = 0; i < total; ++i) {
    if (Status st = store->DeleteSession(ids[static_cast<size_t>(i)]); !st.ok()) {
      outcome.deleted.resize(static_cast<size_t>(i));
      return st.WithContext(std::to_string(i) + " of " + std::to_string(total) + " sessions deleted before it");
    }
    if (options.progress) options.progress(i + 1, total);
  }
  if (options.vacuum && total > 0) RETURN_IF_ERROR(store->Vacuum(&outcome.free_pages));
  outcome.bytes_after = FileBytes(catalog.db_path());
  return outcome;
}

Result<std::vector<store::SessionSummary>> SessionsIdleSince(const Catalog& catalog, int64_t cutoff_ms) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  ASSIGN_OR_RETURN(std::vector<store::SessionSummary> all, store->ListSessions());
  std::vector<store::SessionSummary> old;
  for (store::SessionSummary& s : all) {
    if (s.updated_at < cutoff_ms) old.push_back(std::move(s));
  }
  std::stable_sort(old.begin(), old.end(), [](const auto& a, const auto& b) { return a.updated_at < b.updated_at; });
  return old;
}

Result<std::vector<store::EventStore::ChainReport>> VerifySessions(
    const Catalog& catalog, const std::vector<std::string>& ids, const std::map<std::string, std::string>& pinned) {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, catalog.Open(Access::kExisting));
  std::vector<std::string> which = ids;
  std::set<std::string> stored;
  ASSIGN_OR_RETURN(std::vector<store::SessionSummary> all, store->ListSessions());
  for (const store::SessionSummary& s : all) stored.insert(s.id);
  if (which.empty()) which.assign(stored.begin(), stored.end());
  std::vector<store::EventStore::ChainReport> reports;
  for (const std::string& id : which) {
    auto pin = pinned.find(id);
    ASSIGN_OR_RETURN(store::EventStore::ChainReport report,
                     store->VerifyChain(id, pin == pinned.end() ? std::string_view() : pin->second));
    reports.push_back(std::move(report));
  }
  if (ids.empty()) {
    for (const auto& [id, head] : pinned) {
      if (stored.contains(id)) continue;
      reports.push_back({.session_id = id,
                         .problem = "pinned with head " + head + ", but the database holds no such session any more",
                         .problem_seq = 0});
    }
  }
  return reports;
}

}  // namespace retrace::service
