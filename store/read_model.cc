#include "store/read_model.h"

#include <algorithm>

#include "engine/json/js_text.h"
#include "engine/json/lenient.h"
#include "engine/json/writer.h"
#include "engine/log/event_types.h"
#include "engine/log/tool_events.h"
#include "store/event_id.h"

namespace retrace::store {
namespace {

using json::Value;

SqlValue Text(const Value* v) { return v && v->is_string() ? SqlValue(v->as_string()) : SqlValue(); }
SqlValue Int(const Value* v) {
  return v && v->is_safe_integer() ? SqlValue(static_cast<int64_t>(v->as_number())) : SqlValue();
}
using json::Get;
using json::Str;

// --- dsh §10.2 text ----------------------------------------------------------

// joinText: parts trimmed, empty ones dropped, joined with '\n'.
std::string JoinText(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    const std::string_view t = json::JsTrim(part);
    if (t.empty()) continue;
    if (!out.empty()) out += '\n';
    out += t;
  }
  return out;
}

void BlockTexts(const Value& block, std::vector<std::string>& out) {
  const std::string type = Str(Get(&block, "type"));
  if (type == "text") {
    out.push_back(Str(Get(&block, "text")));
  } else if (type == "tool-call") {
    out.push_back(Str(Get(&block, "name")));
    out.push_back(Str(Get(&block, "arguments")));
  } else if (type == "tool-result") {
    const Value* inner = Get(&block, "content");
    if (inner && inner->is_array()) {
      for (const Value& b : inner->as_array()) BlockTexts(b, out);
    }
  }
}

std::string ContentText(const Value* content) {
  std::vector<std::string> parts;
  if (content && content->is_array()) {
    for (const Value& block : content->as_array()) BlockTexts(block, parts);
  }
  return JoinText(parts);
}

std::string TurnEndText(const Value* reason) {
  std::string kind = Str(Get(reason, "kind"));
  if (kind == "error") return JoinText({"error", Str(Get(Get(reason, "error"), "message"))});
  if (kind == "aborted" || kind == "max-tokens" || kind == "interrupted") return kind;
  return "";
}

std::string RawSearchText(const log::Event& e) {
  const Value& d = e.data;
  if (e.type == log::kUserMessage) return ContentText(Get(&d, "content"));
  if (e.type == log::kAssistantMessage) return ContentText(Get(Get(&d, "message"), "content"));
  if (e.type == log::kToolCall) return JoinText({Str(Get(&d, "name")), Str(Get(&d, "arguments"))});
  if (e.type == log::kToolResult) {
    const Value* error = Get(&d, "error");
    return JoinText({ContentText(Get(Get(&d, "message"), "content")), Str(Get(error, "name")),
                     Str(Get(error, "code"))});
  }
  if (e.type == log::kTodoWrite) {
    std::vector<std::string> parts;
    const Value* todos = Get(&d, "todos");
    if (todos && todos->is_array()) {
      for (const Value& todo : todos->as_array()) {
        parts.push_back(Str(Get(&todo, "status")));
        parts.push_back(Str(Get(&todo, "content")));
      }
    }
    return JoinText(parts);
  }
  if (e.type == log::kTurnEnd) return TurnEndText(Get(&d, "reason"));
  return "";
}

}  // namespace

std::string SanitizeSearchText(std::string text) {
  if (text.find('\0') == std::string::npos && text.find("\xEF\xB7") == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\0') {
      out += "\xEF\xBF\xBD";
    } else if (text.compare(i, 3, "\xEF\xB7\x90") == 0 || text.compare(i, 3, "\xEF\xB7\x91") == 0) {
      out += "\xEF\xBF\xBD";
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

namespace {

// --- per event type ------------------------------------------------------------

using Writes = std::vector<ReadModelWrite>;

void AssistantMessage(const log::Event& e, Writes& w) {
  const Value* turn = Get(&e.data, "turn");
  const Value* step = Get(&e.data, "step");
  const Value* content = Get(Get(&e.data, "message"), "content");
  if (content && content->is_array()) {
    for (const Value& block : content->as_array()) {
      if (Str(Get(&block, "type")) != "tool-call" || !Get(&block, "id")) continue;
      w.push_back({ReadModelOp::kRequestCall, {Text(Get(&block, "id")), Int(turn), Int(step), Text(Get(&block, "name")),
                                               Text(Get(&block, "arguments")), e.seq}});
    }
  }
  if (const Value* usage = Get(&e.data, "usage"); usage && usage->is_object()) {
    w.push_back({ReadModelOp::kMessageUsage,
                 {Int(turn), Int(step), Int(Get(usage, "inputTokens")), Int(Get(usage, "outputTokens"))}});
  }
}

// A call id or tool name: NULL when the event has none (a view reads it as "").
SqlValue IdText(std::string_view s) { return s.empty() ? SqlValue() : SqlValue(std::string(s)); }
SqlValue Int(const std::optional<int64_t>& v) { return v ? SqlValue(*v) : SqlValue(); }

void ToolResult(const log::ToolResultView& r, const log::Event& e, Writes& w) {
  const Value* name = Get(r.error, "name");
  const Value* code = Get(r.error, "code");
  std::optional<std::string> name_s, code_s;
  if (name && name->is_string()) name_s = name->as_string();
  if (code && code->is_string()) code_s = code->as_string();
  SqlValue error_text;
  if (r.is_error && r.content) error_text = ContentText(r.content);
  w.push_back({ReadModelOp::kSettleCall,
               {IdText(r.call_id), Int(r.turn), Int(r.step), e.seq, e.time, int64_t{r.is_error}, Text(name), Text(code),
                std::move(error_text), int64_t{r.meta != nullptr}, CallOutcome(r.is_error, name_s, code_s)}});
}

// A Code Mode sub-call: its start, or its settlement (isError and content,
// no error identity: the event does not log one).
void SubCall(const log::Event& e, Writes& w) {
  const Value* id = Get(&e.data, "subCallId");
  if (id == nullptr || !id->is_string()) return;
  const Value* args = Get(&e.data, "arguments");
  SqlValue arguments = args ? SqlValue(json::Serialize(*args)) : SqlValue();
  const Value* parent = Get(&e.data, "parentCallId");
  if (e.type == log::kToolCodeDispatchStart) {
    w.push_back({ReadModelOp::kStartSubCall,
                 {IdText(id->as_string()), Text(Get(&e.data, "name")), std::move(arguments), e.seq, e.time, Text(parent)}});
    return;
  }
  const Value* is_error = Get(&e.data, "isError");
  const bool failed = json::True(is_error);
  w.push_back({ReadModelOp::kSettleSubCall,
               {IdText(id->as_string()), Text(Get(&e.data, "name")), std::move(arguments), e.seq, e.time,
                int64_t{failed}, failed ? SqlValue(ContentText(Get(&e.data, "content"))) : SqlValue(), Text(parent),
                CallOutcome(failed, std::nullopt, std::nullopt)}});
}

void InboxSplice(const log::Event& e, Writes& w) {
  const Value* inserted = Get(&e.data, "inserted");
  if (!inserted || !inserted->is_array()) return;
  for (const Value& m : inserted->as_array()) {
    const Value* source = Get(&m, "source");
    if (Str(Get(source, "kind")) == "user" || !Get(&m, "id")) continue;
    w.push_back({ReadModelOp::kInboxInsert,
                 {Text(Get(&m, "id")), Text(Get(&e.data, "target")), Text(Get(source, "kind")),
                  Text(Get(source, "plugin")), Text(Get(source, "form")), Text(Get(source, "summary")), e.seq, e.time}});
  }
}

void UserMessage(const log::Event& e, Writes& w) {
  const Value* source = Get(&e.data, "source");
  const std::string kind = Str(Get(source, "kind"));
  const bool replaces = e.surface_op && e.surface_op->kind == log::SurfaceOp::Kind::kReplace;
  if (kind.empty() || kind == "user" || replaces || !Get(&e.data, "id")) return;
  w.push_back({ReadModelOp::kClaimInjection,
               {Text(Get(&e.data, "id")), Text(source ? Get(source, "kind") : nullptr), Text(Get(source, "plugin")),
                Text(Get(source, "form")), Text(Get(source, "summary")), e.seq, e.time}});
}

// The seqs a replace shadows: the run of current nodes from start to end.
std::vector<int64_t> Shadowed(const log::SurfaceOp& op, const log::SurfaceFold& before) {
  const std::vector<int64_t>& nodes = before.nodes();
  auto first = std::find(nodes.begin(), nodes.end(), op.start);
  auto last = std::find(first, nodes.end(), op.end);
  if (first == nodes.end() || last == nodes.end()) return {};
  return std::vector<int64_t>(first, last + 1);
}

void Replacement(const log::Event& e, const log::SurfaceFold& before, Writes& w) {
  const std::vector<int64_t> shadowed = Shadowed(*e.surface_op, before);
  Value::Array seqs;
  for (int64_t s : shadowed) seqs.emplace_back(s);
  const std::string kind = e.type == log::kUserMessage ? "compaction" : e.type == log::kToolResult ? "pruning" : "other";
  w.push_back({ReadModelOp::kReplacement,
               {e.seq, e.time, e.type, kind, e.surface_op->start, e.surface_op->end, json::Serialize(Value(std::move(seqs)))}});
  for (int64_t s : shadowed) w.push_back({ReadModelOp::kShadowDoc, {s}});
}

}  // namespace

std::string SearchText(const log::Event& event) { return SanitizeSearchText(RawSearchText(event)); }

std::string CallOutcome(bool is_error, const std::optional<std::string>& error_name,
                        const std::optional<std::string>& error_code) {
  if (error_code == "TOOL_NOT_STARTED") return "not-started";
  if (error_code == "TOOL_OUTCOME_UNKNOWN") return "outcome-unknown";
  if (error_name == "AbortError" || (error_code && error_code->rfind("ABORTED", 0) == 0)) return "aborted";
  if (!is_error) return "ok";
  // An error without an internal identity: a pre-execute refusal (contract
  // §5.2) or a tool's own plain-error check. dsh logs both alike.
  return error_name || error_code ? "error" : "plain-error";
}

std::vector<ReadModelWrite> DeriveReadModel(const log::Event& e, const log::SurfaceFold& before) {
  Writes w;
  const Value* turn = Get(&e.data, "turn");
  const Value* step = Get(&e.data, "step");
  if (e.type == log::kAssistantMessage) {
    AssistantMessage(e, w);
  } else if (const std::optional<log::ToolCallView> call = log::ReadToolCall(e)) {
    w.push_back({ReadModelOp::kStartCall,
                 {IdText(call->call_id), Int(turn), Int(step), IdText(call->name),
                  SqlValue(std::string(call->arguments)), e.seq, e.time}});
  } else if (e.type == log::kToolResult) {
    const std::optional<log::ToolResultView> result = log::ReadToolResult(e);
    if (result && result->append) ToolResult(*result, e, w);
  } else if (e.type == log::kTurnStart) {
    w.push_back({ReadModelOp::kStartTurn, {Int(turn), e.seq, e.time}});
  } else if (e.type == log::kTurnEnd) {
    const Value* reason = Get(&e.data, "reason");
    w.push_back({ReadModelOp::kEndTurn,
                 {Int(turn), e.seq, e.time, Text(Get(reason, "kind")), Text(Get(Get(reason, "error"), "message"))}});
  } else if (e.type == log::kStepStart || e.type == log::kStepEnd) {
    w.push_back({e.type == log::kStepStart ? ReadModelOp::kStartStep : ReadModelOp::kEndStep, {Int(turn), Int(step), e.seq, e.time}});
  } else if (e.type == log::kAssistantChunk) {
    const Value* chunk = Get(&e.data, "chunk");
    if (Str(Get(chunk, "type")) == "usage") {
      const Value* usage = Get(chunk, "usage");
      w.push_back({ReadModelOp::kChunkUsage,
                   {Int(turn), Int(step), Int(Get(usage, "inputTokens")), Int(Get(usage, "outputTokens"))}});
    }
  } else if (e.type == log::kAgentInboxSpliced) {
    InboxSplice(e, w);
  } else if (e.type == log::kUserMessage) {
    UserMessage(e, w);
  } else if (e.type == log::kLlmRetry) {
    w.push_back({ReadModelOp::kRetry, {Text(Get(&e.data, "retryId")), e.seq, e.time, Int(turn), Int(step),
                                       Text(Get(&e.data, "provider")), Int(Get(&e.data, "retry")),
                                       Int(Get(&e.data, "maxRetries")), Int(Get(&e.data, "delayMs")),
                                       Text(Get(Get(&e.data, "failure"), "message"))}});
  } else if (e.type == log::kToolCodeDispatchStart || e.type == log::kToolCodeDispatch) {
    SubCall(e, w);
  } else if (e.type == log::kLlmRetryStarted) {
    w.push_back({ReadModelOp::kRetryStarted, {Text(Get(&e.data, "retryId")), Int(Get(&e.data, "retry")), e.seq}});
  }
  if (e.surface_op && e.surface_op->kind == log::SurfaceOp::Kind::kReplace) Replacement(e, before, w);
  std::string text = SearchText(e);
  if (!text.empty()) {
    const int64_t length = json::CodePointLength(text);
    w.push_back({ReadModelOp::kSearchDoc,
                 {e.seq, e.type, e.time, std::string(e.surface_op ? "current" : "log-only"), length, std::move(text)}});
  }
  return w;
}

// --- applying -----------------------------------------------------------------

namespace {

// ?1 is the session key in every statement; the write's args follow from ?2.
// {doc_id} stands for the search document's key, (session ?1, seq ?2), which
// only event_id.h spells (KeyedSql).
const char* const kSql[] = {
    // kRequestCall: call_id, turn, step, tool_name, arguments, requested_seq
    "INSERT INTO tool_calls(session, call_id, turn, step, tool_name, arguments, requested_seq, outcome)"
    " VALUES(?1,?2,?3,?4,?5,?6,?7,'missing-result') ON CONFLICT(session, call_id) DO UPDATE SET"
    " requested_seq = excluded.requested_seq, tool_name = COALESCE(tool_name, excluded.tool_name),"
    " arguments = COALESCE(arguments, excluded.arguments), turn = COALESCE(turn, excluded.turn),"
    " step = COALESCE(step, excluded.step)",
    // kStartCall: call_id, turn, step, tool_name, arguments, call_seq, call_time
    "INSERT INTO tool_calls(session, call_id, turn, step, tool_name, arguments, call_seq, call_time, outcome)"
    " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,'missing-result') ON CONFLICT(session, call_id) DO UPDATE SET"
    " turn = excluded.turn, step = excluded.step, tool_name = excluded.tool_name, arguments = excluded.arguments,"
    " call_seq = excluded.call_seq, call_time = excluded.call_time",
    // kSettleCall: call_id, turn, step, result_seq, result_time, is_error, error_name, error_code, error_text, has_meta, outcome
    "INSERT INTO tool_calls(session, call_id, turn, step, result_seq, result_time, is_error, error_name, error_code,"
    " error_text, has_meta, outcome) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)"
    " ON CONFLICT(session, call_id) DO UPDATE SET turn = COALESCE(turn, excluded.turn),"
    " step = COALESCE(step, excluded.step), result_seq = excluded.result_seq, result_time = excluded.result_time,"
    " is_error = excluded.is_error, error_name = excluded.error_name, error_code = excluded.error_code,"
    " error_text = excluded.error_text, has_meta = excluded.has_meta, outcome = excluded.outcome",
    // kStartTurn: turn, seq, time
    "INSERT INTO turns(session, turn, start_seq, start_time) VALUES(?1,?2,?3,?4)"
    " ON CONFLICT(session, turn) DO UPDATE SET start_seq = excluded.start_seq, start_time = excluded.start_time",
    // kEndTurn: turn, seq, time, reason, error_text
    "INSERT INTO turns(session, turn, end_seq, end_time, reason, error_text) VALUES(?1,?2,?3,?4,?5,?6)"
    " ON CONFLICT(session, turn) DO UPDATE SET end_seq = excluded.end_seq, end_time = excluded.end_time,"
    " reason = excluded.reason, error_text = excluded.error_text",
    // kStartStep: turn, step, seq, time
    "INSERT INTO steps(session, turn, step, start_seq, start_time) VALUES(?1,?2,?3,?4,?5)"
    " ON CONFLICT(session, turn, step) DO UPDATE SET start_seq = excluded.start_seq, start_time = excluded.start_time",
    // kEndStep: turn, step, seq, time
    "INSERT INTO steps(session, turn, step, end_seq, end_time) VALUES(?1,?2,?3,?4,?5)"
    " ON CONFLICT(session, turn, step) DO UPDATE SET end_seq = excluded.end_seq, end_time = excluded.end_time",
    // kChunkUsage: turn, step, input, output (the step's last usage chunk wins)
    "INSERT INTO steps(session, turn, step, input_tokens, output_tokens, usage_source) VALUES(?1,?2,?3,?4,?5,'chunk')"
    " ON CONFLICT(session, turn, step) DO UPDATE SET input_tokens = excluded.input_tokens,"
    " output_tokens = excluded.output_tokens, usage_source = 'chunk'",
    // kMessageUsage: turn, step, input, output
    "INSERT INTO steps(session, turn, step, input_tokens, output_tokens, usage_source) VALUES(?1,?2,?3,?4,?5,'message')"
    " ON CONFLICT(session, turn, step) DO UPDATE SET input_tokens = excluded.input_tokens,"
    " output_tokens = excluded.output_tokens, usage_source = 'message' WHERE usage_source IS NOT 'chunk'",
    // kInboxInsert: message_id, target, source_kind, plugin, form, summary, seq, time
    "INSERT INTO injections(session, message_id, target, source_kind, plugin, form, summary, pending_seq, pending_time)"
    " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9) ON CONFLICT(session, message_id) DO UPDATE SET target = excluded.target,"
    " pending_seq = excluded.pending_seq, pending_time = excluded.pending_time",
    // kClaimInjection: message_id, source_kind, plugin, form, summary, seq, time
    "INSERT INTO injections(session, message_id, source_kind, plugin, form, summary, claimed_seq, claimed_time)"
    " VALUES(?1,?2,?3,?4,?5,?6,?7,?8) ON CONFLICT(session, message_id) DO UPDATE SET"
    " claimed_seq = COALESCE(claimed_seq, excluded.claimed_seq), claimed_time = COALESCE(claimed_time, excluded.claimed_time)",
    // kReplacement: seq, time, type, kind, start, end, shadowed
    "INSERT OR REPLACE INTO replacements(session, seq, time, type, kind, start_seq, end_seq, shadowed_seqs)"
    " VALUES(?1,?2,?3,?4,?5,?6,?7,?8)",
    // kShadowDoc: seq
    "UPDATE search_docs SET surface = 'shadowed' WHERE id = {doc_id}",
    // kRetry: retry_id, seq, time, turn, step, provider, retry, max_retries, delay_ms, failure
    "INSERT OR REPLACE INTO retries(session, retry_id, seq, time, turn, step, provider, retry, max_retries, delay_ms,"
    " failure) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
    // kRetryStarted: retry_id, retry, seq
    "UPDATE retries SET started_seq = ?4 WHERE session = ?1 AND retry_id = ?2 AND retry IS ?3",
    // kSearchDoc: seq, type, time, surface, codepoint_length, text
    "INSERT INTO search_docs(id, session, seq, type, time, surface, codepoint_length, text)"
    " VALUES({doc_id},?1,?2,?3,?4,?5,?6,?7)",
    // kStartSubCall: call_id, tool_name, arguments, call_seq, call_time, parent_call_id
    "INSERT INTO tool_calls(session, call_id, tool_name, arguments, call_seq, call_time, parent_call_id, outcome)"
    " VALUES(?1,?2,?3,?4,?5,?6,?7,'missing-result') ON CONFLICT(session, call_id) DO UPDATE SET"
    " tool_name = excluded.tool_name, arguments = excluded.arguments, call_seq = excluded.call_seq,"
    " call_time = excluded.call_time, parent_call_id = excluded.parent_call_id",
    // kSettleSubCall: call_id, tool_name, arguments, result_seq, result_time, is_error, error_text, parent_call_id, outcome
    "INSERT INTO tool_calls(session, call_id, tool_name, arguments, result_seq, result_time, is_error, error_text,"
    " parent_call_id, outcome) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10) ON CONFLICT(session, call_id) DO UPDATE SET"
    " result_seq = excluded.result_seq, result_time = excluded.result_time, is_error = excluded.is_error,"
    " error_text = excluded.error_text, outcome = excluded.outcome,"
    " tool_name = COALESCE(tool_name, excluded.tool_name), arguments = COALESCE(arguments, excluded.arguments),"
    " parent_call_id = excluded.parent_call_id",
};
static_assert(std::size(kSql) == static_cast<size_t>(ReadModelOp::kCount));

std::string KeyedSql(std::string_view sql) {
  std::string out(sql);
  constexpr std::string_view kDocId = "{doc_id}";
  if (const size_t at = out.find(kDocId); at != std::string::npos) out.replace(at, kDocId.size(), EventIdSql("?1", "?2"));
  return out;
}

void BindValue(Statement& st, int index, const SqlValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) {
    st.Bind(index, *i);
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    st.Bind(index, *s, /*stable=*/true);
  } else {
    st.BindNull(index);
  }
}

}  // namespace

Result<Statement*> ReadModelWriter::StatementFor(ReadModelOp op) {
  auto& slot = statements_[static_cast<size_t>(op)];
  if (!slot) {
    ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db_, KeyedSql(kSql[static_cast<size_t>(op)])));
    slot = std::move(st);
  }
  return &*slot;
}

Result<bool> ReadModelWriter::StoresSubCalls() {
  if (!stores_sub_calls_) {
    ASSIGN_OR_RETURN(int64_t n, db_.QueryInt("SELECT count(*) FROM pragma_table_info('tool_calls')"
                                             " WHERE name = 'parent_call_id'"));
    stores_sub_calls_ = n > 0;
  }
  return *stores_sub_calls_;
}

Status ReadModelWriter::Apply(int64_t session_key, std::span<const ReadModelWrite> writes) {
  for (const ReadModelWrite& w : writes) {
    if (w.op == ReadModelOp::kStartSubCall || w.op == ReadModelOp::kSettleSubCall) {
      ASSIGN_OR_RETURN(bool stored, StoresSubCalls());
      if (!stored) continue;
    }
    ASSIGN_OR_RETURN(Statement * st, StatementFor(w.op));
    st->Bind(1, session_key);
    for (size_t i = 0; i < w.args.size(); ++i) BindValue(*st, static_cast<int>(i + 2), w.args[i]);
    RETURN_IF_ERROR(st->Run());
  }
  return Status::Ok();
}

Status ClearReadModel(Db& db) {
  return db.Exec(
      "DELETE FROM tool_calls; DELETE FROM turns; DELETE FROM steps; DELETE FROM injections;"
      " DELETE FROM replacements; DELETE FROM retries; DELETE FROM search_docs; DELETE FROM search_progress;"
      " INSERT INTO search_fts(search_fts) VALUES('delete-all');");
}

namespace {

// Per session: the highest document id, and the highest already indexed.
std::string LagSql(const std::string& where) {
  return "SELECT s.id, (SELECT MAX(d.id) FROM search_docs d WHERE " + SessionRangeSql("d.id", "s.id") + ") AS top,"
         " COALESCE((SELECT p.indexed_through FROM search_progress p WHERE p.session = s.id), -1) AS done"
         " FROM sessions s WHERE " + where;
}
const std::string kBehind = LagSql("top > done");
const std::string kLagOf = LagSql("s.id = ?1 AND top > done");

// Indexes documents (done, top] of `session`.
Status IndexRange(Db& db, int64_t session, int64_t top, int64_t done) {
  ASSIGN_OR_RETURN(Statement index, Statement::Prepare(db,
      "INSERT INTO search_fts(rowid, text) SELECT id, text FROM search_docs WHERE id > ?1 AND id <= ?2 ORDER BY id"));
  ASSIGN_OR_RETURN(Statement progress, Statement::Prepare(db,
      "INSERT INTO search_progress(session, indexed_through) VALUES(?1, ?2)"
      " ON CONFLICT(session) DO UPDATE SET indexed_through = excluded.indexed_through"));
  RETURN_IF_ERROR(index.Bind(1, std::max(done, EventId(session, 0) - 1)).Bind(2, top).Run());
  return progress.Bind(1, session).Bind(2, top).Run();
}

}  // namespace

Result<bool> SearchIndexBehind(Db& db) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db, kBehind));
  return st.Step();
}

Result<std::vector<int64_t>> SessionsBehindInSearch(Db& db) {
  std::vector<int64_t> sessions;
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db, kBehind));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    sessions.push_back(st.Int(0));
  }
  return sessions;
}

Status CatchUpSessionSearchIndex(Db& db, int64_t session) {
  ASSIGN_OR_RETURN(Statement st, Statement::Prepare(db, kLagOf));
  ASSIGN_OR_RETURN(bool behind, st.Bind(1, session).Step());
  if (!behind) return Status::Ok();  // another process caught it up meanwhile
  return IndexRange(db, session, st.Int(1), st.Int(2));
}

Status CatchUpSearchIndex(Db& db) {
  ASSIGN_OR_RETURN(std::vector<int64_t> behind, SessionsBehindInSearch(db));
  for (int64_t session : behind) RETURN_IF_ERROR(CatchUpSessionSearchIndex(db, session));
  return Status::Ok();
}

}  // namespace retrace::store
