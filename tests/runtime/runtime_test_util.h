// Helpers for the runtime tests: run a coroutine to completion, and the
// small tools the tests register (the built-in tools come with tools/).
#ifndef RETRACE_TESTS_RUNTIME_RUNTIME_TEST_UTIL_H_
#define RETRACE_TESTS_RUNTIME_RUNTIME_TEST_UTIL_H_

#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "engine/json/writer.h"
#include "engine/runtime/asio.h"
#include "engine/runtime/tool_definition.h"
#include "engine/runtime/tool_runtime.h"
#include "engine/schema/schema_spec.h"

namespace retrace::runtime::testing {

// Runs `aw` on a fresh io_context (one thread) and returns its value.
template <typename T>
T RunSync(asio::awaitable<T> aw) {
  asio::io_context io;
  std::optional<T> out;
  std::exception_ptr error;
  auto store = [&out](asio::awaitable<T> a) -> asio::awaitable<void> { out.emplace(co_await std::move(a)); };
  asio::co_spawn(io, store(std::move(aw)), [&](std::exception_ptr e) { error = e; });
  io.run();
  if (error) std::rethrow_exception(error);
  return std::move(*out);
}

inline ToolCallInput Call(std::string name, json::Value args, std::string call_id = "c1") {
  ToolCallInput in;
  in.call_id = std::move(call_id);
  in.name = std::move(name);
  in.arguments = std::move(args);
  return in;
}

inline ToolResultPtr Exec(ToolRuntime& rt, ToolCallInput in) { return RunSync(rt.Execute(std::move(in))); }

inline json::Value Args(std::initializer_list<json::Value::Member> members) { return json::Value::MakeObject(members); }

// The text of a single-text-block content.
inline std::string Text(const ToolResult& r) {
  if (r.content.size() != 1) return "<" + std::to_string(r.content.size()) + " blocks>";
  const json::Value* t = r.content[0].Find("text");
  return t && t->is_string() ? t->as_string() : "<no text>";
}

inline std::string Code(const ToolResult& r) {
  return r.error && r.error->info ? r.error->info->code : "";
}

// echo: {s: string (required)} → value s; content s; meta {len}.
inline ToolDefinition EchoSpec(std::string name = "echo") {
  using namespace schema;
  return ToolDefinition{
      .name = std::move(name),
      .description = "Echo a string.",
      .parameters = Parameters({{"s", String().Required()}}),
      .output = {.schema = String(),
                 .render = [](const json::Value&, const json::Value& v) { return TextContent(v.as_string()); },
                 .presentation_meta =
                     [](const json::Value&, const json::Value& v) {
                       return json::Value::MakeObject({{"len", static_cast<double>(v.as_string().size())}});
                     }},
      .execute = [](ToolRunContext& run) { return *run.arguments().Find("s"); },
  };
}

inline ToolDefinitionPtr Define(ToolDefinition spec) {
  Result<ToolDefinitionPtr> def = DefineTool(std::move(spec));
  if (!def.ok()) throw std::runtime_error(def.status().message());
  return *def;
}

inline Registration MustRegister(ToolRuntime& rt, ToolDefinitionPtr def, ScopePtr scope = nullptr) {
  Result<Registration> r = rt.registry().Register(std::move(def), std::move(scope));
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(r).value();
}

}  // namespace retrace::runtime::testing

#endif  // RETRACE_TESTS_RUNTIME_RUNTIME_TEST_UTIL_H_
