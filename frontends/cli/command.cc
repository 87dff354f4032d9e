#include "frontends/cli/command.h"

#include <algorithm>
#include <vector>

namespace retrace::cli {
namespace {

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::span<const Command> Commands() {
  static const Command kCommands[] = {ImportCommand(), ExportCommand(), SessionsCommand(),
                                      EventsCommand(), RepairCommand(), DeleteCommand(), RetainCommand(), VerifyCommand(), MigrateCommand(), RunCommand(), McpCommand(), AcpCommand(), ReplayCommand(), AuditCommand(), QueryCommand(), SearchCommand(), ShowCommand(), TraceCommand(), LineageCommand(), IndexCommand(), CheckCommand(), SdkCommand(), DemoCommand()};
  return kCommands;
}

std::string SuggestCommand(std::string_view typo) {
  std::string best;
  size_t best_distance = 3;
  for (const Command& c : Commands()) {
    const size_t d = EditDistance(typo, c.name);
    if (d < best_distance || (c.name.rfind(typo, 0) == 0 && !typo.empty() && best.empty())) {
      best_distance = std::min(d, best_distance);
      best = std::string(c.name);
    }
  }
  return best;
}

}  // namespace retrace::cli
