// `retrace migrate --rewrite`: copies a store into a new database file with
// every event's payload upcast to the current shapes (engine/log/upcaster.h).
// Each session goes through the import path, so the copy is validated exactly
// as an import is; events that need no upcasting (and packed chunk rows) keep
// their stored text byte for byte. The caller verifies the copy by replay
// before trusting it (check/replay_check.h: CompareStoreCards).
#ifndef RETRACE_STORE_REWRITE_H_
#define RETRACE_STORE_REWRITE_H_

#include <cstdint>
#include <functional>
#include <string>

#include <retrace/engine/base/status.h>
#include <retrace/engine/log/event.h>
#include <retrace/store/event_store.h>

namespace retrace::store {

struct RewriteReport {
  int64_t sessions = 0;
  int64_t events = 0;
  int64_t upcast = 0;  // events whose payload changed shape
};

// A further rewrite of one session's events, after the payload upcast, in
// seq order: true when it changed the event (tool authors' upcasters:
// engine/replay/call_upcaster.h). Made afresh for each session.
using EventRewrite = std::function<Result<bool>(log::Event&)>;
using SessionRewrite = std::function<EventRewrite(const std::string& session_id)>;

// Writes the copy to `to`, which must not exist. `progress` gets (sessions
// done, sessions). `scratch_dir` holds one session's intermediate log at a time.
Result<RewriteReport> RewriteStore(EventStore& from, const std::string& to, const std::string& scratch_dir,
                                   const std::function<void(int64_t, int64_t)>& progress = {},
                                   const SessionRewrite& also = {});

}  // namespace retrace::store

#endif  // RETRACE_STORE_REWRITE_H_
