// Large output buffers: reserve once, and back them with huge pages.
//
// Writing tens of megabytes into fresh memory costs one page fault per 4 KiB
// page; on the virtual machines measured in docs/PERFORMANCE.md a fault costs
// a few microseconds, so faults were a fifth of a replay's time. A reserved
// buffer advised to use transparent huge pages takes one fault per 2 MiB.
// The advice is only a hint: it changes no byte of the output, and where huge
// pages are off (or the buffer is small) nothing happens.
#ifndef RETRACE_ENGINE_BASE_BIG_BUFFER_H_
#define RETRACE_ENGINE_BASE_BIG_BUFFER_H_

#include <cstddef>
#include <string>

namespace retrace::base {

// s.reserve(bytes), then asks for huge pages over the whole 2 MiB pages of
// the reserved area that are not yet written.
void ReserveLarge(std::string& s, size_t bytes);

}  // namespace retrace::base

#endif  // RETRACE_ENGINE_BASE_BIG_BUFFER_H_
