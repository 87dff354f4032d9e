#include "format/jsonl_reader.h"

#include "engine/json/parser.h"
#include "engine/json/writer.h"
#include "engine/log/event_types.h"
#include "format/chunk_rows.h"

namespace retrace::format {

using json::Value;

Result<std::unique_ptr<JsonlReader>> JsonlReader::Open(const std::string& path) {
  ASSIGN_OR_RETURN(auto source, LineSource::Open(path));
  std::unique_ptr<JsonlReader> reader(new JsonlReader(path, std::move(source)));
  RETURN_IF_ERROR(reader->ReadHeader());
  return reader;
}

Result<std::unique_ptr<JsonlReader>> JsonlReader::OpenPiece(const std::string& path, uint64_t begin, uint64_t end) {
  ASSIGN_OR_RETURN(auto source, LineSource::OpenRange(path, begin, end));
  std::unique_ptr<JsonlReader> reader(new JsonlReader(path, std::move(source)));
  if (begin == 0) {
    RETURN_IF_ERROR(reader->ReadHeader());
  } else {
    reader->line_ = 1;  // as if a header preceded the piece: its first line is "line 1"
    reader->next_seq_ = -1;
  }
  return reader;
}

Status JsonlReader::Error(int64_t line, const std::string& what) const {
  return Status::Corruption(path_ + ":" + std::to_string(line) + ": " + what);
}

Status JsonlReader::ReadHeader() {
  auto first = source_->NextLine();
  if (!first.ok()) return first.status().WithContext(path_);
  std::string_view text = first->has_value() ? **first : std::string_view(source_->partial_tail());
  auto header = log::ParseHeaderLine(text);
  if (!header.ok()) {
    const Status& st = header.status();
    if (st.code() == Status::Code::kUnsupported) return Status::Unsupported(st.message() + " (raw log: " + path_ + ")");
    return Error(1, st.message());
  }
  if (!first->has_value()) return Error(1, "empty or header-less session log");
  header_ = std::move(header).value();
  header_text_ = std::string(text);
  return Status::Ok();
}

Status JsonlReader::Decode(std::string_view line, StorageRecord& rec, std::string& issue) {
  // dsh numbers event lines from 1 after the header; messages keep its numbering.
  auto at = [&] { return "line " + std::to_string(line_ - 1); };
  auto gap = [&](const std::string& got) {
    issue = "corrupt session log: seq gap in committed region at " + at() + " (expected " + std::to_string(next_seq_) +
            ", got " + got + ")";
    return Status::Corruption(issue);
  };
  rec.line = line_;
  rec.count = 1;
  rec.packed.reset();
  rec.text.clear();
  // Lines come from the LineSource, which pads them (line_source.h).
  auto parsed = parser_.ParseLine(line, need_ ? &need_ : nullptr, /*padded=*/true);
  if (!parsed.ok()) {
    issue = "corrupt session log: unparsable committed event at " + at() + " (" + parsed.status().message() + ")";
    return Status::Corruption(issue);
  }
  const Value* type = parsed->value.Find("type");  // (the general road's line)
  const bool typed = type != nullptr && type->is_string();
  if (parsed->event) {  // a plain event, its envelope read already
    if (next_seq_ < 0) next_seq_ = parsed->event->seq;
    if (parsed->event->seq != next_seq_) {
      Status st = gap(std::to_string(parsed->event->seq));
      return parsed->event->type == log::kTurnEnd ? Error(line_, issue) : st;
    }
    rec.event = std::move(*parsed->event);
    rec.first_seq = rec.event.seq;
  } else if (parsed->packed || (typed && IsChunkRowTag(type->as_string()))) {
    auto row = parsed->packed ? Result<PackedRow>(std::move(*parsed->packed)) : ParsePackedRow(parsed->value);
    if (!row.ok()) {
      issue = "corrupt session log: unparsable committed event at " + at() + " (" + row.status().message() + ")";
      return Status::Corruption(issue);
    }
    if (next_seq_ < 0) next_seq_ = row->seq0;
    if (row->seq0 != next_seq_) return gap(std::to_string(row->seq0));
    rec.first_seq = row->seq0;
    rec.count = row->count;
    rec.packed = std::move(row).value();
    rec.event = log::Event();
  } else {
    const Value* seq = parsed->value.Find("seq");
    if (next_seq_ < 0 && seq != nullptr && seq->is_safe_integer() && seq->as_number() >= 0) {
      next_seq_ = static_cast<int64_t>(seq->as_number());
    }
    if (seq == nullptr || !seq->is_number() || seq->as_number() != static_cast<double>(next_seq_)) {
      Status st = gap(seq != nullptr ? json::Serialize(*seq) : std::string("none"));
      // A gap on a turn/end line cannot be a torn tail.
      return typed && type->as_string() == log::kTurnEnd ? Error(line_, issue) : st;
    }
    auto event = log::EventFromJson(std::move(parsed->value));
    if (!event.ok()) return Error(line_, event.status().message());
    rec.event = std::move(event).value();
    rec.first_seq = rec.event.seq;
  }
  if (!need_) rec.text = line;
  return Status::Ok();
}

Status JsonlReader::ScanAfterIssue(int64_t issue_line, const std::string& issue, uint64_t issue_bytes) {
  uint64_t dropped = issue_bytes;
  while (true) {
    auto next = source_->NextLine();
    if (!next.ok()) return next.status().WithContext(path_);
    if (!next->has_value()) break;
    ++line_;
    const std::string_view line = **next;
    dropped += line.size() + 1;
    if (line.find("\"turn/end\"") == std::string_view::npos) continue;
    auto parsed = json::Parse(line);
    const Value* type = parsed.ok() ? parsed->Find("type") : nullptr;
    if (type != nullptr && type->is_string() && type->as_string() == log::kTurnEnd) {
      return Status::Corruption(path_ + ":" + std::to_string(issue_line) + ": " + issue + "; a later turn/end at " +
                                path_ + ":" + std::to_string(line_) + " shows this is not a torn tail");
    }
  }
  dropped += source_->partial_tail().size();
  torn_ = TornTail{issue_line, dropped, issue};
  return Status::Ok();
}

Result<std::optional<StorageRecord>> JsonlReader::Next() {
  std::optional<StorageRecord> rec(std::in_place);
  ASSIGN_OR_RETURN(const bool got, Next(*rec));
  if (!got) rec.reset();
  return rec;
}

Result<bool> JsonlReader::Next(StorageRecord& rec) {
  if (done_) return false;
  auto next = source_->NextLine();
  if (!next.ok()) return next.status().WithContext(path_);
  if (!next->has_value()) {
    done_ = true;
    if (!source_->partial_tail().empty()) {
      torn_ = TornTail{line_ + 1, source_->partial_tail().size(), "final line has no newline"};
    }
    return false;
  }
  ++line_;
  std::string issue;
  const Status decoded = Decode(**next, rec, issue);
  if (decoded.ok()) {
    next_seq_ += rec.count;
    return true;
  }
  if (issue.empty()) return decoded;  // a hard error
  done_ = true;
  RETURN_IF_ERROR(ScanAfterIssue(line_, issue, (*next)->size() + 1));
  return false;
}

}  // namespace retrace::format
