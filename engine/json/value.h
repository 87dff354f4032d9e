// json::Value — a lossless JSON value with JavaScript semantics.
//
// Mirrors what JSON.parse produces in JavaScript, because dsh logs are written
// by JSON.stringify and must round-trip byte-exactly:
//  - numbers are IEEE doubles (integers beyond 2^53 lose precision, as in JS);
//  - strings are WTF-8: UTF-8 that may also encode lone UTF-16 surrogates
//    (U+D800..U+DFFF as 3-byte sequences), so "\ud800" survives a round trip;
//  - objects keep insertion order, except that array-index-like keys
//    ("0".."4294967294") come first in ascending numeric order, as JS property
//    order requires; a duplicate key keeps its first position, last value wins.
//
// Copy, comparison, serialization and destruction never recurse deeper than
// a small bound: arbitrarily deep values never overflow the stack.
#ifndef RETRACE_ENGINE_JSON_VALUE_H_
#define RETRACE_ENGINE_JSON_VALUE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace retrace::json {

class Value {
 public:
  enum class Kind : uint8_t { kNull, kBool, kNumber, kString, kArray, kObject };
  using Array = std::vector<Value>;
  using Member = std::pair<std::string, Value>;
  using Object = std::vector<Member>;

  Value() = default;
  Value(std::nullptr_t) {}                                // NOLINT: implicit by design
  Value(bool b) : v_(b) {}                                // NOLINT
  Value(double d) : v_(d) {}                              // NOLINT
  Value(int i) : v_(static_cast<double>(i)) {}            // NOLINT
  Value(int64_t i) : v_(static_cast<double>(i)) {}        // NOLINT
  Value(std::string s) : v_(std::move(s)) {}              // NOLINT
  Value(std::string_view s) : v_(std::string(s)) {}       // NOLINT
  Value(const char* s) : v_(std::string(s)) {}            // NOLINT
  Value(Array a) : v_(std::move(a)) {}                    // NOLINT
  static Value MakeObject(std::initializer_list<Member> members = {});

  // Copying and destruction are iterative (any depth).
  Value(const Value& other);
  Value& operator=(const Value& other);
  Value(Value&&) noexcept = default;
  Value& operator=(Value&& other) noexcept;
  ~Value();

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_null() const { return kind() == Kind::kNull; }
  bool is_bool() const { return kind() == Kind::kBool; }
  bool is_number() const { return kind() == Kind::kNumber; }
  bool is_string() const { return kind() == Kind::kString; }
  bool is_array() const { return kind() == Kind::kArray; }
  bool is_object() const { return kind() == Kind::kObject; }

  // REQUIRES: the matching kind.
  bool as_bool() const { return std::get<bool>(v_); }
  double as_number() const { return std::get<double>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const Array& as_array() const { return std::get<Array>(v_); }
  Array& as_array() { return std::get<Array>(v_); }
  const Object& as_object() const { return std::get<Object>(v_); }
  Object& as_object() { return std::get<Object>(v_); }

  // Member lookup; nullptr when this is not an object or the key is absent.
  const Value* Find(std::string_view key) const;
  Value* Find(std::string_view key);

  // Sets a member with JS semantics (see the file comment). REQUIRES: object.
  void Set(std::string key, Value value);

  // True for a number that is a safe integer (|x| <= 2^53-1, integral).
  bool is_safe_integer() const;

 private:
  using Storage = std::variant<std::monostate, bool, double, std::string, Array, Object>;
  void CopyFrom(const Value& src);
  Storage v_;
};

// True when `key` is a canonical array index ("0".."4294967294").
bool IsArrayIndexKey(std::string_view key);

// Deep equality: numbers compare as doubles (so -0 == 0), objects member by
// member in order. Iterative.
bool operator==(const Value& a, const Value& b);

}  // namespace retrace::json

#endif  // RETRACE_ENGINE_JSON_VALUE_H_
