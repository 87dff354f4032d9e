// Runtime validation of a value against a raw schema of the subset
// (dsh-tool-contract §2.5, dsh's validateJsonSchemaValue): total — never
// fails — and returns every violation in walk order (empty = valid), with
// dsh's exact texts and display paths.
#ifndef RETRACE_ENGINE_SCHEMA_VALIDATOR_H_
#define RETRACE_ENGINE_SCHEMA_VALIDATOR_H_

#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/json/value.h>

namespace retrace::schema {

// `root_label` names the root in messages ("value" for tool outputs). With an
// empty label the root displays as "arguments" and children as "key", "a.b",
// "a[0].b", as for tool arguments. REQUIRES: `schema` passed CheckRawSchema
// (its depth is bounded, and so is this walk's).
std::vector<std::string> Validate(const json::Value& schema, const json::Value& value,
                                  std::string_view root_label = "value");

// Tool arguments against a compiled parameter schema (root label "").
inline std::vector<std::string> ValidateArguments(const json::Value& schema, const json::Value& args) {
  return Validate(schema, args, "");
}

}  // namespace retrace::schema

#endif  // RETRACE_ENGINE_SCHEMA_VALIDATOR_H_
