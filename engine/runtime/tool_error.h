// Tool failures (dsh-tool-contract §5.1): what bodies, projectors and hooks
// throw, and the failure detail a result carries.
//
// ToolError is dsh's HarnessError: a message plus an identity {name, code}
// that the durable tool/result records as `error`. Any other exception still
// becomes a failure, with its what() as the message and no identity — as a
// plain JS Error does. Exceptions never leave the runtime: the pipeline turns
// each into an isError result.
#ifndef RETRACE_ENGINE_RUNTIME_TOOL_ERROR_H_
#define RETRACE_ENGINE_RUNTIME_TOOL_ERROR_H_

#include <exception>
#include <optional>
#include <string>
#include <vector>

namespace retrace::runtime {

// The durable failure identity: `error` of a tool/result.
struct ErrorInfo {
  std::string name;
  std::string code;
  bool operator==(const ErrorInfo&) const = default;
};

// A result's failure: the model-facing message and, for a ToolError, its identity.
struct ErrorDetail {
  std::string message;
  std::optional<ErrorInfo> info;
  bool operator==(const ErrorDetail&) const = default;
};

class ToolError : public std::exception {
 public:
  ToolError(std::string message, std::string name, std::string code)
      : message_(std::move(message)), info_{std::move(name), std::move(code)} {}
  const char* what() const noexcept override { return message_.c_str(); }
  const std::string& message() const { return message_; }
  const ErrorInfo& info() const { return info_; }

 private:
  std::string message_;
  ErrorInfo info_;
};

// The harness's own failures, with dsh's names, codes and texts.
ToolError ToolArgsError(const std::vector<std::string>& violations);  // INVALID_ARGS
ToolError ToolNotFoundError(const std::string& tool);                 // UNKNOWN_TOOL
ToolError ToolOutputError(const std::string& tool, const std::string& detail);  // INVALID_TOOL_OUTPUT
ToolError AbortedError();                 // ABORTED: the body ran, its success was superseded
ToolError AbortedBeforeDispatchError();   // ABORTED_BEFORE_DISPATCH: the body never ran
ToolError ToolTimeoutError(double ms);    // TOOL_TIMEOUT

// The detail of whatever `e` holds (dsh's errorMessage + HarnessError check):
// a ToolError keeps its identity; a std::exception gives what(); a thrown
// std::string or const char* gives its text; anything else
// "<unprintable thrown value>".
ErrorDetail DescribeException(const std::exception_ptr& e);

// dsh's number formatting inside messages (`${ms}`), e.g. 1500 → "1500", 0.5 → "0.5".
std::string FormatJsNumber(double d);

}  // namespace retrace::runtime

#endif  // RETRACE_ENGINE_RUNTIME_TOOL_ERROR_H_
