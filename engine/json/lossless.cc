#include "engine/json/lossless.h"

#include <cmath>
#include <vector>

namespace retrace::json {

bool IsLosslessNumber(double d) { return std::isfinite(d) && !(d == 0 && std::signbit(d)); }

bool IsLossless(const Value& root) {
  std::vector<const Value*> work{&root};
  while (!work.empty()) {
    const Value* v = work.back();
    work.pop_back();
    if (v->is_number() && !IsLosslessNumber(v->as_number())) return false;
    if (v->is_array()) {
      for (const Value& c : v->as_array()) work.push_back(&c);
    } else if (v->is_object()) {
      for (const auto& m : v->as_object()) work.push_back(&m.second);
    }
  }
  return true;
}

}  // namespace retrace::json
