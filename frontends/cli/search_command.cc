// retrace search "text" [--session ID] [--type T]... [--surface S]... [--limit N] [--cursor C] [--json]
#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/format.h"
#include "engine/json/writer.h"
#include "service/search.h"

namespace retrace::cli {

std::function<bool()> Deadline(double seconds);  // query_command.cc

namespace {

struct Args {
  query::SearchRequest request;
  int64_t limit = query::kSearchDefaultLimit;
  std::string session, cursor;
  bool json = false;
};

json::Value HitJson(const query::SearchHit& h) {
  return json::Value::MakeObject({{"sessionId", h.session_id},
                                  {"seq", h.seq},
                                  {"type", h.type},
                                  {"time", h.time},
                                  {"surface", h.surface},
                                  {"matchCount", h.match_count},
                                  {"snippet", h.snippet}});
}

int Run(const Context& ctx, Args& a) {
  query::SearchRequest& r = a.request;
  r.limit = a.limit;
  if (!a.session.empty()) r.session = a.session;
  if (!a.cursor.empty()) r.cursor = a.cursor;
  auto page = service::SearchStored(ctx.catalog(), r, Deadline(60));
  if (!page.ok()) return ctx.Fail(page.status());
  if (a.json) {
    json::Value::Array items;
    for (const auto& h : page->hits) items.push_back(HitJson(h));
    json::Value out = json::Value::MakeObject({{"items", json::Value(std::move(items))}});
    if (page->next_cursor) out.Set("nextCursor", *page->next_cursor);
    std::fprintf(ctx.out, "%s\n", json::Serialize(out).c_str());
    return kExitOk;
  }
  if (page->hits.empty()) {
    std::fprintf(ctx.err, "no matches\n");
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows = {{"SESSION", "SEQ", "TYPE", "SURFACE", "MATCHES", "SNIPPET"}};
  for (const auto& h : page->hits) {
    rows.push_back({h.session_id, std::to_string(h.seq), h.type, h.surface, std::to_string(h.match_count), h.snippet});
  }
  std::fputs(AlignedTable(rows).c_str(), ctx.out);
  if (page->next_cursor) std::fprintf(ctx.err, "more: add --cursor %s\n", page->next_cursor->c_str());
  return kExitOk;
}

}  // namespace

Command SearchCommand() {
  return {"search", "Full-text search over stored sessions (a literal phrase, ranked as dsh ranks it)",
          [](Options sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.Add("text", a->request.query, "The phrase to find (FTS syntax such as OR, NEAR, * or quotes is plain text)")
                .Required();
            sub.Add("--session", a->session, "Search within this session (otherwise: the best hit of each session)");
            sub.Add("--type", a->request.types, "Only events of this type (repeatable), e.g. tool/result");
            sub.Add("--surface", a->request.surfaces, "Only events on this surface (repeatable)")
                .OneOf({"current", "shadowed", "log-only"});
            sub.Add("--limit", a->limit, "Hits per page, 1-100 (default 20)");
            sub.Add("--cursor", a->cursor, "Continue from a previous page (its request must be the same)");
            sub.Flag("--json", a->json, "Print {items: [...], nextCursor?} as JSON");
            sub.Footer(
                "Searchable: user and assistant messages (not reasoning), tool calls (name and arguments), tool\n"
                "results (text, error name and code), todo items, and how turns ended. Matching is by whole\n"
                "tokens, case-insensitive (\"AI\" does not match \"BRAID\"). Hits rank by how often the phrase\n"
                "occurs, then shorter documents, then newer events. A cursor stops working when new events\n"
                "are indexed (SESSION_QUERY_STALE_CURSOR, exit 4): search again.");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
