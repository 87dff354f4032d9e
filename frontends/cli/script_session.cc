#include "frontends/cli/script_session.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <utility>


extern char** environ;

namespace retrace::cli {

std::string NewUuid() {
  static thread_local std::mt19937_64 rng(static_cast<std::mt19937_64::result_type>(std::random_device{}()));
  uint64_t hi = rng(), lo = rng();
  hi = (hi & 0xffffffffffff0fffULL) | 0x4000ULL;
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;
  // 8-4-4-4-12 lowercase hex digits, written by hand: a recorded call takes
  // two or three ids, and snprintf's format parsing cost a microsecond each.
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(36, '-');
  size_t at = 0;
  auto put = [&](uint64_t bits, int digits) {
    for (int i = digits - 1; i >= 0; --i) id[at++] = kHex[(bits >> (4 * i)) & 0xf];
  };
  put(hi >> 32, 8);
  ++at;
  put(hi >> 16, 4);
  ++at;
  put(hi, 4);
  ++at;
  put(lo >> 48, 4);
  ++at;
  put(lo, 12);
  return id;
}

namespace {

std::vector<std::string> ProcessEnvironment() {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
  return env;
}

// A private (0700) per-user directory under the system temp dir.
std::string DefaultSpillDir() {
  std::error_code ec;
  std::string dir = (std::filesystem::temp_directory_path(ec) / ("retrace-spill-" + std::to_string(getuid()))).string();
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) return "";
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid()) return "";  // not ours: no spill
  return dir;
}

}  // namespace

service::LiveOptions LiveOptionsFor(const Context& ctx, const ScriptSession& how) {
  return {.session_id = how.session_id.empty() ? NewUuid() : how.session_id,
          .workspace = how.workspace.empty() ? "." : how.workspace,
          .workspace_chosen = !how.workspace.empty(),
          .home = [] {
            const char* home = std::getenv("HOME");
            return std::string(home ? home : "");
          }(),
          .max_parallel = how.max_parallel,
          .policies = how.policies,
          .spill_dir = how.spill_dir.empty() ? DefaultSpillDir() : how.spill_dir,
          .environment = ProcessEnvironment(),
          .ca_file = [] {  // as OpenSSL's own tools honour it, but added to the system's CAs
            const char* file = std::getenv("SSL_CERT_FILE");
            return std::string(file ? file : "");
          }(),
          .now_ms = [&ctx] { return ctx.NowMs(); },
          .new_id = NewUuid,
          .warn = [&ctx](const std::string& message) { std::fprintf(ctx.err, "retrace: %s\n", message.c_str()); },
          .code = how.code};
}

Result<ScriptOutcome> RecordScript(const Context& ctx, const std::vector<service::ScriptOp>& ops, const ScriptSession& how) {
  return service::RecordScript(ctx.catalog(), ops, LiveOptionsFor(ctx, how));
}

}  // namespace retrace::cli
