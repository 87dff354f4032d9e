#include "frontends/mcp/protocol.h"

#include <algorithm>

namespace retrace::mcp {

std::string_view NegotiateVersion(std::string_view requested) {
  auto it = std::find(kProtocolVersions.begin(), kProtocolVersions.end(), requested);
  return it != kProtocolVersions.end() ? *it : kProtocolVersions.front();
}

bool HasStructuredOutput(std::string_view version) { return version >= "2025-06-18"; }

}  // namespace retrace::mcp
