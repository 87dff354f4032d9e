#include "store/event_source.h"

#include "engine/log/upcaster.h"
#include "store/fast_json_parser.h"
#include "store/jsonl_reader.h"

namespace retrace::store {
namespace {

// Types the upcasters turn into others: read them too, then filter on the new type.
bool BecomesAnotherType(std::string_view type) { return type == "steering/message"; }

// The consumer sees current shapes (engine/log/upcaster.h), of the types it needs.
class UpcastingSink {
 public:
  UpcastingSink(std::string session_id, const TypeFilter& need, const EventSink& sink)
      : upcaster_(std::move(session_id)), need_(need), sink_(sink) {}
  Status operator()(log::Event&& event) {
    RETURN_IF_ERROR(upcaster_.Upcast(event).status().WithContext("event at seq " + std::to_string(event.seq)));
    return need_(event.type) ? sink_(std::move(event)) : Status::Ok();
  }

 private:
  log::Upcaster upcaster_;
  const TypeFilter& need_;
  const EventSink& sink_;
};

}  // namespace

Status ReadStoredEvents(EventStore& store, std::string_view session_id, const TypeFilter& need, const EventSink& sink) {
  ASSIGN_OR_RETURN(int64_t key, store.SessionKey(session_id));
  FastJsonParser parser;
  UpcastingSink upcast(std::string(session_id), need, sink);
  // Chunk rows are left in the database: the type column says they are not needed.
  auto read = [&](std::string_view type) { return need(type) || BecomesAnotherType(type); };
  return store.ForEachRow(key, 0, std::nullopt, read, [&](const StoredRow& row) -> Status {
    if (!row.packed.empty()) return Status::Ok();
    ASSIGN_OR_RETURN(json::Value value, parser.Parse(row.json));
    ASSIGN_OR_RETURN(log::Event event, log::EventFromJson(std::move(value)));
    return upcast(std::move(event));
  });
}

Result<std::string> ReadFileEvents(const std::string& path, const TypeFilter& need, const EventSink& sink) {
  ASSIGN_OR_RETURN(std::unique_ptr<JsonlReader> reader, JsonlReader::Open(path));
  auto read = [need](std::string_view type) { return need(type) || BecomesAnotherType(type); };
  reader->set_type_filter(read);
  UpcastingSink upcast(reader->header().id, need, sink);
  while (true) {
    ASSIGN_OR_RETURN(std::optional<StorageRecord> record, reader->Next());
    if (!record) break;
    if (record->packed || !read(record->event.type)) continue;
    RETURN_IF_ERROR(upcast(std::move(record->event)).WithContext(path));
  }
  return reader->header().id;
}

}  // namespace retrace::store
