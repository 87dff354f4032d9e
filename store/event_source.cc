#include "store/event_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <thread>

#include "engine/log/event_types.h"
#include "engine/log/upcaster.h"
#include "format/fast_json_parser.h"
#include "format/jsonl_reader.h"
#include "format/zstd_frames.h"
#include "store/event_id.h"

namespace retrace::store {
namespace {

// Types the upcasters turn into others: read them too, then filter on the new type.
bool BecomesAnotherType(std::string_view type) { return type == log::kSteeringMessage; }

// The types to read for a consumer that needs `need`.
TypeFilter ReadTypes(const TypeFilter& need) {
  return [need](std::string_view type) { return need(type) || BecomesAnotherType(type); };
}

// The consumer sees current shapes (engine/log/upcaster.h), of the types it needs.
class UpcastingSink {
 public:
  UpcastingSink(std::string session_id, const TypeFilter& need, const EventSink& sink)
      : upcaster_(std::move(session_id)), need_(need), sink_(sink) {}
  Status operator()(log::Event&& event) {
    auto changed = upcaster_.Upcast(event);
    RETURN_IF_ERROR(changed.status().WithContext("event at seq " + std::to_string(event.seq)));
    upcast_any_ = upcast_any_ || *changed;
    return need_(event.type) ? sink_(std::move(event)) : Status::Ok();
  }
  // Whether an upcaster rewrote an event (which may have drawn on earlier events).
  bool upcast_any() const { return upcast_any_; }

 private:
  log::Upcaster upcaster_;
  const TypeFilter& need_;
  const EventSink& sink_;
  bool upcast_any_ = false;
};

// Gives the events of the reader's records, to its end, of the types to read
// for `need` (set as the reader's type filter), to `upcast`. Returns the first
// record's seq, or -1 when there was none.
Result<int64_t> ReadRecords(format::JsonlReader& reader, const std::string& path, const ReadNeeds& need,
                            UpcastingSink& upcast) {
  const TypeFilter read = ReadTypes(need.types);
  reader.set_type_filter(read);
  reader.set_keep_texts(need.texts);
  int64_t first_seq = -1;
  format::StorageRecord record;
  while (true) {
    ASSIGN_OR_RETURN(const bool got, reader.Next(record));
    if (!got) return first_seq;
    if (first_seq < 0) first_seq = record.first_seq;
    if (record.packed || !read(record.event.type)) continue;
    RETURN_IF_ERROR(upcast(std::move(record.event)).WithContext(path));
  }
}

// Lines that may begin a piece.
constexpr std::string_view kCutLine = "\n{\"type\":\"turn/start\"";

// The first turn/start line at or after byte `from`, looking no further than
// a few megabytes; 0 when there is none.
uint64_t NextTurnStart(int fd, uint64_t from, uint64_t size) {
  constexpr size_t kWindow = 1 << 20;
  constexpr int kWindows = 4;
  std::string buf(kWindow + kCutLine.size(), '\0');
  for (int w = 0; w < kWindows && from < size; ++w) {
    const ssize_t n = pread(fd, buf.data(), buf.size(), static_cast<off_t>(from));
    if (n <= 0) return 0;
    const std::string_view window(buf.data(), static_cast<size_t>(n));
    if (const size_t at = window.find(kCutLine); at != std::string_view::npos) return from + at + 1;
    from += kWindow;  // windows overlap by the pattern's length
  }
  return 0;
}

// Byte cuts of a raw log file: each after the first at a turn/start line.
std::vector<Piece> PlanFileCuts(const std::string& path, size_t count) {
  std::vector<Piece> pieces;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return pieces;
  const off_t end = lseek(fd, 0, SEEK_END);
  const uint64_t size = end > 0 ? static_cast<uint64_t>(end) : 0;
  char magic[4] = {};
  const bool raw = pread(fd, magic, sizeof magic, 0) == sizeof magic && !format::LooksLikeZstd(std::string_view(magic, 4));
  pieces.push_back({0, static_cast<int64_t>(size)});
  for (size_t i = 1; raw && i < count; ++i) {
    const uint64_t cut = NextTurnStart(fd, size / count * i, size);
    if (static_cast<int64_t>(cut) <= pieces.back().begin) continue;  // none, or the previous cut's line again
    pieces.back().end = static_cast<int64_t>(cut);
    pieces.push_back({static_cast<int64_t>(cut), static_cast<int64_t>(size)});
  }
  close(fd);
  return pieces;
}

// Seq cuts of a stored session: each after the first at a turn/start event.
std::vector<Piece> PlanStoredCuts(EventStore& store, int64_t key, int64_t events, size_t count) {
  std::vector<Piece> pieces{{0, events}};
  for (size_t i = 1; i < count; ++i) {
    auto next_turn = store.FirstOfType(key, events / static_cast<int64_t>(count) * static_cast<int64_t>(i), log::kTurnStart);
    if (!next_turn.ok() || !*next_turn) break;
    const int64_t cut = **next_turn;
    if (cut <= pieces.back().begin) continue;  // the previous cut's turn again
    pieces.back().end = cut;
    pieces.push_back({cut, events});
  }
  return pieces;
}

// How one piece was read.
struct PieceOutcome {
  bool exact = false;      // read to its end with no issue, error or upcast
  int64_t first_seq = -1;  // of its first record (-1: none)
  int64_t next_seq = -1;   // after its last
  std::string session_id;  // from a log file's header: the first piece's; "" for the others
};

PieceOutcome ReadFilePiece(const std::string& path, const Piece& piece, const ReadNeeds& need, const EventSink& sink) {
  PieceOutcome out;
  auto reader = format::JsonlReader::OpenPiece(path, static_cast<uint64_t>(piece.begin), static_cast<uint64_t>(piece.end));
  if (!reader.ok()) return out;
  out.session_id = (*reader)->header().id;  // "" after the first piece, where any upcast voids the read anyway
  UpcastingSink upcast(out.session_id, need.types, sink);
  auto first_seq = ReadRecords(**reader, path, need, upcast);
  if (!first_seq.ok() || (piece.begin > 0 && upcast.upcast_any())) return out;
  // A piece ends at a line start, so even the last one has no partial line
  // unless the log has a torn tail (which Read reports).
  out.exact = !(*reader)->torn_tail().has_value();
  out.first_seq = *first_seq;
  out.next_seq = (*reader)->next_seq();
  return out;
}

// The events of the rows of `range`, parsed and upcast, to `upcast`. Chunk
// rows stay in the database: the type column says they are not needed.
Status ReadStoredRange(EventStore& store, int64_t key, const Piece& range, const ReadNeeds& need,
                       UpcastingSink& upcast) {
  format::FastJsonParser parser;
  parser.set_keep_texts(need.texts);
  return store.ForEachRow(key, {.from_seq = range.begin, .to_seq = range.end, .need = ReadTypes(need.types)},
                          [&](const StoredRow& row) -> Status {
                            if (!row.packed.empty()) return Status::Ok();
                            ASSIGN_OR_RETURN(log::Event event, parser.ParseEvent(row.json));
                            return upcast(std::move(event));
                          });
}

// A piece of a stored session: the first over `store`, the others over
// connections of their own to its database (an EventStore serves one thread).
PieceOutcome ReadStoredPiece(EventStore& store, const std::string& session_id, const Piece& piece,
                             const ReadNeeds& need, const EventSink& sink) {
  PieceOutcome out;
  std::unique_ptr<EventStore> own;
  EventStore* db = &store;
  if (piece.begin > 0) {
    StoreOptions options;
    options.create = false;
    auto opened = EventStore::Open(store.path(), options);
    if (!opened.ok()) return out;
    own = std::move(opened).value();
    db = own.get();
  }
  auto key = db->SessionKey(session_id);
  if (!key.ok()) return out;
  UpcastingSink upcast(session_id, need.types, sink);
  if (!ReadStoredRange(*db, *key, piece, need, upcast).ok() || (piece.begin > 0 && upcast.upcast_any())) return out;
  // The store has checked the seqs already: a piece holds exactly its range.
  out.exact = true;
  out.first_seq = piece.begin;
  out.next_seq = piece.end;
  return out;
}

// Runs piece(i) for every piece, each on its own thread but the first, which
// runs on the caller's; false unless every one returned true.
bool OnePerThread(size_t pieces, const std::function<bool(size_t)>& piece) {
  std::vector<char> done(pieces, 0);
  std::vector<std::thread> threads;
  bool started = true;
  for (size_t i = 1; started && i < pieces; ++i) {
    try {
      threads.emplace_back([&, i] {
        // An exception must not end the process from a worker: the piece just
        // stays unread (one thread, with less memory held, may yet succeed).
        try {
          done[i] = piece(i) ? 1 : 0;
        } catch (const std::exception&) {
        }
      });
    } catch (const std::system_error&) {  // no thread to be had: the caller reads on its own
      started = false;
    }
  }
  if (started) done[0] = piece(0) ? 1 : 0;
  for (std::thread& t : threads) t.join();
  return std::all_of(done.begin(), done.end(), [](char d) { return d != 0; });
}

bool IsSqliteFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char head[16] = {};
  f.read(head, sizeof head);
  return f.gcount() == 16 && std::string_view(head, 16) == std::string_view("SQLite format 3\0", 16);
}

// A name that is no file but looks like a path: said so, rather than looked
// up as a session id in a database that may not even exist.
bool LooksLikeAPath(const std::string& name) {
  return name.find('/') != std::string::npos || LogStem(name).has_value();
}

}  // namespace

std::optional<std::string> LogStem(std::string_view name) {
  for (std::string_view ext : {std::string_view(".jsonl"), std::string_view(".jsonl.zstd")}) {
    if (name.size() > ext.size() && name.ends_with(ext)) return std::string(name.substr(0, name.size() - ext.size()));
  }
  return std::nullopt;
}

std::vector<std::string> LogFilesIn(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> logs;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec) && LogStem(it->path().filename().string())) logs.push_back(it->path().string());
  }
  std::sort(logs.begin(), logs.end());
  return logs;
}

Result<EventSource> EventSource::File(const std::string& path) {
  ASSIGN_OR_RETURN(std::unique_ptr<format::JsonlReader> reader, format::JsonlReader::Open(path));
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  return EventSource(path, reader->header().id, nullptr, ec ? 0 : static_cast<int64_t>(bytes));
}

Result<EventSource> EventSource::Stored(std::shared_ptr<EventStore> store, const std::string& session_id) {
  RETURN_IF_ERROR(store->SessionKey(session_id).status());
  std::string path = store->path();
  return EventSource(std::move(path), session_id, std::move(store), 0);
}

Result<EventSource> EventSource::Resolve(const std::string& name,
                                         const std::function<Result<std::shared_ptr<EventStore>>()>& open_store) {
  std::error_code ec;
  if (std::filesystem::is_directory(name, ec)) {
    return Status::InvalidArgument(name + " is a directory: replay takes one log file or a stored session id");
  }
  if (std::filesystem::is_regular_file(name, ec)) {
    if (IsSqliteFile(name)) {
      return Status::InvalidArgument(name + " is a database: name one of its sessions, with --db " + name +
                                     " <session id>");
    }
    return File(name);
  }
  if (LooksLikeAPath(name)) return Status::NotFound("no such file: " + name + " (a log file, or a stored session id)");
  ASSIGN_OR_RETURN(std::shared_ptr<EventStore> store, open_store());
  return Stored(std::move(store), name);
}

Result<std::vector<EventSource>> EventSource::Expand(const std::string& input) {
  namespace fs = std::filesystem;
  std::vector<EventSource> out;
  std::error_code ec;
  if (fs::is_directory(input, ec)) {
    for (const std::string& log : LogFilesIn(input)) out.push_back(FileOrUnreadable(log));
    return out;
  }
  if (!fs::is_regular_file(input, ec)) return Status::NotFound("no such file or directory: " + input);
  if (!IsSqliteFile(input)) {
    out.push_back(FileOrUnreadable(input));
    return out;
  }
  StoreOptions options;
  options.create = false;
  ASSIGN_OR_RETURN(std::unique_ptr<EventStore> opened, EventStore::Open(input, options));
  std::shared_ptr<EventStore> store(std::move(opened));
  ASSIGN_OR_RETURN(std::vector<SessionSummary> sessions, store->ListSessions());
  std::sort(sessions.begin(), sessions.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  for (const SessionSummary& s : sessions) out.push_back(EventSource(input, s.id, store, 0));
  return out;
}

EventSource EventSource::FileOrUnreadable(const std::string& path) {
  auto file = File(path);
  return file.ok() ? std::move(file).value() : EventSource(path, "", nullptr, 0);
}

std::string EventSource::label() const { return is_file() ? path_ : path_ + " " + session_id_; }

Status EventSource::Read(const ReadNeeds& need, const EventSink& sink) const {
  if (!is_file()) return ReadStoredEvents(*store_, session_id_, need, sink);
  return ReadFileEvents(path_, need, sink).status();
}

std::vector<Piece> EventSource::PlanPieces(size_t max_pieces, const PiecePolicy& policy) const {
  if (is_file()) {
    const int64_t size = file_bytes_;
    const size_t count = size <= policy.max_file_bytes && policy.min_piece_bytes > 0
                             ? static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(max_pieces), size / policy.min_piece_bytes))
                             : 1;
    std::vector<Piece> pieces = PlanFileCuts(path_, count);
    return pieces.empty() ? std::vector<Piece>{{0, size}} : pieces;
  }
  auto key = store_->SessionKey(session_id_);
  auto events = key.ok() ? store_->NextSeq(*key) : Result<int64_t>(key.status());
  if (!events.ok()) return {{0, kMaxSeq + 1}};
  const size_t count = *events <= policy.max_session_events && policy.min_piece_events > 0
                           ? static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(max_pieces), *events / policy.min_piece_events))
                           : 1;
  return PlanStoredCuts(*store_, *key, *events, count);
}

uint64_t EventSource::LogBytes() const {
  if (is_file()) return static_cast<uint64_t>(file_bytes_);
  auto key = store_->SessionKey(session_id_);
  auto events = key.ok() ? store_->NextSeq(*key) : Result<int64_t>(key.status());
  return events.ok() ? static_cast<uint64_t>(*events) * kGuessedEventBytes : 0;
}

std::vector<uint64_t> EventSource::PieceBytes(const std::vector<Piece>& pieces) const {
  std::vector<uint64_t> sizes;
  sizes.reserve(pieces.size());
  const uint64_t unit = is_file() ? 1 : kGuessedEventBytes;
  for (const Piece& p : pieces) sizes.push_back(static_cast<uint64_t>(p.end - p.begin) * unit);
  return sizes;
}

bool EventSource::ReadPieces(const std::vector<Piece>& pieces, const ReadNeeds& need,
                             const std::vector<EventSink>& sinks) const {
  if (pieces.empty() || pieces.size() != sinks.size() || pieces.front().begin != 0) return false;
  std::vector<PieceOutcome> outcomes(pieces.size());
  const bool read = OnePerThread(pieces.size(), [&](size_t i) {
    outcomes[i] = is_file() ? ReadFilePiece(path_, pieces[i], need, sinks[i])
                            : ReadStoredPiece(*store_, session_id_, pieces[i], need, sinks[i]);
    return outcomes[i].exact;
  });
  if (!read) return false;
  // Each cut lies at a line start, so a piece has at least one line; its seqs continue the previous piece's.
  for (size_t i = 1; i < outcomes.size(); ++i) {
    if (outcomes[i].first_seq != outcomes[i - 1].next_seq) return false;
  }
  // A file rewritten since it was resolved is another session's log.
  return !is_file() || outcomes[0].session_id == session_id_;
}

Status ReadStoredEvents(EventStore& store, std::string_view session_id, const ReadNeeds& need, const EventSink& sink) {
  ASSIGN_OR_RETURN(int64_t key, store.SessionKey(session_id));
  UpcastingSink upcast(std::string(session_id), need.types, sink);
  return ReadStoredRange(store, key, {0, kMaxSeq + 1}, need, upcast);
}

Result<std::string> ReadFileEvents(const std::string& path, const ReadNeeds& need, const EventSink& sink) {
  ASSIGN_OR_RETURN(std::unique_ptr<format::JsonlReader> reader, format::JsonlReader::Open(path));
  UpcastingSink upcast(reader->header().id, need.types, sink);
  RETURN_IF_ERROR(ReadRecords(*reader, path, need, upcast).status());
  return reader->header().id;
}

}  // namespace retrace::store
