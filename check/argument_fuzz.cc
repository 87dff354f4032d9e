#include "check/argument_fuzz.h"

#include <string>

namespace retrace::check {
namespace {

using json::Value;

// A small deterministic generator (splitmix64): no global state, no clock.
struct Rng {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

Value Unicode(Rng& rng) {
  static const char* const kTexts[] = {
      "\xED\xA0\x80",                  // a lone high surrogate (WTF-8), as dsh logs may carry
      "\xF0\x9F\x98\x80 \xF0\x9D\x95\x8F",  // astral characters
      "\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D \xD8\xB9\xD8\xB1\xD8\xA8\xD9\x8A",  // right-to-left
      "e\xCC\x81\xCC\x81\xCC\x81",     // combining marks
      "a\0b",                         // read as a C string: "a" (it was the c_str() of a temporary, freed)
      "../../etc/passwd",
      "<script>alert(1)</script>",
      "",
  };
  return Value(std::string(kTexts[rng.Next() % (sizeof kTexts / sizeof *kTexts)]));
}

Value Retyped(const Value& v, Rng& rng) {
  switch (rng.Next() % 6) {
    case 0: return Value();
    case 1: return Value(v.is_bool() ? 1.0 : true);
    case 2: return Value(v.is_number() ? Value("12") : Value(-1.5));
    case 3: return Value(Value::Array{v});
    case 4: return Value::MakeObject({{"value", v}});
    default: return Value(std::string(1 << 20, 'x'));  // a huge string
  }
}

Value Mutate(const Value& args, Rng& rng) {
  if (!args.is_object() || args.as_object().empty()) {
    // Not an object (or empty): replace the whole argument value.
    return rng.Next() % 2 ? Retyped(args, rng) : Value::MakeObject({{"unexpected", Unicode(rng)}});
  }
  Value out = args;
  auto& fields = out.as_object();
  const size_t i = rng.Next() % fields.size();
  switch (rng.Next() % 4) {
    case 0: fields.erase(fields.begin() + static_cast<std::ptrdiff_t>(i)); break;  // drop
    case 1: fields[i].second = Retyped(fields[i].second, rng); break;              // retype / huge
    case 2: fields[i].second = Unicode(rng); break;                               // unicode
    default: fields.emplace_back("extra_" + std::to_string(rng.Next() % 100), Unicode(rng));  // an unknown field
  }
  return out;
}

}  // namespace

Value MutateArguments(const Value& args, uint64_t i) {
  Rng rng{i * 0x2545F4914F6CDD1Dull + 1};
  Value v = Mutate(args, rng);
  if (rng.Next() % 3 == 0) v = Mutate(v, rng);  // sometimes two mutations at once
  return v;
}

}  // namespace retrace::check
