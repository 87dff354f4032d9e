// dsh-tool-fs's computeHunkDiffs(path, before, after): the applied hunks a
// write or edit reports as presentationMeta. A port of jsdiff 9's line
// diff (its Myers variant, with its exact tie-breaking, so the hunks are
// byte-identical) and of structuredPatch's hunk grouping with 3 context
// lines. Each hunk becomes {path, oldText: string|null, newText}.
#ifndef RETRACE_TOOLS_LINE_DIFF_H_
#define RETRACE_TOOLS_LINE_DIFF_H_

#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/json/value.h>

namespace retrace::tools {

// jsdiff's line tokens: each line with its "\n" or "\r\n" (the last may have none).
std::vector<std::string> LineTokens(std::string_view text);

json::Value ComputeHunkDiffs(const std::string& path, std::string_view before, std::string_view after);

}  // namespace retrace::tools

#endif  // RETRACE_TOOLS_LINE_DIFF_H_
