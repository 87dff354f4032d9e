// The value schema DSL compiler and the raw-schema checker and validator
// (engine/schema/) on any JSON: the input is a spec, or [spec, value]. A spec
// the compiler accepts must compile to a raw schema the checker accepts, and
// validation of any value against any accepted schema is total and stable.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "engine/json/parser.h"
#include "engine/schema/raw_schema_check.h"
#include "engine/schema/schema_compiler.h"
#include "engine/schema/validator.h"

namespace {

using retrace::json::Value;
namespace schema = retrace::schema;

void ValidateTwice(const Value& raw, const Value& value) {
  const auto first = schema::Validate(raw, value);
  if (first != schema::Validate(raw, value)) std::abort();  // validation is pure
  for (const auto& message : first) {
    if (message.empty()) std::abort();
  }
  (void)schema::ValidateArguments(raw, value);
}

void CheckCompiled(const retrace::Result<Value>& compiled, const Value& value) {
  if (!compiled.ok()) {
    if (compiled.status().message().empty()) std::abort();  // a refusal says why
    return;
  }
  if (!schema::CheckRawSchema(*compiled).empty()) std::abort();  // the compiler's output is in the subset
  ValidateTwice(*compiled, value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  retrace::Result<Value> input = retrace::json::Parse(std::string_view(reinterpret_cast<const char*>(data), size));
  if (!input.ok()) return 0;
  Value spec = *input;
  Value value;
  if (input->is_array() && input->as_array().size() == 2) {
    spec = input->as_array()[0];
    value = input->as_array()[1];
  }
  CheckCompiled(schema::CompileParameters(spec), value);
  CheckCompiled(schema::CompileValue(spec), value);
  if (schema::CheckRawSchema(spec).empty()) ValidateTwice(spec, value);
  return 0;
}
