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

// The arguments' history, as tool authors' histories go:
//   revision 1 (the first release): {town, days?}, meta {days, high};
//   revision 2: `town` renamed `city`, and the meta's `high` renamed `warmest`;
//   revision 3 (today): `city` an object {name, country?}, so that Paris, France
//   and Paris, Texas are two places.
// Each release recorded sessions; the upcasters below carry their calls to
// today's arguments, so old sessions replay to today's cards.
constexpr int kCurrentRevision = 3;

// The city's name in arguments of `revision`.
std::string CityName(const nlohmann::json& args, int revision) {
  if (revision == 1) return args.at("town").get<std::string>();
  if (revision == 2) return args.at("city").get<std::string>();
  return args.at("city").at("name").get<std::string>();
}

// The body proper, in nlohmann::json: a deterministic made-up forecast, so the
// recorded sessions are the same on every machine.
nlohmann::json Forecast(const std::string& city, int days) {
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

runtime::SyncBody BodyAt(int revision) {
  return [revision](runtime::ToolRunContext& run) {
    retrace::Result<nlohmann::json> args = json::ToNlohmann(run.arguments());
    if (!args.ok()) throw BoundaryError(args.status());
    retrace::Result<json::Value> value = json::FromNlohmann(Forecast(CityName(*args, revision), args->value("days", 3)));
    if (!value.ok()) throw BoundaryError(value.status());
    return std::move(value).value();
  };
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

json::Value ParametersAt(int revision) {
  const schema::Spec days = schema::Integer().Description("Days ahead, 1 to 7 (default 3)");
  if (revision == 1) return schema::Parameters({{"town", schema::String().Description("Town name").Required()}, {"days", days}});
  if (revision == 2) return schema::Parameters({{"city", schema::String().Description("City name").Required()}, {"days", days}});
  const schema::Spec place = schema::Object(false, {{"name", schema::String().Description("City name").Required()},
                                                    {"country", schema::String().Description("Country, when the name is ambiguous")}});
  return schema::Parameters({{"city", place.Required()}, {"days", days}});
}

json::Value OutputSchema() {
  const schema::Spec day = schema::Object(false, {{"day", schema::Integer().Required()},
                                                  {"high", schema::Number().Required()},
                                                  {"low", schema::Number().Required()},
                                                  {"sky", schema::String().Required()}});
  return schema::Object(false, {{"city", schema::String().Required()}, {"days", schema::Array(day).Required()}});
}

// presentationMeta: {days, warmest} (revision 1 called it `high`).
json::Value MetaAt(int revision, const json::Value& v) {
  double warmest = -1e9;
  for (const json::Value& day : v.Find("days")->as_array()) warmest = std::max(warmest, day.Find("high")->as_number());
  return json::Value::MakeObject({{"days", json::Value(static_cast<int64_t>(v.Find("days")->as_array().size()))},
                                  {revision == 1 ? "high" : "warmest", warmest}});
}

// The place as the cards name it: "Paris", or "Paris, Texas".
std::string PlaceAt(int revision, const json::Value& args) {
  if (revision == 1) return args.Find("town")->as_string();
  const json::Value* city = args.Find("city");
  if (revision == 2) return city->as_string();
  std::string place = city->Find("name")->as_string();
  if (const json::Value* country = city->Find("country")) place += ", " + country->as_string();
  return place;
}

// Presenters: pure functions of the logged arguments and the durable result.
// Each release's presenters gave the same cards for the same call.
runtime::PresentCallFn PresentCallAt(int revision) {
  return [revision](const json::Value& args) -> std::optional<json::Value> {
    return json::Value::MakeObject({{"card", "generic"}, {"title", "Forecast for " + PlaceAt(revision, args)}, {"kind", "fetch"}});
  };
}

runtime::PresentResultFn PresentResultAt(int revision) {
  return [revision](const json::Value& args, const retrace::presenters::DurableResult& r) -> std::optional<json::Value> {
    if (r.is_error) return json::Value::MakeObject({{"card", "generic"}, {"title", "No forecast"}});
    std::string title = "Forecast for " + PlaceAt(revision, args);
    const char* warmest = revision == 1 ? "high" : "warmest";
    if (r.meta && r.meta->Find(warmest))
      title += ", up to " + std::to_string(static_cast<int>(r.meta->Find(warmest)->as_number())) + " C";
    return json::Value::MakeObject({{"card", "generic"}, {"title", title}, {"content", json::Value(r.content)}});
  };
}

// The upcasters: pure functions of one revision's value. Revision 1 → 2 is
// written against nlohmann (json::NlohmannUpcaster), 2 → 3 against json::Value.
retrace::presenters::UpcastStep TownBecomesCity() {
  return {.from = 1,
          .to = 2,
          .arguments = json::NlohmannUpcaster([](nlohmann::ordered_json args) {
            nlohmann::ordered_json out = {{"city", args.at("town")}};
            if (args.contains("days")) out["days"] = args["days"];
            return out;
          }),
          .meta = json::NlohmannUpcaster([](nlohmann::ordered_json meta) {
            nlohmann::ordered_json out;
            for (auto& [key, value] : meta.items()) out[key == "high" ? "warmest" : key] = value;
            return out;
          })};
}

retrace::presenters::UpcastStep CityBecomesAnObject() {
  return {.from = 2, .to = 3, .arguments = [](const json::Value& args) {
            json::Value out = json::Value::MakeObject({{"city", json::Value::MakeObject({{"name", *args.Find("city")}})}});
            if (const json::Value* days = args.Find("days")) out.Set("days", *days);
            return out;
          }};
}

// What the release at `revision` declared: the revisions before it, and the
// steps between them.
std::optional<retrace::presenters::RevisionSpec> RevisionsAt(int revision) {
  if (revision == 1) return std::nullopt;
  retrace::presenters::RevisionSpec spec{.current = revision};
  for (int older = 1; older < revision; ++older) spec.parameters[older] = ParametersAt(older);
  spec.steps.push_back(TownBecomesCity());
  if (revision >= 3) spec.steps.push_back(CityBecomesAnObject());
  return spec;
}

runtime::ToolDefinitionPtr Define(int revision) {
  retrace::Result<runtime::ToolDefinitionPtr> def = runtime::DefineTool({
      .name = "forecast",
      .description = "Weather forecast for a city, a few days ahead.",
      .parameters = ParametersAt(revision),
      .output = {.schema = OutputSchema(),
                 .render = [](const json::Value&, const json::Value& v) { return runtime::TextContent(Summary(v)); },
                 .presentation_meta = [revision](const json::Value&, const json::Value& v) { return MetaAt(revision, v); }},
      .execute = BodyAt(revision),
      .present_call = PresentCallAt(revision),
      .present_result = PresentResultAt(revision),
      .presenter_revision = "1",
      .revisions = RevisionsAt(revision),
      .hints = runtime::ToolHints{.title = "Forecast", .read_only = true, .open_world = false},
  });
  if (!def.ok()) throw std::logic_error("forecast: " + def.status().message());
  return std::move(def).value();
}

}  // namespace

runtime::ToolDefinitionPtr ForecastTool() {
  static const runtime::ToolDefinitionPtr tool = Define(kCurrentRevision);
  return tool;
}

runtime::ToolDefinitionPtr ForecastToolAt(int revision) {
  if (revision < 1 || revision > kCurrentRevision) throw std::out_of_range("forecast has revisions 1 to 3");
  return revision == kCurrentRevision ? ForecastTool() : Define(revision);
}

retrace::presenters::RevisionSpec ForecastRevisions() { return *RevisionsAt(kCurrentRevision); }

json::Value ForecastParameters(int revision) { return ParametersAt(revision); }

const retrace::presenters::PresenterSet& ForecastPresenters() {
  static const retrace::presenters::PresenterSet set = [] {
    retrace::presenters::PresenterSet s;
    s.Add(ForecastTool()->presenter);
    return s;
  }();
  return set;
}

}  // namespace forecast
