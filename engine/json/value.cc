#include "engine/json/value.h"

#include <algorithm>
#include <cmath>

namespace retrace::json {
// Moves the children of `v` (if it owns its container) onto `work`; a shared
// container is left to its other holders.
void Value::StealChildren(Value& v, std::vector<Value>& work) {
  if (!v.OwnsContainer()) return;
  if (v.is_array()) {
    auto& a = v.as_array();
    for (auto& c : a) {
      if (c.OwnsContainer()) work.push_back(std::move(c));
    }
    a.clear();
  } else {
    auto& o = v.as_object();
    for (auto& [k, c] : o) {
      if (c.OwnsContainer()) work.push_back(std::move(c));
    }
    o.clear();
  }
}

// Flattens a deep tree before the recursive destructors run, so the
// recursion depth of destruction is bounded by 2 whatever the input depth.
void Value::TearDown(Value& root) {
  std::vector<Value> work;
  StealChildren(root, work);
  while (!work.empty()) {
    Value v = std::move(work.back());
    work.pop_back();
    StealChildren(v, work);
  }
}

namespace {

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

void Value::DestroyContainer() {
  if (destroy_depth >= kMaxRecursion) {
    TearDown(*this);
    return;
  }
  ++destroy_depth;
  if (is_array()) {
    as_array().clear();
  } else {
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

Value& Value::operator=(const Value& other) {
  if (this != &other) {
    Value copy(other);
    *this = std::move(copy);
  }
  return *this;
}

// Out of line: inlined, GCC 12 warns falsely about the moved-from vector.
Value::Value(Array a) : v_(SharedArray(std::move(a))) {}

Value Value::MakeObject(std::initializer_list<Member> members) {
  Value v;
  v.v_ = SharedObject();
  for (const auto& m : members) v.Set(m.first, m.second);
  return v;
}

Value Value::MakeObject(Object members) {
  bool plain = true;
  for (size_t i = 0; plain && i < members.size(); ++i) {
    const std::string& key = members[i].first;
    plain = !IsArrayIndexKey(key);
    for (size_t j = 0; plain && j < i; ++j) plain = members[j].first != key;
  }
  Value v;
  if (plain) {
    v.v_ = SharedObject(std::move(members));
    return v;
  }
  v.v_ = SharedObject();
  for (auto& m : members) v.Set(std::move(m.first), std::move(m.second));
  return v;
}

const Value* Value::Find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& m : as_object())
    if (m.first == key) return &m.second;
  return nullptr;
}

Value* Value::Find(std::string_view key) {
  if (!static_cast<const Value*>(this)->Find(key)) return nullptr;
  for (auto& m : as_object())
    if (m.first == key) return &m.second;
  return nullptr;
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
  std::vector<std::pair<const Value*, const Value*>> work{{&a, &b}};
  while (!work.empty()) {
    auto [x, y] = work.back();
    work.pop_back();
    if (x->kind() != y->kind()) return false;
    switch (x->kind()) {
      case Value::Kind::kNull: break;
      case Value::Kind::kBool:
        if (x->as_bool() != y->as_bool()) return false;
        break;
      case Value::Kind::kNumber:
        if (x->as_number() != y->as_number()) return false;
        break;
      case Value::Kind::kString:
        if (x->as_string() != y->as_string()) return false;
        break;
      case Value::Kind::kArray:
        if (&x->as_array() == &y->as_array()) break;  // one shared container
        if (x->as_array().size() != y->as_array().size()) return false;
        for (size_t i = 0; i < x->as_array().size(); ++i) work.emplace_back(&x->as_array()[i], &y->as_array()[i]);
        break;
      case Value::Kind::kObject:
        if (&x->as_object() == &y->as_object()) break;
        if (x->as_object().size() != y->as_object().size()) return false;
        for (size_t i = 0; i < x->as_object().size(); ++i) {
          if (x->as_object()[i].first != y->as_object()[i].first) return false;
          work.emplace_back(&x->as_object()[i].second, &y->as_object()[i].second);
        }
        break;
    }
  }
  return true;
}

}  // namespace retrace::json
