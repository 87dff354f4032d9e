// The child-side programs of a Code Mode run (bootstrap.mjs, bootstrap.py),
// compiled into retrace so that a run needs no installed file. The build
// generates their definitions from the two files (tools/CMakeLists.txt).
#ifndef RETRACE_TOOLS_CODE_MODE_BOOTSTRAPS_H_
#define RETRACE_TOOLS_CODE_MODE_BOOTSTRAPS_H_

#include <string_view>

namespace retrace::tools::code_mode {

extern const std::string_view kNodeBootstrap;
extern const std::string_view kPythonBootstrap;

}  // namespace retrace::tools::code_mode

#endif  // RETRACE_TOOLS_CODE_MODE_BOOTSTRAPS_H_
