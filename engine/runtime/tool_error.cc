#include "engine/runtime/tool_error.h"

#include "engine/json/writer.h"

namespace retrace::runtime {

ToolError ToolArgsError(const std::vector<std::string>& violations) {
  std::string msg = "invalid arguments: ";
  for (size_t i = 0; i < violations.size(); ++i) {
    if (i) msg += "; ";
    msg += violations[i];
  }
  return ToolError(std::move(msg), "ToolArgsError", "INVALID_ARGS");
}

ToolError ToolNotFoundError(const std::string& tool) {
  return ToolError("unknown tool \"" + tool + "\"", "ToolNotFoundError", "UNKNOWN_TOOL");
}

ToolError ToolOutputError(const std::string& tool, const std::string& detail) {
  return ToolError("tool \"" + tool + "\" returned invalid output: " + detail, "ToolOutputError",
                   "INVALID_TOOL_OUTPUT");
}

ToolError AbortedError() { return ToolError("tool call aborted", "AbortError", "ABORTED"); }

ToolError AbortedBeforeDispatchError() {
  return ToolError("tool call aborted before dispatch", "AbortError", "ABORTED_BEFORE_DISPATCH");
}

ToolError ToolTimeoutError(double ms) {
  return ToolError("tool call timed out after " + FormatJsNumber(ms) + "ms", "ToolTimeoutError", "TOOL_TIMEOUT");
}

ErrorDetail DescribeException(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const ToolError& t) {
    return {t.message(), t.info()};
  } catch (const std::exception& x) {
    return {x.what(), std::nullopt};
  } catch (const std::string& s) {
    return {s, std::nullopt};
  } catch (const char* s) {
    return {s ? s : "<unprintable thrown value>", std::nullopt};
  } catch (...) {
    return {"<unprintable thrown value>", std::nullopt};
  }
}

std::string FormatJsNumber(double d) { return json::FormatNumber(d); }

}  // namespace retrace::runtime
