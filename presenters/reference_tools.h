// The presenters of dsh's reference tools (dsh-reference-tools §2–§3):
// read, write, edit, glob, grep, bash, web_search, web_fetch, job_output,
// job_list and job_kill, each with the parameter schema of a default
// deployment (background jobs on, no sandbox), byte-identical to what
// upstream registers (tests/golden/cards/schemas.json). The built-in tools
// reuse them; replay uses them for dsh logs.
#ifndef RETRACE_PRESENTERS_REFERENCE_TOOLS_H_
#define RETRACE_PRESENTERS_REFERENCE_TOOLS_H_

#include <retrace/presenters/presenter.h>

namespace retrace::presenters {

// Every reference tool's parameter DSL (ParameterSchemaSpec), by name.
json::Value ReferenceParameters(std::string_view tool);

// The reference presenters, built once.
const PresenterSet& ReferencePresenters();

// dsh-tools' own run_code presenter (a generic card titled with the
// program's description). Not in ReferencePresenters(): only a deployment in
// Code Mode shows it; in a native one (the fixtures') run_code is an unknown
// tool and its calls get the generic fallback.
ToolPresenterPtr RunCodePresenter();

// ReferencePresenters() and RunCodePresenter(): a Code Mode deployment's.
const PresenterSet& CodeModePresenters();

// One reference tool's presenter: NotFound for a tool that has none, or the
// error that kept it from being built.
Result<ToolPresenterPtr> ReferencePresenter(std::string_view tool);

}  // namespace retrace::presenters

#endif  // RETRACE_PRESENTERS_REFERENCE_TOOLS_H_
