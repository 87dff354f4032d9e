#include "service/catalog.h"

#include <algorithm>

#include "engine/log/session_title.h"

namespace retrace::service {

Result<std::unique_ptr<store::EventStore>> Catalog::Open(Access access) const {
  store::StoreOptions options;
  options.durability = options_.durability;
  options.now_ms = options_.now_ms;
  options.migrate = access == Access::kMigrate;
  options.create = access != Access::kExisting;
  return store::EventStore::Open(options_.db_path, options);
}

Result<query::ReadOnlyDb> Catalog::OpenReadOnly() const { return query::ReadOnlyDb::Open(options_.db_path); }

Result<store::EventSource> Catalog::Resolve(const std::string& name) const {
  return store::EventSource::Resolve(name, [&]() -> Result<std::shared_ptr<store::EventStore>> {
    ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, Open(Access::kExisting));
    return std::shared_ptr<store::EventStore>(std::move(store));
  });
}

Result<std::vector<store::SessionSummary>> Catalog::Sessions() const {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, Open(Access::kExisting));
  return store->ListSessions();
}

namespace {

std::string_view WithoutTrailingSlashes(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

}  // namespace

Result<SessionPage> Catalog::List(const SessionQuery& query) const {
  Result<std::unique_ptr<store::EventStore>> opened = Open(Access::kExisting);
  if (!opened.ok() && opened.status().code() == Status::Code::kNotFound && !query.after) return SessionPage{};
  RETURN_IF_ERROR(opened.status());
  std::shared_ptr<store::EventStore> store = std::move(*opened);
  ASSIGN_OR_RETURN(std::vector<store::SessionSummary> all, store->ListSessions());
  if (query.cwd) {
    const std::string_view want = WithoutTrailingSlashes(*query.cwd);
    std::erase_if(all, [&](const store::SessionSummary& s) { return !s.cwd || WithoutTrailingSlashes(*s.cwd) != want; });
  }
  auto begin = all.begin();
  if (query.after) {
    begin = std::find_if(all.begin(), all.end(), [&](const store::SessionSummary& s) { return s.id == *query.after; });
    if (begin == all.end()) return Status::InvalidArgument("no session " + *query.after + " to continue the list after");
    ++begin;
  }
  SessionPage page;
  const auto end = begin + static_cast<std::ptrdiff_t>(std::min<size_t>(query.limit, all.end() - begin));
  page.more = end != all.end();
  for (auto it = begin; it != end; ++it) {
    ASSIGN_OR_RETURN(store::EventSource source, store::EventSource::Stored(store, it->id));
    log::SessionTitleFold title;
    RETURN_IF_ERROR(source.Read(log::SessionTitleNeeds, [&](log::Event&& e) {
      title.Add(e);
      return Status::Ok();
    }));
    page.sessions.push_back({std::move(*it), title.Title()});
  }
  return page;
}

Result<store::SessionSummary> Catalog::Describe(const std::string& session_id) const {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, Open(Access::kExisting));
  return store->Describe(session_id);
}

Result<store::EventSource> Catalog::Stored(const std::string& session_id) const {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, Open(Access::kExisting));
  return store::EventSource::Stored(std::move(store), session_id);
}

json::Value SessionJson(const store::SessionSummary& s) {
  json::Value v = json::Value::MakeObject({{"id", s.id}, {"createdAt", s.created_at}, {"updatedAt", s.updated_at}});
  v.Set("cwd", s.cwd ? json::Value(*s.cwd) : json::Value());
  if (s.parent_session) v.Set("parentSession", *s.parent_session);
  v.Set("events", s.events);
  v.Set("turns", s.turns);
  v.Set("toolCalls", s.tool_calls);
  return v;
}

json::Value SessionJson(const SessionListing& s) {
  json::Value v = SessionJson(s.summary);
  v.Set("title", s.title ? json::Value(*s.title) : json::Value());
  return v;
}

}  // namespace retrace::service
