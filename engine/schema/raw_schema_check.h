// The enforced raw JSON Schema subset (dsh-tool-contract §2.4) and its
// checker (`assertSupportedJsonSchema`, §2.2 assert phase).
//
// Keywords: type oneOf properties required additionalProperties items enum
// const, and the annotations description title default examples. `type` is
// one string of object/array/string/number/integer/boolean/null. A node with
// neither type nor oneOf is annotation-only: "any lossless JSON".
#ifndef RETRACE_ENGINE_SCHEMA_RAW_SCHEMA_CHECK_H_
#define RETRACE_ENGINE_SCHEMA_RAW_SCHEMA_CHECK_H_

#include <string>
#include <vector>

#include <retrace/engine/json/value.h>

namespace retrace::schema {

// Schemas are written by authors, not models; their nesting is capped so that
// every schema walk (here, in the compiler and the validator) has a bounded
// depth. Deeper nodes are refused: "<path> nests deeper than 256 schema levels".
inline constexpr int kMaxSchemaDepth = 256;

// Every violation of the subset, in walk order, with paths rooted at "schema";
// empty when `schema` is supported.
std::vector<std::string> CheckRawSchema(const json::Value& schema);

}  // namespace retrace::schema

#endif  // RETRACE_ENGINE_SCHEMA_RAW_SCHEMA_CHECK_H_
