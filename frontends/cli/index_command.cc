// retrace index --rebuild
#include <unistd.h>

#include "frontends/cli/command.h"
#include "frontends/cli/exit_codes.h"
#include "service/maintain.h"

namespace retrace::cli {
namespace {

int Run(const Context& ctx, bool rebuild) {
  const service::Catalog catalog = ctx.catalog();
  if (!rebuild) {
    Status st = service::CatchUpSearchIndex(catalog);
    if (!st.ok()) return ctx.Fail(st);
    std::fprintf(ctx.out, "the search index of %s is up to date\n", ctx.db_path.c_str());
    return kExitOk;
  }
  const bool tty = isatty(fileno(ctx.err));
  Status st = service::RebuildReadModel(catalog, [&](int64_t done, int64_t total) {
    if (tty) std::fprintf(ctx.err, "\rrebuilding: %lld/%lld sessions", static_cast<long long>(done), static_cast<long long>(total));
  });
  if (tty) std::fputc('\n', ctx.err);
  if (!st.ok()) return ctx.Fail(st);
  std::fprintf(ctx.out, "rebuilt the audit tables and the search index of %s\n", ctx.db_path.c_str());
  return kExitOk;
}

}  // namespace

Command IndexCommand() {
  return {"index", "Bring the search index up to date, or rebuild the read model from the events",
          [](Options sub, Context& ctx) -> Handler {
            auto rebuild = std::make_shared<bool>(false);
            sub.Flag("--rebuild", *rebuild, "Drop every derived row and derive them again, in one transaction");
            sub.Footer("Appends keep the audit tables and the search documents current; the full-text index over\n"
                       "the documents catches up in bulk before each `retrace search`, or here. --rebuild is for\n"
                       "recovery and upgrades, and gives the same rows as the appends did.");
            return [&ctx, rebuild] { return Run(ctx, *rebuild); };
          }};
}

}  // namespace retrace::cli
