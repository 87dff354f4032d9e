// Events of one session for a consumer that needs only some event types
// (replay, audits): from a stored session, or straight from a dsh JSONL file
// (raw or zstd, read with dsh's rules, jsonl_reader.h). Events of other types
// are skipped unparsed, and packed chunk rows are never expanded. Events come
// upcast to the current payload shapes (engine/log/upcaster.h).
#ifndef RETRACE_STORE_EVENT_SOURCE_H_
#define RETRACE_STORE_EVENT_SOURCE_H_

#include <functional>
#include <string>
#include <string_view>

#include "engine/base/status.h"
#include "engine/log/event.h"
#include "store/event_store.h"

namespace retrace::store {

using TypeFilter = std::function<bool(std::string_view type)>;
// Receives each event; it may take (move from) the event.
using EventSink = std::function<Status(log::Event&&)>;

Status ReadStoredEvents(EventStore& store, std::string_view session_id, const TypeFilter& need, const EventSink& sink);

// Returns the session id from the file's header.
Result<std::string> ReadFileEvents(const std::string& path, const TypeFilter& need, const EventSink& sink);

}  // namespace retrace::store

#endif  // RETRACE_STORE_EVENT_SOURCE_H_
