#include "engine/json/value.h"

#include <algorithm>
#include <cmath>

namespace retrace::json {
namespace {

// Moves the children of `v` (if it is a non-empty container) onto `work`.
void StealChildren(Value& v, std::vector<Value>& work) {
  if (v.is_array()) {
    auto& a = v.as_array();
    for (auto& c : a) {
      if ((c.is_array() && !c.as_array().empty()) || (c.is_object() && !c.as_object().empty()))
        work.push_back(std::move(c));
    }
    a.clear();
  } else if (v.is_object()) {
    auto& o = v.as_object();
    for (auto& [k, c] : o) {
      if ((c.is_array() && !c.as_array().empty()) || (c.is_object() && !c.as_object().empty()))
        work.push_back(std::move(c));
    }
    o.clear();
  }
}

bool HasNestedContainer(const Value& v) {
  auto nested = [](const Value& c) { return c.is_array() || c.is_object(); };
  if (v.is_array()) return std::any_of(v.as_array().begin(), v.as_array().end(), nested);
  if (v.is_object())
    return std::any_of(v.as_object().begin(), v.as_object().end(),
                       [&](const Value::Member& m) { return nested(m.second); });
  return false;
}

// Flattens a deep tree before the recursive variant destructor runs, so the
// recursion depth of destruction is bounded by 2 whatever the input depth.
void TearDown(Value& root) {
  if (!HasNestedContainer(root)) return;
  std::vector<Value> work;
  StealChildren(root, work);
  while (!work.empty()) {
    Value v = std::move(work.back());
    work.pop_back();
    StealChildren(v, work);
  }
}

uint32_t ArrayIndexOf(std::string_view key) {
  uint64_t n = 0;
  for (char c : key) n = n * 10 + static_cast<uint64_t>(c - '0');
  return static_cast<uint32_t>(n);
}

}  // namespace

// Destruction recurses normally for shallow values (the common case, and the
// cheapest); past kMaxRecursion nested levels the rest is torn down
// iteratively, so arbitrarily deep values never overflow the stack.
constexpr int kMaxRecursion = 128;
thread_local int destroy_depth = 0;

Value::~Value() {
  if (destroy_depth >= kMaxRecursion) {
    TearDown(*this);
    return;
  }
  ++destroy_depth;
  if (is_array()) {
    as_array().clear();
  } else if (is_object()) {
    as_object().clear();
  }
  --destroy_depth;
}

Value& Value::operator=(Value&& other) noexcept {
  if (this != &other) {
    TearDown(*this);
    v_ = std::move(other.v_);
  }
  return *this;
}

Value Value::MakeObject(std::initializer_list<Member> members) {
  Value v;
  v.v_ = Object();
  for (const auto& m : members) v.Set(m.first, m.second);
  return v;
}

const Value* Value::Find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& m : as_object())
    if (m.first == key) return &m.second;
  return nullptr;
}

Value* Value::Find(std::string_view key) {
  return const_cast<Value*>(static_cast<const Value*>(this)->Find(key));
}

void Value::Set(std::string key, Value value) {
  auto& o = as_object();
  for (auto& m : o) {
    if (m.first == key) {
      m.second = std::move(value);
      return;
    }
  }
  if (!IsArrayIndexKey(key)) {
    o.emplace_back(std::move(key), std::move(value));
    return;
  }
  // JS property order: index keys first, ascending.
  const uint32_t idx = ArrayIndexOf(key);
  auto pos = o.begin();
  while (pos != o.end() && IsArrayIndexKey(pos->first) && ArrayIndexOf(pos->first) < idx) ++pos;
  o.emplace(pos, std::move(key), std::move(value));
}

bool Value::is_safe_integer() const {
  if (!is_number()) return false;
  const double d = as_number();
  return std::isfinite(d) && std::trunc(d) == d && std::fabs(d) <= 9007199254740991.0;
}

bool IsArrayIndexKey(std::string_view key) {
  if (key.empty() || key.size() > 10) return false;
  if (key.size() > 1 && key[0] == '0') return false;
  uint64_t n = 0;
  for (char c : key) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n < 4294967295ULL;
}

bool operator==(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::kNull: return true;
    case Value::Kind::kBool: return a.as_bool() == b.as_bool();
    case Value::Kind::kNumber: return a.as_number() == b.as_number();
    case Value::Kind::kString: return a.as_string() == b.as_string();
    case Value::Kind::kArray: return a.as_array() == b.as_array();
    case Value::Kind::kObject: return a.as_object() == b.as_object();
  }
  return false;
}

}  // namespace retrace::json
