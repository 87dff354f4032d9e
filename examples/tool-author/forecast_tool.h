// forecast: a tool as a tool author outside retrace writes one. Its body
// takes and returns nlohmann::json (<retrace/engine/json/nlohmann.h>); its
// presenters turn logged arguments and results into the cards replay shows.
#ifndef FORECAST_TOOL_H_
#define FORECAST_TOOL_H_

#include <retrace/engine/runtime/tool_definition.h>
#include <retrace/presenters/presenter.h>
#include <retrace/presenters/revisions.h>

namespace forecast {

// The definition, ready to register with a retrace::runtime::ToolRuntime.
// `presenter_revision` goes into the presenter's version: bump it with a view.
// Its arguments are at revision 3; it upcasts calls of revisions 1 and 2.
retrace::runtime::ToolDefinitionPtr ForecastTool();

// The tool as the release at `revision` (1 to 3) defined it: the old code,
// kept to record the corpus's sessions of each revision (forecast-record
// --revision N).
retrace::runtime::ToolDefinitionPtr ForecastToolAt(int revision);

// Today's revisions (the chain ForecastTool() declares), for tests that take
// a step away; and the parameter schema (DSL) of each revision.
retrace::presenters::RevisionSpec ForecastRevisions();
retrace::json::Value ForecastParameters(int revision);

// The same tool's presenters, for replay and `EXPECT_REPLAYS_STABLY`.
const retrace::presenters::PresenterSet& ForecastPresenters();

}  // namespace forecast

#endif  // FORECAST_TOOL_H_
