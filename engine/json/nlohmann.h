// nlohmann_json at the tool boundary: a tool author's body may take and
// return nlohmann::json (or nlohmann::ordered_json) while the engine keeps
// its own lossless json::Value.
//
//   #include <nlohmann/json.hpp>
//   #include <retrace/engine/json/nlohmann.h>
//
//   Result<nlohmann::json> in = json::ToNlohmann(run.arguments());
//   Result<json::Value> out = json::FromNlohmann(reply);
//
// Header-only, so retrace itself does not depend on nlohmann_json: the
// project that includes this header brings it. Each direction refuses, with
// an error naming the JSON Pointer of the value, what the other side cannot
// carry exactly:
//   - a string or key holding a lone surrogate (json::Value keeps dsh's
//     JavaScript strings as WTF-8; nlohmann needs valid UTF-8), and from
//     nlohmann, a string that is not valid UTF-8;
//   - an integer beyond 2^53 whose double would round (json::Value numbers
//     are JavaScript's doubles), and NaN or an infinity, which no JSON holds;
//   - a duplicate key (an ordered_json built by hand can hold one; the last
//     would silently win), and nlohmann's binary values.
// Integral doubles within ±2^53 become nlohmann integers, so `get<int>()`
// works on what a model sent as `3`.
#ifndef RETRACE_ENGINE_JSON_NLOHMANN_H_
#define RETRACE_ENGINE_JSON_NLOHMANN_H_

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/utf8.h>
#include <retrace/engine/json/value.h>

namespace retrace::json {

namespace nlohmann_internal {

constexpr double kTwoTo53 = 9007199254740992.0;

// JSON Pointer escaping (RFC 6901) of one reference token.
inline std::string PointerToken(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

inline std::string Where(const std::string& pointer) {
  return pointer.empty() ? "at the top level" : "at " + pointer;
}

// True when `s` is strictly valid UTF-8 (no lone surrogates).
inline bool IsValidUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = ValidUtf8SequenceLength(s.substr(i));
    if (n == 0) return false;
    i += n;
  }
  return true;
}

inline Status Refuse(const std::string& pointer, const std::string& what) {
  return Status::InvalidArgument("cannot convert the JSON value " + Where(pointer) + ": " + what);
}

template <class BasicJson>
Status ToNlohmannAt(const Value& v, const std::string& pointer, BasicJson& out) {
  switch (v.kind()) {
    case Value::Kind::kNull:
      out = nullptr;
      return Status::Ok();
    case Value::Kind::kBool:
      out = v.as_bool();
      return Status::Ok();
    case Value::Kind::kNumber: {
      const double d = v.as_number();
      if (d == std::trunc(d) && std::fabs(d) <= kTwoTo53 && !(d == 0 && std::signbit(d))) {
        out = static_cast<std::int64_t>(d);
      } else {
        out = d;
      }
      return Status::Ok();
    }
    case Value::Kind::kString:
      if (!IsValidUtf8(v.as_string())) return Refuse(pointer, "the string holds a lone surrogate, which nlohmann_json cannot hold");
      out = v.as_string();
      return Status::Ok();
    case Value::Kind::kArray: {
      out = BasicJson::array();
      size_t i = 0;
      for (const Value& item : v.as_array()) {
        BasicJson element;
        if (Status st = ToNlohmannAt(item, pointer + "/" + std::to_string(i++), element); !st.ok()) return st;
        out.push_back(std::move(element));
      }
      return Status::Ok();
    }
    case Value::Kind::kObject: {
      out = BasicJson::object();
      for (const auto& [key, member] : v.as_object()) {
        const std::string at = pointer + "/" + PointerToken(key);
        if (!IsValidUtf8(key)) return Refuse(at, "the key holds a lone surrogate, which nlohmann_json cannot hold");
        BasicJson element;
        if (Status st = ToNlohmannAt(member, at, element); !st.ok()) return st;
        out[key] = std::move(element);
      }
      return Status::Ok();
    }
  }
  return Refuse(pointer, "unknown value kind");
}

template <class BasicJson>
Status FromNlohmannAt(const BasicJson& j, const std::string& pointer, Value& out) {
  using Type = typename BasicJson::value_t;
  switch (j.type()) {
    case Type::null:
      out = nullptr;
      return Status::Ok();
    case Type::boolean:
      out = j.template get<bool>();
      return Status::Ok();
    case Type::number_integer: {
      const auto i = j.template get<std::int64_t>();
      // Exact when the double converts back to the same integer (every
      // integer within ±2^53, and the larger ones that are powers of two apart).
      const double d = static_cast<double>(i);
      if (d >= 9223372036854775808.0 || static_cast<std::int64_t>(d) != i)
        return Refuse(pointer, "the integer " + std::to_string(i) + " is beyond 2^53 and would round to " + j.dump());
      out = d;
      return Status::Ok();
    }
    case Type::number_unsigned: {
      const auto u = j.template get<std::uint64_t>();
      const double d = static_cast<double>(u);
      if (d >= 18446744073709551616.0 || static_cast<std::uint64_t>(d) != u)
        return Refuse(pointer, "the integer " + std::to_string(u) + " is beyond 2^53 and would round");
      out = d;
      return Status::Ok();
    }
    case Type::number_float: {
      const double d = j.template get<double>();
      if (!std::isfinite(d)) return Refuse(pointer, "NaN and infinities are not JSON numbers");
      out = d;
      return Status::Ok();
    }
    case Type::string: {
      const auto& s = j.template get_ref<const typename BasicJson::string_t&>();
      if (!IsValidUtf8(s)) return Refuse(pointer, "the string is not valid UTF-8");
      out = std::string(s);
      return Status::Ok();
    }
    case Type::array: {
      Value::Array items;
      items.reserve(j.size());
      size_t i = 0;
      for (const BasicJson& element : j) {
        Value item;
        if (Status st = FromNlohmannAt(element, pointer + "/" + std::to_string(i++), item); !st.ok()) return st;
        items.push_back(std::move(item));
      }
      out = Value(std::move(items));
      return Status::Ok();
    }
    case Type::object: {
      Value::Object members;
      members.reserve(j.size());
      std::set<std::string_view> keys;
      for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string& key = it.key();
        const std::string at = pointer + "/" + PointerToken(key);
        if (!IsValidUtf8(key)) return Refuse(at, "the key is not valid UTF-8");
        if (!keys.insert(key).second) return Refuse(at, "the key appears twice; the last would silently win");
        Value member;
        if (Status st = FromNlohmannAt(it.value(), at, member); !st.ok()) return st;
        members.emplace_back(key, std::move(member));
      }
      out = Value::MakeObject(std::move(members));
      return Status::Ok();
    }
    case Type::binary:
      return Refuse(pointer, "nlohmann_json binary values have no JSON form");
    case Type::discarded:
      return Refuse(pointer, "the value is a discarded parse result");
  }
  return Refuse(pointer, "unknown nlohmann_json type");
}

}  // namespace nlohmann_internal

// json::Value → nlohmann (nlohmann::json, nlohmann::ordered_json, ...).
// ordered_json keeps the members' order; nlohmann::json sorts them.
template <class BasicJson = nlohmann::json>
Result<BasicJson> ToNlohmann(const Value& v) {
  BasicJson out;
  if (Status st = nlohmann_internal::ToNlohmannAt(v, "", out); !st.ok()) return st;
  return out;
}

// nlohmann → json::Value, members in the order nlohmann iterates them.
template <class BasicJson>
Result<Value> FromNlohmann(const BasicJson& j) {
  Value out;
  if (Status st = nlohmann_internal::FromNlohmannAt(j, "", out); !st.ok()) return st;
  return out;
}

// An upcaster of old arguments or meta (presenters/revisions.h, UpcastFn)
// written against nlohmann: `step` takes the old value and returns the next
// revision's. ordered_json by default, so that members keep their order.
// What cannot cross the boundary, either way, throws with its JSON Pointer:
// the step then counts as failed (the generic card, a `retrace check` finding).
//
//   .steps = {{.from = 1, .to = 2, .arguments = json::NlohmannUpcaster([](nlohmann::ordered_json a) {
//               a["city"] = a["town"];
//               a.erase("town");
//               return a;
//             })}}
template <class BasicJson = nlohmann::ordered_json, class Step>
std::function<Value(const Value&)> NlohmannUpcaster(Step step) {
  return [step = std::move(step)](const Value& old) -> Value {
    Result<BasicJson> in = ToNlohmann<BasicJson>(old);
    if (!in.ok()) throw std::invalid_argument(in.status().message());
    Result<Value> out = FromNlohmann(static_cast<const BasicJson&>(step(std::move(in).value())));
    if (!out.ok()) throw std::invalid_argument(out.status().message());
    return std::move(out).value();
  };
}

}  // namespace retrace::json

#endif  // RETRACE_ENGINE_JSON_NLOHMANN_H_
