// Legacy import (dsh-session-log §9.3): older dsh event shapes are
// upgraded to the current v0 shapes on every read. Stored text is never
// rewritten; this is a pure function of the event (and, for a replacing
// tool/result, of its replace target).
#ifndef RETRACE_ENGINE_LOG_LEGACY_IMPORT_H_
#define RETRACE_ENGINE_LOG_LEGACY_IMPORT_H_

#include <functional>
#include <string>
#include <string_view>

#include <retrace/engine/base/status.h>
#include <retrace/engine/log/event.h>
#include <retrace/engine/log/surface_fold.h>

namespace retrace::log {

// True when `event` has a legacy (or refused retired) shape, i.e. when
// ImportLegacy would change or refuse it. Cheap; never copies.
bool IsLegacyShape(const Event& event);

// The message id of the current tool/result node at a seq (a replacing
// pre-identity tool/result inherits it), or nullptr.
using MessageIdLookup = std::function<const std::string*(int64_t seq)>;

// Upgrades `event` in place when it has a legacy shape; returns whether it
// changed. Refuses `request/header-delta`, `mode/set`, `request/header` with
// reason 'fallback' and malformed pre-react-loop turn events.
Result<bool> ImportLegacy(Event& event, std::string_view session_id, const MessageIdLookup& replaced_id);

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_LEGACY_IMPORT_H_
