#include "store/event_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <system_error>
#include <thread>

#include "engine/log/event_types.h"
#include "engine/log/upcaster.h"
#include "store/event_id.h"
#include "format/fast_json_parser.h"
#include "format/jsonl_reader.h"
#include "store/sqlite.h"
#include "format/zstd_frames.h"

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

// Gives the events of the reader's records, to its end, that `read` admits
// (set as its type filter) to `upcast`. Returns the first record's seq, or -1
// when there was none.
Result<int64_t> ReadRecords(format::JsonlReader& reader, const std::string& path, const TypeFilter& read,
                            UpcastingSink& upcast) {
  reader.set_type_filter(read);
  int64_t first_seq = -1;
  while (true) {
    ASSIGN_OR_RETURN(std::optional<format::StorageRecord> record, reader.Next());
    if (!record) return first_seq;
    if (first_seq < 0) first_seq = record->first_seq;
    if (record->packed || !read(record->event.type)) continue;
    RETURN_IF_ERROR(upcast(std::move(record->event)).WithContext(path));
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

struct PieceOutcome {
  bool exact = false;      // read to its end with no issue, error or upcast
  int64_t first_seq = -1;  // of its first record (-1: none)
  int64_t next_seq = -1;
  std::string session_id;  // from the header: the first piece's; "" for the others
};

PieceOutcome ReadPiece(const std::string& path, const FilePiece& piece, const TypeFilter& need, const EventSink& sink) {
  PieceOutcome out;
  auto reader = format::JsonlReader::OpenPiece(path, piece.begin, piece.end);
  if (!reader.ok()) return out;
  out.session_id = (*reader)->header().id;  // "" after the first piece, where any upcast voids the read anyway
  UpcastingSink upcast(out.session_id, need, sink);
  auto first_seq = ReadRecords(**reader, path, ReadTypes(need), upcast);
  if (!first_seq.ok() || (piece.begin > 0 && upcast.upcast_any())) return out;
  // A piece ends at a line start, so even the last one has no partial line
  // unless the log has a torn tail (which ReadFileEvents reports).
  out.exact = !(*reader)->torn_tail().has_value();
  out.first_seq = *first_seq;
  out.next_seq = (*reader)->next_seq();
  return out;
}

// The events of the rows of `range`, parsed and upcast, to `upcast`. Chunk
// rows stay in the database: the type column says they are not needed.
Status ReadStoredRange(EventStore& store, int64_t key, SeqRange range, const TypeFilter& need, UpcastingSink& upcast) {
  format::FastJsonParser parser;
  return store.ForEachRow(key, {.from_seq = range.from, .to_seq = range.to, .need = ReadTypes(need)},
                          [&](const StoredRow& row) -> Status {
                            if (!row.packed.empty()) return Status::Ok();
                            ASSIGN_OR_RETURN(json::Value value, parser.Parse(row.json));
                            ASSIGN_OR_RETURN(log::Event event, log::EventFromJson(std::move(value)));
                            return upcast(std::move(event));
                          });
}

// One piece of a stored session after the first, over its own connection.
bool ReadStoredPiece(const std::string& db_path, std::string_view session_id, SeqRange range, const TypeFilter& need,
                     const EventSink& sink) {
  StoreOptions options;
  options.create = false;
  auto store = EventStore::Open(db_path, options);
  if (!store.ok()) return false;
  auto key = (*store)->SessionKey(session_id);
  if (!key.ok()) return false;
  UpcastingSink upcast(std::string(session_id), need, sink);
  return ReadStoredRange(**store, *key, range, need, upcast).ok() && !upcast.upcast_any();
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

}  // namespace

Status ReadStoredEvents(EventStore& store, std::string_view session_id, const TypeFilter& need, const EventSink& sink) {
  ASSIGN_OR_RETURN(int64_t key, store.SessionKey(session_id));
  UpcastingSink upcast(std::string(session_id), need, sink);
  return ReadStoredRange(store, key, {0, kMaxSeq + 1}, need, upcast);
}

Result<std::string> ReadFileEvents(const std::string& path, const TypeFilter& need, const EventSink& sink) {
  ASSIGN_OR_RETURN(std::unique_ptr<format::JsonlReader> reader, format::JsonlReader::Open(path));
  UpcastingSink upcast(reader->header().id, need, sink);
  RETURN_IF_ERROR(ReadRecords(*reader, path, ReadTypes(need), upcast).status());
  return reader->header().id;
}

std::vector<FilePiece> PlanFilePieces(const std::string& path, size_t max_pieces, uint64_t min_piece_bytes) {
  std::vector<FilePiece> pieces;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return pieces;
  const off_t end = lseek(fd, 0, SEEK_END);
  const uint64_t size = end > 0 ? static_cast<uint64_t>(end) : 0;
  char magic[4] = {};
  const bool raw = pread(fd, magic, sizeof magic, 0) == sizeof magic && !format::LooksLikeZstd(std::string_view(magic, 4));
  pieces.push_back({0, size});
  const size_t count = raw && min_piece_bytes ? std::min<uint64_t>(max_pieces, size / min_piece_bytes) : 1;
  for (size_t i = 1; i < count; ++i) {
    const uint64_t cut = NextTurnStart(fd, size / count * i, size);
    if (cut <= pieces.back().begin) continue;  // none, or the previous cut's line again
    pieces.back().end = cut;
    pieces.push_back({cut, size});
  }
  close(fd);
  return pieces;
}

std::vector<uint64_t> PieceSizes(const std::vector<FilePiece>& pieces) {
  std::vector<uint64_t> sizes;
  sizes.reserve(pieces.size());
  for (const FilePiece& p : pieces) sizes.push_back(p.end - p.begin);
  return sizes;
}

std::optional<std::string> ReadFilePieces(const std::string& path, const std::vector<FilePiece>& pieces,
                                          const TypeFilter& need, const std::vector<EventSink>& sinks) {
  if (pieces.empty() || pieces.size() != sinks.size() || pieces.front().begin != 0) return std::nullopt;
  std::vector<PieceOutcome> outcomes(pieces.size());
  const bool read = OnePerThread(pieces.size(), [&](size_t i) {
    outcomes[i] = ReadPiece(path, pieces[i], need, sinks[i]);
    return outcomes[i].exact;
  });
  if (!read) return std::nullopt;
  // Each cut lies at a line start, so a piece has at least one line; its seqs continue the previous piece's.
  for (size_t i = 1; i < outcomes.size(); ++i) {
    if (outcomes[i].first_seq != outcomes[i - 1].next_seq) return std::nullopt;
  }
  return outcomes[0].session_id;
}

Result<std::vector<SeqRange>> PlanStoredPieces(EventStore& store, std::string_view session_id, size_t max_pieces,
                                               int64_t min_piece_events) {
  ASSIGN_OR_RETURN(int64_t key, store.SessionKey(session_id));
  ASSIGN_OR_RETURN(int64_t events, store.NextSeq(key));
  std::vector<SeqRange> pieces{{0, events}};
  const int64_t count =
      min_piece_events > 0 ? std::min<int64_t>(static_cast<int64_t>(max_pieces), events / min_piece_events) : 1;
  for (int64_t i = 1; i < count; ++i) {
    ASSIGN_OR_RETURN(std::optional<int64_t> next_turn, store.FirstOfType(key, events / count * i, log::kTurnStart));
    if (!next_turn) break;
    const int64_t cut = *next_turn;
    if (cut <= pieces.back().from) continue;  // the previous cut's turn again
    pieces.back().to = cut;
    pieces.push_back({cut, events});
  }
  return pieces;
}

bool ReadStoredPieces(EventStore& store, std::string_view session_id, const std::vector<SeqRange>& pieces,
                      const TypeFilter& need, const std::vector<EventSink>& sinks) {
  if (pieces.empty() || pieces.size() != sinks.size()) return false;
  auto key = store.SessionKey(session_id);
  if (!key.ok()) return false;
  return OnePerThread(pieces.size(), [&](size_t i) {
    if (i > 0) return ReadStoredPiece(store.path(), session_id, pieces[i], need, sinks[i]);
    UpcastingSink upcast(std::string(session_id), need, sinks[0]);
    return ReadStoredRange(store, *key, pieces[0], need, upcast).ok();
  });
}

}  // namespace retrace::store
