#include "forecast_tool.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>
#include <retrace/engine/json/nlohmann.h>
#include <retrace/engine/runtime/tool_error.h>
#include <retrace/engine/runtime/tool_result.h>
#include <retrace/engine/schema/schema_spec.h>

namespace forecast {
namespace {

namespace json = retrace::json;
namespace runtime = retrace::runtime;
namespace schema = retrace::schema;

// The body proper, in nlohmann::json: a deterministic made-up forecast, so the
// recorded sessions are the same on every machine.
nlohmann::json Forecast(const nlohmann::json& args) {
  const std::string city = args.at("city").get<std::string>();
  const int days = args.value("days", 3);
  uint32_t h = 2166136261u;  // FNV-1a of the city name
  for (unsigned char c : city) h = (h ^ c) * 16777619u;
  static const char* const kSkies[] = {"sunny", "cloudy", "rain", "snow"};
  nlohmann::json out = {{"city", city}, {"days", nlohmann::json::array()}};
  for (int d = 1; d <= days; ++d) {
    h = h * 1103515245u + 12345u;
    const int low = static_cast<int>(h % 20) - 5;
    out["days"].push_back({{"day", d}, {"high", low + 4 + static_cast<int>((h >> 8) % 8)},
                           {"low", low}, {"sky", kSkies[(h >> 16) % 4]}});
  }
  return out;
}

// Crossing the boundary: what nlohmann cannot carry exactly is refused with
// the path of the value, as a failed call the model can read.
runtime::ToolError BoundaryError(const retrace::Status& st) {
  return runtime::ToolError(st.message(), "ForecastError", "UNREPRESENTABLE_VALUE");
}

json::Value Body(runtime::ToolRunContext& run) {
  retrace::Result<nlohmann::json> args = json::ToNlohmann(run.arguments());
  if (!args.ok()) throw BoundaryError(args.status());
  retrace::Result<json::Value> value = json::FromNlohmann(Forecast(*args));
  if (!value.ok()) throw BoundaryError(value.status());
  return std::move(value).value();
}

std::string Summary(const json::Value& value) {
  std::string text = "Forecast for " + value.Find("city")->as_string() + ":";
  for (const json::Value& day : value.Find("days")->as_array()) {
    text += " day " + std::to_string(static_cast<int>(day.Find("day")->as_number())) + " " +
            std::to_string(static_cast<int>(day.Find("low")->as_number())) + ".." +
            std::to_string(static_cast<int>(day.Find("high")->as_number())) + " C " + day.Find("sky")->as_string() +
            ";";
  }
  return text;
}

json::Value Parameters() {
  return schema::Parameters({
      {"city", schema::String().Description("City name").Required()},
      {"days", schema::Integer().Description("Days ahead, 1 to 7 (default 3)")},
  });
}

json::Value OutputSchema() {
  const schema::Spec day = schema::Object(false, {{"day", schema::Integer().Required()},
                                                  {"high", schema::Number().Required()},
                                                  {"low", schema::Number().Required()},
                                                  {"sky", schema::String().Required()}});
  return schema::Object(false, {{"city", schema::String().Required()}, {"days", schema::Array(day).Required()}});
}

// Presenters: pure functions of the logged arguments and the durable result.
std::optional<json::Value> PresentCall(const json::Value& args) {
  return json::Value::MakeObject({{"card", "generic"}, {"title", "Forecast for " + args.Find("city")->as_string()},
                                  {"kind", "fetch"}});
}

std::optional<json::Value> PresentResult(const json::Value& args, const retrace::presenters::DurableResult& r) {
  if (r.is_error) return json::Value::MakeObject({{"card", "generic"}, {"title", "No forecast"}});
  std::string title = "Forecast for " + args.Find("city")->as_string();
  if (r.meta && r.meta->Find("warmest"))
    title += ", up to " + std::to_string(static_cast<int>(r.meta->Find("warmest")->as_number())) + " C";
  return json::Value::MakeObject({{"card", "generic"}, {"title", title}, {"content", json::Value(r.content)}});
}

runtime::ToolDefinitionPtr Define() {
  retrace::Result<runtime::ToolDefinitionPtr> def = runtime::DefineTool({
      .name = "forecast",
      .description = "Weather forecast for a city, a few days ahead.",
      .parameters = Parameters(),
      .output = {.schema = OutputSchema(),
                 .render = [](const json::Value&, const json::Value& v) { return runtime::TextContent(Summary(v)); },
                 .presentation_meta =
                     [](const json::Value&, const json::Value& v) {
                       double warmest = -1e9;
                       for (const json::Value& day : v.Find("days")->as_array())
                         warmest = std::max(warmest, day.Find("high")->as_number());
                       return json::Value::MakeObject(
                           {{"days", json::Value(static_cast<int64_t>(v.Find("days")->as_array().size()))},
                            {"warmest", warmest}});
                     }},
      .execute = Body,
      .present_call = PresentCall,
      .present_result = PresentResult,
      .presenter_revision = "1",
      .hints = runtime::ToolHints{.title = "Forecast", .read_only = true, .open_world = false},
  });
  if (!def.ok()) throw std::logic_error("forecast: " + def.status().message());
  return std::move(def).value();
}

}  // namespace

runtime::ToolDefinitionPtr ForecastTool() {
  static const runtime::ToolDefinitionPtr tool = Define();
  return tool;
}

const retrace::presenters::PresenterSet& ForecastPresenters() {
  static const retrace::presenters::PresenterSet set = [] {
    retrace::presenters::PresenterSet s;
    s.Add(ForecastTool()->presenter);
    return s;
  }();
  return set;
}

}  // namespace forecast
