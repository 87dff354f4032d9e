// FastJsonParser: JSON text → json::Value through simdjson's validating DOM
// parser (several times faster than json::Parse), for reading logs and stored
// events.
//
// simdjson refuses a few inputs json::Parse accepts (lone surrogate escapes,
// integers beyond 64 bits, nesting deeper than 1024); those fall back to
// json::Parse, whose verdict and error messages are authoritative. The
// resulting Value is the same as json::Parse's (checked by a differential
// test), except that "-0" reads as 0: both compare equal and serialize as "0".
// Not thread-safe: one parser per thread.
#ifndef RETRACE_FORMAT_FAST_JSON_PARSER_H_
#define RETRACE_FORMAT_FAST_JSON_PARSER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>
#include <retrace/engine/log/event.h>
#include <retrace/format/chunk_rows.h>

namespace retrace::format {

class FastJsonParser {
 public:
  FastJsonParser();
  ~FastJsonParser();
  FastJsonParser(const FastJsonParser&) = delete;
  FastJsonParser& operator=(const FastJsonParser&) = delete;

  // `padded`: at least 64 readable bytes (simdjson's padding) follow `text`
  // in memory, as they do after a LineSource line, so it is parsed where it is
  // instead of copied first.
  Result<json::Value> Parse(std::string_view text, bool padded = false);

  // A log line, for JsonlReader, read straight from the parse when it is the
  // common case, so that no envelope value is built only to be taken apart:
  //  - `event`: a plain event whose keys are distinct and among type, seq,
  //    time, data, sourceEventSeqs (integers), surfaceOp ("append") and
  //    ignorable (true), with an integer seq and time and a type that is not a
  //    chunk row's. Its data is converted only when `need` admits its type (a
  //    null `need` admits every type); else it is null.
  //  - `packed`: a chunk row that passes every ParsePackedRow check.
  //  - else `value`, the line as Parse gives it, for log::EventFromJson and
  //    ParsePackedRow, whose verdicts and messages count. When `need` refuses
  //    the line's string "type", its "data" is null for a plain event, and
  //    for a chunk row keeps its shape with every string blanked to "" (all
  //    the row checks look at): contents that are not needed are never copied.
  // What is read straight is what those two would make of the line (a
  // differential test and the json fuzz target hold them together).
  struct Line {
    std::optional<log::Event> event;
    std::optional<PackedRow> packed;
    json::Value value;  // when there is neither
  };
  Result<Line> ParseLine(std::string_view text, const std::function<bool(std::string_view)>* need, bool padded = false);

  // With `keep`, a plain event's data read straight keeps the text of each
  // container of at least 256 bytes that is written as json::AppendSerialized
  // writes it (json::Value::kept_text), and such an array is left unbuilt
  // until its items are read (json::Value::UnbuiltArray): for a reader that
  // writes the values again. Off by default: the checks and copies cost a
  // reader that does not.
  void set_keep_texts(bool keep);

  // One event's text (a stored event): read straight when it is the common
  // case, else log::EventFromJson of Parse's value (a text that does not
  // parse gives Parse's error).
  Result<log::Event> ParseEvent(std::string_view text, bool padded = false);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace retrace::format

#endif  // RETRACE_FORMAT_FAST_JSON_PARSER_H_
