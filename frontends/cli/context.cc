#include "frontends/cli/context.h"

#include <chrono>

#include "frontends/cli/exit_codes.h"

namespace retrace::cli {

int64_t Context::NowMs() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

service::Catalog Context::catalog() const {
  return service::Catalog({.db_path = db_path,
                           .durability = durability_normal ? store::Durability::kNormal : store::Durability::kFull,
                           .now_ms = [this] { return NowMs(); }});
}

int Context::Fail(const Status& st) const {
  std::fprintf(err, "retrace: %s\n", st.message().c_str());
  return ExitCodeFor(st);
}

}  // namespace retrace::cli
