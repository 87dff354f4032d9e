// forecast: a tool as a tool author outside retrace writes one. Its body
// takes and returns nlohmann::json (<retrace/engine/json/nlohmann.h>); its
// presenters turn logged arguments and results into the cards replay shows.
#ifndef FORECAST_TOOL_H_
#define FORECAST_TOOL_H_

#include <retrace/engine/runtime/tool_definition.h>
#include <retrace/presenters/presenter.h>

namespace forecast {

// The definition, ready to register with a retrace::runtime::ToolRuntime.
// `presenter_revision` goes into the presenter's version: bump it with a view.
retrace::runtime::ToolDefinitionPtr ForecastTool();

// The same tool's presenters, for replay and `EXPECT_REPLAYS_STABLY`.
const retrace::presenters::PresenterSet& ForecastPresenters();

}  // namespace forecast

#endif  // FORECAST_TOOL_H_
