#include "store/rewrite.h"

#include <cstdio>
#include <filesystem>

#include "engine/log/upcaster.h"
#include "format/chunk_rows.h"
#include "format/fast_json_parser.h"
#include "store/importer.h"

namespace retrace::store {
namespace {

// One session as a dsh JSONL log with upcast payloads; counts the events it changed.
Status WriteUpcastLog(EventStore& from, const std::string& session_id, const std::string& path, RewriteReport& report,
                      const EventRewrite& also) {
  ASSIGN_OR_RETURN(std::string header, from.HeaderText(session_id));
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status::IoError("cannot write " + path);
  std::string out = header + "\n";
  log::Upcaster upcaster(session_id);
  format::FastJsonParser parser;
  Status st = from.ForEachStorageLine(session_id, [&](std::string_view line) -> Status {
    ASSIGN_OR_RETURN(format::FastJsonParser::Line parsed, parser.ParseLine(line, nullptr));
    const json::Value* type = parsed.value.Find("type");
    if (parsed.packed || (type && type->is_string() && format::IsChunkRowTag(type->as_string()))) {
      out.append(line).push_back('\n');  // stream deltas have one shape only
      return Status::Ok();
    }
    ASSIGN_OR_RETURN(log::Event e, parsed.event ? Result<log::Event>(std::move(*parsed.event))
                                                : log::EventFromJson(std::move(parsed.value)));
    ASSIGN_OR_RETURN(bool changed, upcaster.Upcast(e));
    if (also) {
      ASSIGN_OR_RETURN(bool rewritten, also(e));
      changed = changed || rewritten;
    }
    if (changed) {
      ++report.upcast;
      out += log::SerializeEvent(e);
    } else {
      out.append(line);
    }
    out.push_back('\n');
    if (out.size() > (1 << 20)) {
      if (std::fwrite(out.data(), 1, out.size(), f) != out.size()) return Status::IoError("cannot write " + path);
      out.clear();
    }
    return Status::Ok();
  });
  if (st.ok() && std::fwrite(out.data(), 1, out.size(), f) != out.size()) st = Status::IoError("cannot write " + path);
  if (std::fclose(f) != 0 && st.ok()) st = Status::IoError("cannot write " + path);
  return st.WithContext("session \"" + session_id + "\"");
}

}  // namespace

Result<RewriteReport> RewriteStore(EventStore& from, const std::string& to, const std::string& scratch_dir,
                                   const std::function<void(int64_t, int64_t)>& progress, const SessionRewrite& also) {
  std::error_code ec;
  if (std::filesystem::exists(to, ec)) return Status::AlreadyExists(to + " already exists; the rewrite writes a new file");
  ASSIGN_OR_RETURN(std::vector<SessionSummary> sessions, from.ListSessions());
  ASSIGN_OR_RETURN(std::unique_ptr<EventStore> copy, EventStore::Open(to));
  RewriteReport report;
  const std::string scratch = scratch_dir + "/rewrite-session.jsonl";
  for (const SessionSummary& s : sessions) {
    RETURN_IF_ERROR(WriteUpcastLog(from, s.id, scratch, report, also ? also(s.id) : EventRewrite()));
    auto imported = ImportJsonl(*copy, scratch);
    std::filesystem::remove(scratch, ec);
    if (!imported.ok()) return imported.status().WithContext("rewriting session \"" + s.id + "\"");
    // The copy remembers where the session first came from, not the scratch file.
    RETURN_IF_ERROR(copy->SetSource(s.id, s.source));
    ++report.sessions;
    report.events += s.events;
    if (progress) progress(report.sessions, static_cast<int64_t>(sessions.size()));
  }
  return report;
}

}  // namespace retrace::store
