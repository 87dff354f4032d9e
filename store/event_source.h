// Events of one session for a consumer that needs only some event types
// (replay, audits): from a stored session, or straight from a dsh JSONL file
// (raw or zstd, read with dsh's rules, jsonl_reader.h). Events of other types
// are skipped unparsed, and packed chunk rows are never expanded. Events come
// upcast to the current payload shapes (engine/log/upcaster.h).
#ifndef RETRACE_STORE_EVENT_SOURCE_H_
#define RETRACE_STORE_EVENT_SOURCE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// A file read in pieces, one per thread: a consumer whose work can be split
// at turn boundaries (replay to cards) gives each piece its own sink and
// joins the results in order.
//
// The bytes [begin, end) of a raw log; the first piece holds the header.
struct FilePiece {
  uint64_t begin = 0, end = 0;
};
// Cuts a raw log into up to `max_pieces` pieces of about equal size, each
// after the first starting at a turn/start line (a line that begins with
// {"type":"turn/start"). One piece, the whole file, when it cannot be cut:
// a zstd file, pieces that would be under `min_piece_bytes`, no turn/start
// line within a few megabytes after a cut point, or an unreadable file.
std::vector<FilePiece> PlanFilePieces(const std::string& path, size_t max_pieces, uint64_t min_piece_bytes);
// Each piece's size in bytes.
std::vector<uint64_t> PieceSizes(const std::vector<FilePiece>& pieces);
// Reads each piece on its own thread (the first on the caller's), giving
// piece i's events to sinks[i] in order, as ReadFileEvents gives them;
// `need` is called on every piece's thread.
// Returns the session id when the pieces together are exactly what
// ReadFileEvents reads: every line parses, the seqs run on across each cut,
// no torn tail, every sink succeeded, and no piece after the first holds an
// event an upcaster rewrites (which may need earlier events). Otherwise
// nullopt, errors included: the sinks' results are then void, and the caller
// reads the file with ReadFileEvents, whose verdicts and messages count.
std::optional<std::string> ReadFilePieces(const std::string& path, const std::vector<FilePiece>& pieces,
                                          const TypeFilter& need, const std::vector<EventSink>& sinks);

// A stored session in pieces: the events with seq in [from, to), each piece
// after the first starting at a turn/start event.
struct SeqRange {
  int64_t from = 0, to = 0;
};
// Up to `max_pieces` pieces of about equal numbers of events; one (the whole
// session) when pieces would hold under `min_piece_events` events or no
// turn starts after a cut point. NotFound for an unknown session.
Result<std::vector<SeqRange>> PlanStoredPieces(EventStore& store, std::string_view session_id, size_t max_pieces,
                                               int64_t min_piece_events);
// Reads each piece on its own thread (the first on the caller's, over
// `store`; the others over connections of their own to its database), giving
// piece i's events to sinks[i] in order, as ReadStoredEvents gives them.
// True when every piece was read (the store has checked the seqs already)
// and no piece after the first holds an event an upcaster rewrites;
// otherwise the sinks' results are void, and the caller reads the session
// with ReadStoredEvents, whose errors count.
bool ReadStoredPieces(EventStore& store, std::string_view session_id, const std::vector<SeqRange>& pieces,
                      const TypeFilter& need, const std::vector<EventSink>& sinks);

}  // namespace retrace::store

#endif  // RETRACE_STORE_EVENT_SOURCE_H_
