#include "engine/log/event_types.h"

#include <algorithm>

namespace retrace::log {

bool IsKnownEventType(std::string_view type) {
  // The catalog is sorted, so a binary search suffices.
  return std::binary_search(kKnownEventTypes.begin(), kKnownEventTypes.end(), type);
}

bool IsSurfaceEligible(std::string_view type) {
  return type == "user/message" || type == "assistant/message" || type == "tool/result";
}

}  // namespace retrace::log
