#include "query/exact_reads.h"

#include <algorithm>
#include <map>

#include "engine/json/parser.h"
#include "engine/log/event.h"
#include "engine/log/event_types.h"
#include "query/sql_query.h"

namespace retrace::query {
namespace {

using json::Value;

Status QueryError(const char* code, const std::string& message) {
  return Status::InvalidArgument(std::string("SESSION_QUERY_") + code + ": " + message);
}

Result<int64_t> Key(store::EventStore& store, const std::string& session_id) {
  auto key = store.SessionKey(session_id);
  if (key.status().code() == Status::Code::kNotFound) {
    return Status::NotFound("SESSION_QUERY_SESSION_NOT_FOUND: session \"" + session_id + "\" not found");
  }
  return key;
}

// The surface replacements of a session, from the read model.
struct Replacements {
  std::map<int64_t, int64_t> replaced_by;              // shadowed seq → the replace that shadowed it
  std::map<int64_t, std::vector<int64_t>> shadowed;    // replace seq → what it shadowed
};

Result<Replacements> LoadReplacements(store::EventStore& store, int64_t key) {
  Replacements r;
  ASSIGN_OR_RETURN(ReadOnlyDb db, ReadOnlyDb::Open(store.path()));
  const store::SqlValue params[] = {key};
  ASSIGN_OR_RETURN(QueryTable t, db.Run("SELECT seq, shadowed_seqs FROM replacements WHERE session = ?1", params));
  for (const std::vector<SqlCell>& row : t.rows) {
    const auto* seq_cell = std::get_if<int64_t>(&row[0]);
    const auto* seqs_text = std::get_if<std::string>(&row[1]);
    if (!seq_cell || !seqs_text) return Status::Corruption(store.path() + ": a replacements row is not (seq, seqs)");
    const int64_t seq = *seq_cell;
    ASSIGN_OR_RETURN(Value seqs, json::Parse(*seqs_text));
    if (!seqs.is_array()) return Status::Corruption(store.path() + ": replacements row at seq " + std::to_string(seq) + " holds no seq list");
    for (const Value& s : seqs.as_array()) {
      if (!s.is_safe_integer()) {
        return Status::Corruption(store.path() + ": replacements row at seq " + std::to_string(seq) +
                                  " holds a seq that is not an integer");
      }
      const auto shadowed = static_cast<int64_t>(s.as_number());
      r.replaced_by[shadowed] = seq;
      r.shadowed[seq].push_back(shadowed);
    }
  }
  return r;
}

Result<log::Event> EventAt(store::EventStore& store, int64_t key, const std::string& session_id, int64_t seq) {
  auto text = store.EventText(key, seq);
  if (text.status().code() == Status::Code::kNotFound) {
    return Status::NotFound("SESSION_QUERY_EVENT_NOT_FOUND: session \"" + session_id + "\" has no event at seq " +
                            std::to_string(seq));
  }
  if (!text.ok()) return text.status();
  return log::ParseEvent(*text);
}

Value Record(const std::string& session_id, const log::Event& e, const Replacements& r) {
  const char* surface = r.replaced_by.count(e.seq) ? "shadowed" : e.surface_op ? "current" : "log-only";
  return Value::MakeObject(
      {{"sessionId", session_id}, {"seq", e.seq}, {"type", e.type}, {"time", e.time}, {"surface", surface}});
}

Value Seqs(const std::vector<int64_t>& seqs) {
  Value::Array a;
  for (int64_t s : seqs) a.emplace_back(s);
  return Value(std::move(a));
}

// The in-memory SessionHeader: the header line without its storage tag.
Result<Value> Header(store::EventStore& store, const std::string& session_id) {
  ASSIGN_OR_RETURN(std::string text, store.HeaderText(session_id));
  ASSIGN_OR_RETURN(Value line, json::Parse(text));
  Value header = Value::MakeObject();
  for (auto& [key, value] : line.as_object()) {
    if (key != "type") header.as_object().emplace_back(key, std::move(value));
  }
  return header;
}

}  // namespace

Result<Value> ReadEventWindow(store::EventStore& store, const std::string& session_id, int64_t seq, int64_t before,
                              int64_t after) {
  ASSIGN_OR_RETURN(int64_t key, Key(store, session_id));
  for (int64_t w : {before, after}) {
    if (w < 0 || w > kReadWindowMax) {
      return QueryError("INVALID_WINDOW", "before and after must be integers between 0 and " + std::to_string(kReadWindowMax));
    }
  }
  ASSIGN_OR_RETURN(log::Event target, EventAt(store, key, session_id, seq));  // (checks the seq exists)
  ASSIGN_OR_RETURN(int64_t next, store.NextSeq(key));
  const int64_t start = std::max<int64_t>(0, seq - before), end = std::min<int64_t>(next - 1, seq + after);
  Value::Array events;
  Value target_json;
  for (int64_t s = start; s <= end; ++s) {
    ASSIGN_OR_RETURN(std::string text, store.EventText(key, s));
    ASSIGN_OR_RETURN(Value v, json::Parse(text));
    if (s == seq) target_json = v;
    events.push_back(std::move(v));
  }
  ASSIGN_OR_RETURN(Value header, Header(store, session_id));
  return Value::MakeObject({{"session", std::move(header)},
                            {"target", std::move(target_json)},
                            {"events", Value(std::move(events))},
                            {"startSeq", start},
                            {"endSeq", end}});
}

Result<Value> TraceEvent(store::EventStore& store, const std::string& session_id, int64_t seq) {
  ASSIGN_OR_RETURN(int64_t key, Key(store, session_id));
  ASSIGN_OR_RETURN(log::Event target, EventAt(store, key, session_id, seq));
  ASSIGN_OR_RETURN(Replacements r, LoadReplacements(store, key));
  std::vector<int64_t> chain;
  for (auto it = r.replaced_by.find(seq); it != r.replaced_by.end(); it = r.replaced_by.find(it->second)) {
    chain.push_back(it->second);
  }
  // Later events citing the target. Stream deltas cite nothing, so their rows are never read.
  std::vector<int64_t> derived;
  RETURN_IF_ERROR(store.ForEachRow(
      key, {.from_seq = seq + 1, .need = [](std::string_view type) { return type != log::kAssistantChunk; }},
      [&](const store::StoredRow& row) -> Status {
        if (row.seq <= seq || row.json.find("\"sourceEventSeqs\"") == std::string_view::npos) return Status::Ok();
        ASSIGN_OR_RETURN(log::Event e, log::ParseEvent(row.json));
        if (e.source_event_seqs && std::count(e.source_event_seqs->begin(), e.source_event_seqs->end(), seq))
          derived.push_back(e.seq);
        return Status::Ok();
      }));
  ASSIGN_OR_RETURN(Value header, Header(store, session_id));
  Value out = Value::MakeObject({{"session", std::move(header)}, {"target", Record(session_id, target, r)}});
  if (!chain.empty()) out.Set("replacedBy", chain.front());
  out.Set("replacementChain", Seqs(chain));
  out.Set("replacedEventSeqs", Seqs(r.shadowed.count(seq) ? r.shadowed[seq] : std::vector<int64_t>{}));
  out.Set("sourceEventSeqs", Seqs(target.source_event_seqs.value_or(std::vector<int64_t>{})));
  out.Set("derivedEventSeqs", Seqs(derived));
  return out;
}

Result<Value> TraceLineage(store::EventStore& store, const std::string& session_id) {
  ASSIGN_OR_RETURN(std::vector<store::SessionSummary> sessions, store.ListSessions());
  std::map<std::string, const store::SessionSummary*> by_id;
  for (const store::SessionSummary& s : sessions) by_id[s.id] = &s;
  if (!by_id.count(session_id)) {
    return Status::NotFound("SESSION_QUERY_SESSION_NOT_FOUND: session \"" + session_id + "\" not found");
  }
  // dsh's SessionRecord; a stored session is persisted and never live here.
  std::map<std::string, Value> headers;
  for (const store::SessionSummary& s : sessions) {
    ASSIGN_OR_RETURN(headers[s.id], Header(store, s.id));
  }
  auto record = [&](const store::SessionSummary& s) {
    return Value::MakeObject({{"header", headers[s.id]}, {"live", false}, {"persisted", true}});
  };
  // Ancestors, nearest first, until a root or a parent that is not stored.
  Value::Array ancestors;
  std::optional<std::string> unresolved;
  std::vector<std::string> seen = {session_id};
  const store::SessionSummary* root = by_id[session_id];
  for (auto parent = root->parent_session; parent;) {
    if (std::find(seen.begin(), seen.end(), *parent) != seen.end()) {
      return QueryError("INVALID_LINEAGE", "session lineage contains a cycle at \"" + *parent + "\"");
    }
    seen.push_back(*parent);
    auto it = by_id.find(*parent);
    if (it == by_id.end()) {
      unresolved = *parent;
      break;
    }
    root = it->second;
    ancestors.push_back(record(*root));
    parent = root->parent_session;
  }
  // Descendants: children by creation time, then id, recursively.
  std::map<std::string, std::vector<const store::SessionSummary*>> children;
  for (const store::SessionSummary& s : sessions) {
    if (s.parent_session) children[*s.parent_session].push_back(&s);
  }
  for (auto& [parent, list] : children) {
    std::sort(list.begin(), list.end(), [](const store::SessionSummary* a, const store::SessionSummary* b) {
      return a->created_at != b->created_at ? a->created_at < b->created_at : a->id < b->id;
    });
  }
  std::function<Value(const std::string&, int)> descend = [&](const std::string& id, int depth) -> Value {
    Value::Array nodes;
    if (depth <= static_cast<int>(sessions.size())) {  // a cycle below cannot recurse forever
      for (const store::SessionSummary* child : children[id]) {
        nodes.push_back(Value::MakeObject({{"session", record(*child)}, {"descendants", descend(child->id, depth + 1)}}));
      }
    }
    return Value(std::move(nodes));
  };
  Value out = Value::MakeObject({{"target", record(*by_id[session_id])},
                                 {"ancestors", Value(std::move(ancestors))},
                                 {"descendants", descend(session_id, 0)},
                                 {"complete", !unresolved}});
  if (unresolved) {
    out.Set("unresolvedParentId", *unresolved);
  } else {
    out.Set("root", record(*root));
  }
  return out;
}

}  // namespace retrace::query
