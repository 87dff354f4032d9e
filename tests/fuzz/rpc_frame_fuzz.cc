// The JSON-RPC frame parser of the MCP and ACP servers (frontends/rpc/json_rpc.h) over any line: a frame, or a
// rejection whose error frame is one line of valid JSON-RPC.
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "engine/json/parser.h"
#include "frontends/rpc/json_rpc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  std::variant<retrace::rpc::Frame, retrace::rpc::Rejection> parsed = retrace::rpc::ParseFrame(line);
  std::string answer;
  if (const auto* rejected = std::get_if<retrace::rpc::Rejection>(&parsed)) {
    answer = retrace::rpc::ErrorFrame(rejected->id, rejected->code, rejected->message);
  } else {
    const auto& frame = std::get<retrace::rpc::Frame>(parsed);
    answer = retrace::rpc::ResultFrame(frame.id, frame.params);
  }
  if (answer.find('\n') != std::string::npos) std::abort();  // a frame is one line
  if (!retrace::json::Parse(answer).ok()) std::abort();      // of valid JSON
  return 0;
}
