// retrace verify [SESSION...] [--head | --pinned FILE] [--json]
#include <fstream>
#include <map>
#include <sstream>

#include "engine/json/writer.h"
#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "service/maintain.h"

namespace retrace::cli {
namespace {

struct Args {
  std::vector<std::string> sessions;
  bool head = false;
  std::string pinned;
  bool json = false;
};

// `SESSION HEAD` per line, as `verify --head` prints them.
Result<std::map<std::string, std::string>> ReadPinned(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("cannot read the pinned heads in " + path);
  std::map<std::string, std::string> pinned;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream words(line);
    std::string id, head, extra;
    if (!(words >> id)) continue;  // a blank line
    if (!(words >> head) || (words >> extra) || head.size() != 64) {
      return Status::InvalidArgument(path + ":" + std::to_string(n) + ": expected `SESSION HEAD` (64 hex digits)");
    }
    pinned[id] = head;
  }
  return pinned;
}

json::Value ReportJson(const store::EventStore::ChainReport& r) {
  json::Value v = json::Value::MakeObject({{"sessionId", r.session_id},
                                           {"ok", !r.problem},
                                           {"rows", static_cast<double>(r.rows)},
                                           {"events", static_cast<double>(r.events)}});
  if (r.problem) {
    v.Set("seq", static_cast<double>(*r.problem_seq));
    v.Set("problem", *r.problem);
  } else {
    v.Set("head", r.head);
  }
  return v;
}

int Run(const Context& ctx, const Args& a) {
  std::map<std::string, std::string> pinned;
  if (!a.pinned.empty()) {
    auto read = ReadPinned(a.pinned);
    if (!read.ok()) return ctx.Fail(read.status());
    pinned = std::move(read).value();
  }
  auto reports = service::VerifySessions(ctx.catalog(), a.sessions, pinned);
  if (!reports.ok()) return ctx.Fail(reports.status());
  size_t broken = 0;
  json::Value::Array all;
  for (const auto& r : *reports) {
    broken += r.problem.has_value();
    if (a.json) {
      all.push_back(ReportJson(r));
    } else if (a.head && !r.problem) {
      std::fprintf(ctx.out, "%s  %s\n", r.session_id.c_str(), r.head.c_str());
    } else if (r.problem) {
      std::fprintf(ctx.out, "%s  BROKEN at seq %lld: %s\n", r.session_id.c_str(), static_cast<long long>(*r.problem_seq),
                   r.problem->c_str());
    } else {
      std::fprintf(ctx.out, "%s  ok  %lld events in %lld rows, head %s\n", r.session_id.c_str(),
                   static_cast<long long>(r.events), static_cast<long long>(r.rows), r.head.c_str());
    }
  }
  if (a.json) {
    std::fprintf(ctx.out, "%s\n", json::Serialize(json::Value::MakeObject({{"ok", broken == 0}, {"sessions", json::Value(std::move(all))}})).c_str());
  } else if (!a.head) {
    std::fprintf(ctx.out, "verified %zu sessions: %zu broken\n", reports->size(), broken);
  }
  if (broken > 0 && !a.json) {
    std::fprintf(ctx.err, "retrace: %zu sessions do not match their chain: changed, removed or moved rows\n", broken);
  }
  return broken == 0 ? kExitOk : kExitCorrupt;
}

}  // namespace

Command VerifyCommand() {
  return {"verify", "Check that stored sessions are as they were appended (their tamper-evident chains)",
          [](Options sub, Context& ctx) -> Handler {
            auto a = std::make_shared<Args>();
            sub.Add("sessions", a->sessions, "Session ids (default: every session)");
            auto head = sub.Flag("--head", a->head, "Print `SESSION HEAD` per session, to pin the heads somewhere else");
            sub.Add("--pinned", a->pinned, "Compare each session's head with the one in this file (`verify --head` output)")
                .ExistingFile()
                .Excludes(head);
            sub.Flag("--json", a->json, "Print the reports as JSON (for CI)");
            sub.Footer(
                "Every stored row carries a link: SHA-256 of the previous row's link and its own verbatim\n"
                "line, the first starting from the session's header. verify recomputes the chain and names\n"
                "the first row whose line, order or presence differs (exit code 3). The rows left after\n"
                "a cut at the end still chain, and someone who edits the database could recompute every\n"
                "link: pin the heads outside it (`verify --head > heads.txt`) and compare later\n"
                "(`verify --pinned heads.txt`). The links depend on the lines alone: an exported and\n"
                "re-imported session has the same head.\n");
            return [&ctx, a] { return Run(ctx, *a); };
          }};
}

}  // namespace retrace::cli
