// Mutations of logged tool arguments for replay-stability fuzzing: a field
// dropped, a field retyped, a huge string, Unicode edge cases (a lone
// surrogate, astral and right-to-left text, combining marks, NUL). Pure and
// deterministic: the i-th mutation of a value is always the same.
#ifndef RETRACE_CHECK_ARGUMENT_FUZZ_H_
#define RETRACE_CHECK_ARGUMENT_FUZZ_H_

#include <cstdint>

#include <retrace/engine/json/value.h>

namespace retrace::check {

json::Value MutateArguments(const json::Value& args, uint64_t i);

}  // namespace retrace::check

#endif  // RETRACE_CHECK_ARGUMENT_FUZZ_H_
