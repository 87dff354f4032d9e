#include "engine/json/value.h"

#include "engine/json/parser.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <type_traits>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

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

// The old value dies after the new one is in place, as in the destructor
// (recursion bounded in depth): `other` may be one of its descendants.
Value& Value::operator=(Value&& other) noexcept {
  if (this != &other) {
    Value old(std::move(*this));
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

namespace {

// True when no key repeats and none is an array index: the members are then
// already in JS property order. Small objects compare pairwise; larger ones
// use a hash set, so that any object is checked in linear time.
bool IsPlainObject(const Value::Object& members) {
  constexpr size_t kPairwiseLimit = 16;
  for (const auto& m : members) {
    if (IsArrayIndexKey(m.first)) return false;
  }
  if (members.size() <= kPairwiseLimit) {
    for (size_t i = 1; i < members.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (members[j].first == members[i].first) return false;
      }
    }
    return true;
  }
  std::unordered_set<std::string_view> seen;
  seen.reserve(members.size());
  for (const auto& m : members) {
    if (!seen.insert(m.first).second) return false;
  }
  return true;
}

// What Set() in order would build, in O(n log n): a repeated key keeps its
// first position and its last value; index keys go first, ascending.
Value::Object InJsOrder(Value::Object members) {
  std::unordered_map<std::string_view, size_t> first;  // key -> index of its first member
  first.reserve(members.size());
  std::vector<size_t> indexes, others;
  for (size_t i = 0; i < members.size(); ++i) {
    auto [it, fresh] = first.emplace(members[i].first, i);
    if (!fresh) {
      members[it->second].second = std::move(members[i].second);
      continue;
    }
    (IsArrayIndexKey(members[i].first) ? indexes : others).push_back(i);
  }
  std::sort(indexes.begin(), indexes.end(), [&](size_t a, size_t b) {
    return ArrayIndexOf(members[a].first) < ArrayIndexOf(members[b].first);
  });
  Value::Object out;
  out.reserve(indexes.size() + others.size());
  for (size_t i : indexes) out.push_back(std::move(members[i]));
  for (size_t i : others) out.push_back(std::move(members[i]));
  return out;
}

}  // namespace

std::string_view Value::kept_text() const {
  const KeptText* kept = is_array()    ? std::get<SharedArray>(v_).kept()
                         : is_object() ? std::get<SharedObject>(v_).kept()
                                       : nullptr;
  return kept ? kept->text : std::string_view();
}

void Value::KeepText(KeptText kept) {
  if (is_array()) {
    std::get<SharedArray>(v_).Keep(std::move(kept));
  } else if (is_object()) {
    std::get<SharedObject>(v_).Keep(std::move(kept));
  }
}

Value Value::UnbuiltArray(KeptText kept) {
  Value v;
  v.v_ = SharedArray::Unbuilt(std::move(kept));
  return v;
}

namespace internal {
namespace {

// A build holds the lock of its box's stripe: two threads never build one
// box twice, and builds of different boxes seldom wait for each other.
std::mutex& BuildLock(const void* box) {
  static std::mutex stripes[64];
  return stripes[(reinterpret_cast<uintptr_t>(box) >> 6) % 64];
}

template <class T>
void Build(std::atomic<bool>& built, const KeptText* kept, T& out) {
  std::lock_guard<std::mutex> lock(BuildLock(&built));
  if (built.load(std::memory_order_relaxed)) return;
  Result<Value> parsed = Parse(kept->text);
  if (!parsed.ok()) {  // a kept text is a parse's own valid input: a bug if not
    std::fprintf(stderr, "retrace: a kept JSON text does not parse: %s\n", parsed.status().message().c_str());
    std::abort();
  }
  if constexpr (std::is_same_v<T, Value::Array>) {
    out = std::move(parsed->as_array());
  } else {
    out = std::move(parsed->as_object());
  }
  built.store(true, std::memory_order_release);
}

}  // namespace

void BuildKept(std::atomic<bool>& built, const KeptText* kept, Value::Array& out) { Build(built, kept, out); }
void BuildKept(std::atomic<bool>& built, const KeptText* kept, Value::Object& out) { Build(built, kept, out); }

}  // namespace internal

Value Value::MakeObject(Object members) {
  Value v;
  v.v_ = SharedObject(IsPlainObject(members) ? std::move(members) : InJsOrder(std::move(members)));
  return v;
}

const Value* Value::Find(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& m : as_object()) {
    if (m.first == key) return &m.second;
  }
  return nullptr;
}

Value* Value::Find(std::string_view key) {
  if (!static_cast<const Value*>(this)->Find(key)) return nullptr;
  for (auto& m : as_object()) {
    if (m.first == key) return &m.second;
  }
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
