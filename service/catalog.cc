#include "service/catalog.h"

namespace retrace::service {

Result<std::unique_ptr<store::EventStore>> Catalog::Open(bool create, bool migrate) const {
  store::StoreOptions options;
  options.durability = options_.durability;
  options.now_ms = options_.now_ms;
  options.migrate = migrate;
  options.create = create;
  return store::EventStore::Open(options_.db_path, options);
}

Result<store::EventSource> Catalog::Resolve(const std::string& name) const {
  return store::EventSource::Resolve(name, [&]() -> Result<std::shared_ptr<store::EventStore>> {
    ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, Open(/*create=*/false));
    return std::shared_ptr<store::EventStore>(std::move(store));
  });
}

Result<std::vector<store::SessionSummary>> Catalog::Sessions() const {
  ASSIGN_OR_RETURN(std::unique_ptr<store::EventStore> store, Open(/*create=*/false));
  return store->ListSessions();
}

json::Value SessionJson(const store::SessionSummary& s) {
  json::Value v = json::Value::MakeObject({{"id", s.id}, {"createdAt", s.created_at}});
  v.Set("cwd", s.cwd ? json::Value(*s.cwd) : json::Value());
  if (s.parent_session) v.Set("parentSession", *s.parent_session);
  v.Set("events", s.events);
  v.Set("turns", s.turns);
  v.Set("toolCalls", s.tool_calls);
  return v;
}

}  // namespace retrace::service
