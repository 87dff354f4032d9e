// EventSource: the events of one session, from wherever it lives — a dsh
// JSONL log file (raw or zstd, read with dsh's rules, format/jsonl_reader.h)
// or a stored session — resolved once, for a consumer that needs only some
// event types (replay, check, audits). Events of other types are skipped
// unparsed, and packed chunk rows are never expanded. Events come upcast to
// the current payload shapes (engine/log/upcaster.h).
//
// A source can also be read in pieces, one per thread, by a consumer whose
// work can be split at turn boundaries (replay to cards): each piece gets its
// own sink, and the consumer joins the results in order. One piece code
// serves both kinds of source: a piece is a byte range of a raw log file or a
// seq range of a stored session, and every piece after the first starts at a
// turn/start event.
//
// What names a source (one rule for `retrace replay`, `retrace check` and the
// front ends): a path to an existing file is a log file, unless it is a
// SQLite database; a directory holds log files (`*.jsonl`, `*.jsonl.zstd`);
// anything else names a stored session.
#ifndef RETRACE_STORE_EVENT_SOURCE_H_
#define RETRACE_STORE_EVENT_SOURCE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/log/event.h>
#include <retrace/store/event_store.h>

namespace retrace::store {

using TypeFilter = std::function<bool(std::string_view type)>;
// What a reader of events needs: the types `types` admits (null: all), and
// whether it writes their values again (`texts`). Then each container that
// was written as retrace's writer writes it keeps its parsed text
// (json::Value::kept_text), so that writing it again is a copy; a reader that
// only looks into the values is spared those copies and their checks.
struct ReadNeeds {
  template <class F>
  ReadNeeds(F filter, bool write_again = false) : types(std::move(filter)), texts(write_again) {}  // NOLINT: a filter alone converts
  TypeFilter types;
  bool texts;
};
// Receives each event; it may take (move from) the event.
using EventSink = std::function<Status(log::Event&&)>;

// A piece of a source: the bytes [begin, end) of a raw log file (the first
// piece holds the header), or the events with seq in [begin, end) of a
// stored session.
struct Piece {
  int64_t begin = 0, end = 0;
};

// When a source is worth cutting. Pieces hold their consumer's results in
// memory until they are joined, so a larger source is read in one piece
// (with bounded memory); smaller pieces would cost more than they save.
// 64 MiB of log hold about 256k events.
struct PiecePolicy {
  int64_t min_piece_bytes = int64_t{1} << 20;
  int64_t max_file_bytes = int64_t{64} << 20;
  int64_t min_piece_events = 4096;
  int64_t max_session_events = int64_t{256} * 1024;
};

class EventSource {
 public:
  // A log file; its header is read now (so session_id() is known).
  static Result<EventSource> File(const std::string& path);
  // A session of `store`; NotFound when it holds none of that id.
  static Result<EventSource> Stored(std::shared_ptr<EventStore> store, const std::string& session_id);
  // What `retrace replay` names: a log file, or a session id of the database
  // `open_store` opens (called only then). A directory or a SQLite file is
  // InvalidArgument, a path to nothing NotFound, each saying what to name.
  static Result<EventSource> Resolve(const std::string& name,
                                     const std::function<Result<std::shared_ptr<EventStore>>()>& open_store);
  // What `retrace check` names: a log file; every log under a directory, in
  // path order; or every session of a retrace database, in id order. A log
  // whose header cannot be read is still a source (with no session id):
  // reading it gives the error, as a finding of its own.
  static Result<std::vector<EventSource>> Expand(const std::string& input);

  const std::string& session_id() const { return session_id_; }
  bool is_file() const { return store_ == nullptr; }
  // The log file, or the database holding the session.
  const std::string& path() const { return path_; }
  // "the path", or "the database path and session id": for messages.
  std::string label() const;
  // A log file's size in bytes (0 for a stored session).
  int64_t file_bytes() const { return file_bytes_; }
  // The log's size in bytes, for reserving output: a file's size, or a guess
  // for a stored session from its count of events (kGuessedEventBytes each).
  uint64_t LogBytes() const;
  // A stored event's guessed share of its log: about twice the mean of the
  // bench log's events (233 bytes). A guess too high costs address space only
  // (pages never written are never faulted in); one too low costs the copy of
  // the output's blocks into one string that a right guess saves.
  static constexpr uint64_t kGuessedEventBytes = 512;

  // Gives the events of the types `need` admits to `sink`, in order; an
  // error names the line or seq.
  Status Read(const ReadNeeds& need, const EventSink& sink) const;

  // Cuts the source into up to `max_pieces` pieces of about equal size. One
  // piece, the whole source, when it cannot or should not be cut: a zstd
  // file, a source outside `policy`, no turn start near a cut point.
  std::vector<Piece> PlanPieces(size_t max_pieces, const PiecePolicy& policy = {}) const;
  // Each piece's size in log bytes, for reserving output (guessed for a
  // stored session, as LogBytes).
  std::vector<uint64_t> PieceBytes(const std::vector<Piece>& pieces) const;
  // Reads each piece on its own thread (the first on the caller's; a stored
  // session's others over connections of their own), giving piece i's events
  // to sinks[i] in order, as Read gives them; `need.types` is called on every
  // piece's thread. True when the pieces together are exactly what Read
  // gives: every line parses, the seqs run on across each cut, no torn tail,
  // every sink succeeded, and no piece after the first holds an event an
  // upcaster rewrites (which may need earlier events). Otherwise false,
  // errors included: the sinks' results are then void, and the caller reads
  // the source with Read, whose verdicts and messages count.
  bool ReadPieces(const std::vector<Piece>& pieces, const ReadNeeds& need, const std::vector<EventSink>& sinks) const;

 private:
  EventSource(std::string path, std::string session_id, std::shared_ptr<EventStore> store, int64_t file_bytes)
      : path_(std::move(path)), session_id_(std::move(session_id)), store_(std::move(store)), file_bytes_(file_bytes) {}
  static EventSource FileOrUnreadable(const std::string& path);

  std::string path_;
  std::string session_id_;
  std::shared_ptr<EventStore> store_;  // null for a log file
  int64_t file_bytes_ = 0;
};

// A log file's name without `.jsonl` / `.jsonl.zstd`, or nullopt when it has
// neither extension.
std::optional<std::string> LogStem(std::string_view file_name);
// The log files under `dir`, recursively, in path order.
std::vector<std::string> LogFilesIn(const std::string& dir);

// Conveniences over EventSource: a log file's events (returns its session
// id), a stored session's events.
Result<std::string> ReadFileEvents(const std::string& path, const ReadNeeds& need, const EventSink& sink);
Status ReadStoredEvents(EventStore& store, std::string_view session_id, const ReadNeeds& need, const EventSink& sink);

}  // namespace retrace::store

#endif  // RETRACE_STORE_EVENT_SOURCE_H_
