// The indexed columns extracted from an event for the events table.
#ifndef RETRACE_STORE_EVENT_COLUMNS_H_
#define RETRACE_STORE_EVENT_COLUMNS_H_

#include <cstdint>
#include <optional>
#include <string>

#include <retrace/engine/log/event.h>

namespace retrace::store {

struct EventColumns {
  std::optional<int64_t> turn;
  std::optional<int64_t> step;
  std::optional<std::string> call_id;    // tool/call callId; tool/result message.source.callId
  std::optional<std::string> tool_name;  // tool/call name
  std::optional<int64_t> is_error;       // tool/result: 1 or 0
  std::optional<std::string> surface;    // "append" | "replace"
};

EventColumns ExtractColumns(const log::Event& event);

}  // namespace retrace::store

#endif  // RETRACE_STORE_EVENT_COLUMNS_H_
