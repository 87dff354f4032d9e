// A tool call's logged argument text, parsed as dsh's agent loop parses it
// (dsh-tool-contract §9.3): "" is {}, and text that is not JSON is
// passed on as the string itself (which then fails validation as
// `"arguments" must be an object`).
#ifndef RETRACE_ENGINE_LOG_TOOL_ARGUMENTS_H_
#define RETRACE_ENGINE_LOG_TOOL_ARGUMENTS_H_

#include <string_view>

#include <retrace/engine/json/value.h>

namespace retrace::log {

// What a number past the double range (1e400) becomes.
enum class NumberOverflow {
  kInfinity,  // as JSON.parse: the runtime then refuses the arguments as not lossless
  kKeepText,  // the whole text stays a string: a replayed card is written out, and
              // Infinity has no JSON form
};

json::Value ParseToolArguments(std::string_view text, NumberOverflow overflow);

}  // namespace retrace::log

#endif  // RETRACE_ENGINE_LOG_TOOL_ARGUMENTS_H_
