// retrace trace <session> <seq> [--json]
#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "engine/json/writer.h"
#include "service/inspect.h"

namespace retrace::cli {
namespace {

struct Args {
  std::string session;
  int64_t seq = 0;
  bool json = false;
};

std::string List(const json::Value& v) {
  if (v.as_array().empty()) return "none";
  std::string out;
  for (const json::Value& s : v.as_array()) out += (out.empty() ? "" : ", ") + json::Serialize(s);
  return out;
}

int Run(const Context& ctx, const Args& a) {
  auto trace = service::TraceEvent(ctx.catalog(), a.session, a.seq);
  if (!trace.ok()) return ctx.Fail(trace.status());
  if (a.json) {
    std::fprintf(ctx.out, "%s\n", json::Serialize(*trace).c_str());
    return kExitOk;
  }
  const json::Value& t = *trace->Find("target");
  std::fprintf(ctx.out, "event %s %s (%s surface)\n", json::Serialize(*t.Find("seq")).c_str(),
               t.Find("type")->as_string().c_str(), t.Find("surface")->as_string().c_str());
  std::fprintf(ctx.out, "  replaced by:      %s\n", List(*trace->Find("replacementChain")).c_str());
  std::fprintf(ctx.out, "  it replaced:      %s\n", List(*trace->Find("replacedEventSeqs")).c_str());
  std::fprintf(ctx.out, "  it cites:         %s\n", List(*trace->Find("sourceEventSeqs")).c_str());
  std::fprintf(ctx.out, "  later events cite it: %s\n", List(*trace->Find("derivedEventSeqs")).c_str());
  return kExitOk;
}

}  // namespace

Command TraceCommand() {
  return {"trace", "Show how an event relates to others: replacements, sources and events derived from it",
          [](Options sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.Add("session", a->session, "Session id").Required();
            sub.Add("seq", a->seq, "The event's seq").Required();
            sub.Flag("--json", a->json, "Print dsh's traceEvent shape");
            sub.Footer("\"replaced by\" follows surface replacements (compaction, pruning) to the final replacer;\n"
                       "\"cites\" is the event's sourceEventSeqs; neither is followed transitively.");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
