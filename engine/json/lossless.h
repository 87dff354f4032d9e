// Lossless JSON (dsh-tool-contract §1.1): the values JavaScript's
// JSON.stringify round-trips exactly. A json::Value is lossless unless it
// holds a number that is NaN, ±Infinity or -0 (strings, arrays and objects
// of json::Value are always representable).
#ifndef RETRACE_ENGINE_JSON_LOSSLESS_H_
#define RETRACE_ENGINE_JSON_LOSSLESS_H_

#include <retrace/engine/json/value.h>

namespace retrace::json {

// True for a finite number other than -0.
bool IsLosslessNumber(double d);

// True when every number in `v` is lossless. Iterative.
bool IsLossless(const Value& v);

}  // namespace retrace::json

#endif  // RETRACE_ENGINE_JSON_LOSSLESS_H_
