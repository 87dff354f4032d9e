// retrace events <session> [--type T] [--from SEQ] [--json]
#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/format.h"
#include "engine/json/lenient.h"
#include "engine/json/parser.h"
#include "engine/log/event_types.h"
#include "service/inspect.h"

namespace retrace::cli {
namespace {

struct Args {
  std::string session;
  std::string type;
  int64_t from = 0;
  bool as_json = false;
};


// A one-line human summary of what an event says.
std::string Detail(const store::StoredEvent& e) {
  if (e.type == log::kAssistantChunk) return "";  // deltas: see --json
  auto v = json::Parse(e.json);
  if (!v.ok()) return "";
  const json::Value* data = v->Find("data");
  if (data == nullptr) return "";
  if (e.type == log::kToolCall) return json::Str(data->Find("name")) + " " + json::Str(data->Find("callId"));
  if (e.type == log::kToolResult) {
    const json::Value* m = data->Find("message");
    const json::Value* src = m != nullptr ? m->Find("source") : nullptr;
    const json::Value* err = data->Find("error");
    std::string d = json::Str(src != nullptr ? src->Find("callId") : nullptr);
    if (err != nullptr) return d + " error " + json::Str(err->Find("code"));
    // A failure without an identity (a plain thrown error, a denial) still says it failed.
    const json::Value* content = m != nullptr ? m->Find("content") : nullptr;
    if (content != nullptr && content->is_array() && !content->as_array().empty()) {
      const json::Value* is_error = content->as_array()[0].Find("isError");
      if (json::True(is_error)) d += " error";
    }
    return d;
  }
  if (e.type == log::kToolRevision) {
    return json::Str(data->Find("tool")) + " revision " + json::Num(data->Find("revision"));
  }
  if (e.type == log::kTurnStart || e.type == log::kTurnEnd || e.type == log::kStepStart || e.type == log::kStepEnd) {
    std::string d;
    if (const json::Value* t = data->Find("turn"); t != nullptr && t->is_number()) d += "turn " + json::Num(t);
    if (const json::Value* s = data->Find("step"); s != nullptr && s->is_number()) d += " step " + json::Num(s);
    if (const json::Value* r = data->Find("reason"); r != nullptr) d += " " + json::Str(r->Find("kind"));
    return d;
  }
  return "";
}

int Run(const Context& ctx, const Args& a) {
  store::EventFilter filter{a.from, a.type.empty() ? std::nullopt : std::optional<std::string>(a.type)};
  std::vector<std::vector<std::string>> rows = {{"SEQ", "TIME", "TYPE", "DETAIL"}};
  Status st = service::ForEachStoredEvent(ctx.catalog(), a.session, filter, [&](const store::StoredEvent& e) {
    if (a.as_json) {
      std::fwrite(e.json.data(), 1, e.json.size(), ctx.out);
      std::fputc('\n', ctx.out);
    } else {
      rows.push_back({std::to_string(e.seq), IsoTime(e.time), e.type, Detail(e)});
    }
    return Status::Ok();
  });
  if (!st.ok()) return ctx.Fail(st);
  if (!a.as_json) std::fputs(AlignedTable(rows).c_str(), ctx.out);
  return kExitOk;
}

}  // namespace

Command EventsCommand() {
  return {"events", "List a session's events (one line each, or the verbatim JSON with --json)",
          [](Options sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.Add("session", a->session, "Session id").Required();
            sub.Add("--type", a->type, "Only events of this type (e.g. tool/call)");
            sub.Add("--from", a->from, "Start at this seq (default 0)");
            sub.Flag("--json", a->as_json, "Print each event's stored JSON text, one per line (JSONL)");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
