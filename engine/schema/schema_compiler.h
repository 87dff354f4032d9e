// The value schema DSL (dsh-tool-contract §2.1) compiled to the raw JSON
// Schema subset (§2.3, §2.4), exactly as dsh's parameterSchemaSpecToJsonSchema
// and valueSchemaSpecToJsonSchema do: a fail-fast compile phase (paths rooted
// at "parameters" or "schema"), then CheckRawSchema collecting every
// violation (paths rooted at "schema"). Errors are SchemaError (schema_error.h).
//
// A DSL spec is a json::Value, usually built with schema_spec.h:
//   ParameterSchemaSpec: {<name>: ValueSchemaSpec & {required?: true}, ...}
//   ValueSchemaSpec: {type: string|number|integer|boolean|null, enum?, const?}
//                  | {type: array, items?} | {type: object, additionalProperties: bool, properties?}
//                  | {type: json} | {oneOf: [>= 2 ValueSchemaSpec]}, each with
//                  description?, title?, default?, examples? (annotations only).
#ifndef RETRACE_ENGINE_SCHEMA_SCHEMA_COMPILER_H_
#define RETRACE_ENGINE_SCHEMA_SCHEMA_COMPILER_H_

#include <retrace/engine/base/status.h>
#include <retrace/engine/json/value.h>

namespace retrace::schema {

// The tool-parameter root: an open object {type:"object", properties, required?}
// with no additionalProperties (dsh's implicit open root).
Result<json::Value> CompileParameters(const json::Value& spec);

// Any root (tool outputs).
Result<json::Value> CompileValue(const json::Value& spec);

}  // namespace retrace::schema

#endif  // RETRACE_ENGINE_SCHEMA_SCHEMA_COMPILER_H_
