// What every command gets: the database path, the streams, the clock.
// Only frontends/cli/ reads the environment and the wall clock; it passes them down.
#ifndef RETRACE_CLI_CONTEXT_H_
#define RETRACE_CLI_CONTEXT_H_

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "engine/base/status.h"
#include "service/catalog.h"

namespace retrace::cli {

struct Context {
  std::string db_path;          // --db, $RETRACE_DB, or ./retrace.db
  bool durability_normal = false;  // --durability normal
  FILE* out = stdout;
  FILE* err = stderr;
  bool err_is_tty = false;      // progress lines only on a terminal

  int64_t NowMs() const;
  // The database and its sessions (service/catalog.h), with this context's path, durability and clock.
  service::Catalog catalog() const;
  // Prints "retrace: <message>" to err and returns the matching exit code.
  int Fail(const Status& st) const;
};

}  // namespace retrace::cli

#endif  // RETRACE_CLI_CONTEXT_H_
