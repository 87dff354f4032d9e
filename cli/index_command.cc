// retrace index --rebuild
#include <unistd.h>

#include "cli/command.h"
#include "cli/exit_codes.h"

namespace retrace::cli {
namespace {

int Run(const Context& ctx) {
  auto store = ctx.OpenStore(false, /*create=*/false);
  if (!store.ok()) return ctx.Fail(store.status());
  const bool tty = isatty(fileno(ctx.err));
  Status st = (*store)->RebuildReadModel([&](int64_t done, int64_t total) {
    if (tty) std::fprintf(ctx.err, "\rrebuilding: %lld/%lld sessions", static_cast<long long>(done), static_cast<long long>(total));
  });
  if (tty) std::fputc('\n', ctx.err);
  if (!st.ok()) return ctx.Fail(st);
  std::fprintf(ctx.out, "rebuilt the audit tables and the search index of %s\n", ctx.db_path.c_str());
  return kExitOk;
}

}  // namespace

Command IndexCommand() {
  return {"index", "Rebuild the audit tables and the search index from the stored events",
          [](CLI::App& sub, Context& ctx) -> Handler {
            auto rebuild = std::make_shared<bool>(false);
            sub.add_flag("--rebuild", *rebuild, "Drop every derived row and derive them again, in one transaction")
                ->required();
            sub.footer("Both are kept up to date on every append; a rebuild is for recovery and upgrades.\n"
                       "It gives the same rows as the appends did.");
            return [&ctx] { return Run(ctx); };
          }};
}

}  // namespace retrace::cli
