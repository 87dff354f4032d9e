// retrace delete SESSION... [--no-vacuum]
// retrace retain --older-than DURATION [--dry-run] [--no-vacuum]
#include <unistd.h>

#include <cctype>
#include <optional>

#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "frontends/cli/format.h"
#include "service/maintain.h"

namespace retrace::cli {
namespace {

// "30d", "12h", "90m", "2w", "45s" → milliseconds; nullopt for anything else.
std::optional<int64_t> DurationMs(const std::string& text) {
  if (text.size() < 2 || !std::isdigit(static_cast<unsigned char>(text[0]))) return std::nullopt;
  size_t used = 0;
  int64_t n = 0;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() - 1 || n > 100'000'000) return std::nullopt;
  switch (text.back()) {
    case 's': return n * 1000;
    case 'm': return n * 60'000;
    case 'h': return n * 3'600'000;
    case 'd': return n * 86'400'000;
    case 'w': return n * 604'800'000;
    default: return std::nullopt;
  }
}

std::string MiB(int64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

// Deletes `ids`, saying how it goes on a terminal, then what was deleted and the space given back.
int Delete(const Context& ctx, const std::vector<std::string>& ids, bool vacuum) {
  const bool tty = isatty(fileno(ctx.err));
  service::DeleteOptions options{.vacuum = vacuum, .progress = [&](int64_t done, int64_t total) {
                                   if (!tty) return;
                                   std::fprintf(ctx.err, "\rdeleting: %lld/%lld sessions%s", static_cast<long long>(done),
                                                static_cast<long long>(total),
                                                done == total && vacuum ? "; giving the space back (VACUUM)..." : "");
                                 }};
  auto outcome = service::DeleteSessions(ctx.catalog(), ids, options);
  if (tty) std::fputc('\n', ctx.err);
  if (!outcome.ok()) return ctx.Fail(outcome.status());
  for (const store::SessionSummary& s : outcome->deleted) {
    std::fprintf(ctx.out, "deleted %s (%lld events, last at %s)\n", s.id.c_str(), static_cast<long long>(s.events),
                 IsoTime(s.updated_at).c_str());
  }
  if (vacuum) {
    std::fprintf(ctx.out, "%zu sessions deleted; %s: %s → %s\n", outcome->deleted.size(), ctx.db_path.c_str(),
                 MiB(outcome->bytes_before).c_str(), MiB(outcome->bytes_after).c_str());
  } else {
    std::fprintf(ctx.out, "%zu sessions deleted; their pages stay free in %s until `retrace delete` or `retain` vacuums\n",
                 outcome->deleted.size(), ctx.db_path.c_str());
  }
  return kExitOk;
}

int Retain(const Context& ctx, const std::string& older_than, bool dry_run, bool vacuum) {
  const std::optional<int64_t> age = DurationMs(older_than);
  if (!age) {
    return ctx.Fail(Status::InvalidArgument("--older-than " + older_than +
                                            ": give a number and a unit, s, m, h, d or w (e.g. 30d)"));
  }
  const int64_t cutoff = ctx.NowMs() - *age;
  auto old = service::SessionsIdleSince(ctx.catalog(), cutoff);
  if (!old.ok()) return ctx.Fail(old.status());
  if (old->empty()) {
    std::fprintf(ctx.out, "no session's last event is older than %s (before %s)\n", older_than.c_str(),
                 IsoTime(cutoff).c_str());
    return kExitOk;
  }
  if (dry_run) {
    for (const store::SessionSummary& s : *old) {
      std::fprintf(ctx.out, "would delete %s (%lld events, last at %s)\n", s.id.c_str(),
                   static_cast<long long>(s.events), IsoTime(s.updated_at).c_str());
    }
    std::fprintf(ctx.out, "%zu sessions would be deleted (nothing changed)\n", old->size());
    return kExitOk;
  }
  std::vector<std::string> ids;
  for (const store::SessionSummary& s : *old) ids.push_back(s.id);
  return Delete(ctx, ids, vacuum);
}

constexpr char kDeletion[] =
    "Each session goes in a transaction of its own: its events, its audit rows, its search\n"
    "documents and their full-text entries. A session being recorded (its writer holds it) is\n"
    "refused and nothing after it is deleted. Afterwards the database is vacuumed (SQLite's\n"
    "VACUUM: a rewrite of the file, which needs as much free disk again) so the file shrinks;\n"
    "--no-vacuum leaves the pages free for new sessions instead. Take a copy first if you may\n"
    "want them back (`retrace export`, or cp of the database).\n";

}  // namespace

Command DeleteCommand() {
  return {"delete", "Delete sessions, with their audit rows and search documents, and give the space back",
          [](Options sub, Context& ctx) -> Handler {
            auto ids = std::make_shared<std::vector<std::string>>();
            auto no_vacuum = std::make_shared<bool>(false);
            sub.Add("sessions", *ids, "Session ids (`retrace sessions` lists them)").Required();
            sub.Flag("--no-vacuum", *no_vacuum, "Leave the freed pages in the file for new sessions");
            sub.Footer(std::string(kDeletion) +
                       "Every id is looked up before anything is deleted: an unknown one changes nothing.\n");
            return [&ctx, ids, no_vacuum] { return Delete(ctx, *ids, !*no_vacuum); };
          }};
}

Command RetainCommand() {
  return {"retain", "Keep only recent sessions: delete those whose last event is older than a duration",
          [](Options sub, Context& ctx) -> Handler {
            auto older_than = std::make_shared<std::string>();
            auto dry_run = std::make_shared<bool>(false);
            auto no_vacuum = std::make_shared<bool>(false);
            sub.Add("--older-than", *older_than, "Age of a session's last event: 45s, 90m, 12h, 30d, 2w").Required();
            sub.Flag("--dry-run", *dry_run, "List the sessions that would be deleted, change nothing");
            sub.Flag("--no-vacuum", *no_vacuum, "Leave the freed pages in the file for new sessions");
            sub.Footer(std::string(kDeletion) +
                       "A session's age is that of its last stored event; oldest first. Run it from cron\n"
                       "(e.g. `retrace --db ~/.retrace/retrace.db retain --older-than 90d`).\n");
            return [&ctx, older_than, dry_run, no_vacuum] { return Retain(ctx, *older_than, *dry_run, !*no_vacuum); };
          }};
}

}  // namespace retrace::cli
