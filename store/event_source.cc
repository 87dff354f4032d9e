#include "store/event_source.h"

#include "store/jsonl_reader.h"

namespace retrace::store {

Status ReadStoredEvents(EventStore& store, std::string_view session_id, const TypeFilter& need, const EventSink& sink) {
  ASSIGN_OR_RETURN(int64_t key, store.SessionKey(session_id));
  return store.ForEachRow(key, 0, std::nullopt, [&](const StoredRow& row) -> Status {
    if (!row.packed.empty() || !need(row.type)) return Status::Ok();
    ASSIGN_OR_RETURN(log::Event event, log::ParseEvent(row.json));
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
