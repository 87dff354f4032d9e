// Paths resolved as text, without touching the file system.
#ifndef RETRACE_ENGINE_BASE_LEXICAL_PATH_H_
#define RETRACE_ENGINE_BASE_LEXICAL_PATH_H_

#include <string>
#include <string_view>

namespace retrace {

// Node's path.resolve(base, path) for POSIX paths: absolute result, `.`/`..`
// folded (never above /), repeated and trailing slashes removed.
std::string ResolveLexically(std::string_view base, std::string_view path);

}  // namespace retrace

#endif  // RETRACE_ENGINE_BASE_LEXICAL_PATH_H_
