// JsonlReader: reads a dsh JSONL session log (raw or zstd) with dsh's read
// rules (dsh-session-log §8.1), one storage record at a time.
//
//  1. Line 1 must be a session header (format version refusal first).
//  2. Each complete line is parsed (packed chunk rows decoded) while the
//     decoded seqs continue 0, 1, 2, ...
//  3. The first unparsable line, malformed row or seq gap is an *issue*.
//     After it, later lines are only inspected for a turn/end: if one exists
//     the log is corrupt (refused, naming both lines); otherwise everything
//     from the issue on is a torn tail and is dropped.
//  4. A final line without '\n' is a torn tail.
// Events are returned with their envelope structure read (event.h); the
// type-dependent and session-level checks are the caller's (SessionChecker).
#ifndef RETRACE_FORMAT_JSONL_READER_H_
#define RETRACE_FORMAT_JSONL_READER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/log/event_log.h>
#include <retrace/engine/log/session_header.h>
#include <retrace/format/chunk_rows.h>
#include <retrace/format/fast_json_parser.h>
#include <retrace/format/line_source.h>

namespace retrace::format {

// One storage line after the header: a plain event or a packed chunk row.
struct StorageRecord {
  std::string text;                // the verbatim line, without '\n'
  int64_t line = 0;                // 1-based line number in the logical file
  int64_t first_seq = 0;           // the event's seq, or the row's first member seq
  int64_t count = 1;               // events in this line
  std::optional<PackedRow> packed; // set for a packed chunk row (members not expanded)
  log::Event event;                // the plain event (envelope structure read)
};

// What was dropped after the committed prefix.
struct TornTail {
  int64_t line = 0;        // first dropped line
  uint64_t bytes = 0;      // logical bytes dropped
  std::string reason;      // e.g. "final line has no newline"
};

class JsonlReader {
 public:
  // Opens `path` and reads its header line.
  static Result<std::unique_ptr<JsonlReader>> Open(const std::string& path);
  // One piece of a raw log: its bytes [begin, end), which begin and end at
  // line starts (event_source.h, EventSource::ReadPieces). The piece at byte 0 reads
  // the header; a later one has none, its seqs continue from its first
  // line's, and the lines its messages name are counted from its start.
  static Result<std::unique_ptr<JsonlReader>> OpenPiece(const std::string& path, uint64_t begin, uint64_t end);

  const log::SessionHeader& header() const { return header_; }
  const std::string& header_text() const { return header_text_; }
  bool compressed() const { return source_->compressed(); }
  const LineSource& source() const { return *source_; }

  // The next committed record, or nullopt at the end of the committed region.
  // Errors name the file and line.
  Result<std::optional<StorageRecord>> Next();
  // The same into `rec`, every field of which it overwrites: false at the end.
  // A reader of many records reuses one, rather than moving each out.
  Result<bool> Next(StorageRecord& rec);

  // Reads only events whose type passes `need` in full: the others are still
  // checked (read rules, seq continuity, packed-row shape) but come back with
  // blanked strings in `data`. No record keeps its text: replay-style
  // consumers read the parsed event, and copying the lines would cost more.
  void set_type_filter(std::function<bool(std::string_view)> need) { need_ = std::move(need); }
  // Whether the events' containers keep their parsed text (FastJsonParser::set_keep_texts).
  void set_keep_texts(bool keep) { parser_.set_keep_texts(keep); }

  // After Next() returned nullopt: the dropped tail, if any.
  const std::optional<TornTail>& torn_tail() const { return torn_; }
  // The seq the next record must have (for a piece: -1 before its first record).
  int64_t next_seq() const { return next_seq_; }

 private:
  JsonlReader(std::string path, std::unique_ptr<LineSource> source)
      : path_(std::move(path)), source_(std::move(source)) {}
  Status ReadHeader();
  // Parses one line; a non-OK result with `issue` set is a scan issue, other
  // errors are hard failures.
  // `line` is one of source_'s lines, which are padded (line_source.h).
  Status Decode(std::string_view line, StorageRecord& rec, std::string& issue);
  // Scans the rest of the file after an issue at `line`.
  Status ScanAfterIssue(int64_t issue_line, const std::string& issue, uint64_t issue_bytes);
  Status Error(int64_t line, const std::string& what) const;

  std::string path_;
  std::unique_ptr<LineSource> source_;
  FastJsonParser parser_;
  std::function<bool(std::string_view)> need_;
  log::SessionHeader header_;
  std::string header_text_;
  int64_t line_ = 1;
  int64_t next_seq_ = 0;  // -1: a piece's first record sets it
  bool done_ = false;
  std::optional<TornTail> torn_;
};

}  // namespace retrace::format

#endif  // RETRACE_FORMAT_JSONL_READER_H_
