#include "store/event_source.h"

#include "store/fast_json_parser.h"
#include "store/jsonl_reader.h"

namespace retrace::store {

Status ReadStoredEvents(EventStore& store, std::string_view session_id, const TypeFilter& need, const EventSink& sink) {
  ASSIGN_OR_RETURN(int64_t key, store.SessionKey(session_id));
  FastJsonParser parser;
  // Chunk rows are left in the database: the type column says they are not needed.
  return store.ForEachRow(key, 0, std::nullopt, need, [&](const StoredRow& row) -> Status {
    if (!row.packed.empty()) return Status::Ok();
    ASSIGN_OR_RETURN(json::Value value, parser.Parse(row.json));
    ASSIGN_OR_RETURN(log::Event event, log::EventFromJson(std::move(value)));
    return sink(std::move(event));
  });
}

Result<std::string> ReadFileEvents(const std::string& path, const TypeFilter& need, const EventSink& sink) {
  ASSIGN_OR_RETURN(std::unique_ptr<JsonlReader> reader, JsonlReader::Open(path));
  reader->set_type_filter(need);
  while (true) {
    ASSIGN_OR_RETURN(std::optional<StorageRecord> record, reader->Next());
    if (!record) break;
    if (record->packed || !need(record->event.type)) continue;
    RETURN_IF_ERROR(sink(std::move(record->event)));
  }
  return reader->header().id;
}

}  // namespace retrace::store
