// JsonSchemaError: how a refused schema is reported (dsh-tool-contract §2.2):
// Status kInvalidArgument whose message is
//   "unsupported JSON schema: " + violations.join("; ")
#ifndef RETRACE_ENGINE_SCHEMA_SCHEMA_ERROR_H_
#define RETRACE_ENGINE_SCHEMA_SCHEMA_ERROR_H_

#include <string>
#include <vector>

#include <retrace/engine/base/status.h>

namespace retrace::schema {

inline constexpr char kUnsupportedSchemaPrefix[] = "unsupported JSON schema: ";

inline Status SchemaError(const std::vector<std::string>& violations) {
  std::string m = kUnsupportedSchemaPrefix;
  for (size_t i = 0; i < violations.size(); ++i) m += (i ? "; " : "") + violations[i];
  return Status::InvalidArgument(m);
}

}  // namespace retrace::schema

#endif  // RETRACE_ENGINE_SCHEMA_SCHEMA_ERROR_H_
