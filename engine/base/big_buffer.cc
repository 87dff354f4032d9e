#include "engine/base/big_buffer.h"

#include <sys/mman.h>

#include <cstdint>

namespace retrace::base {

void ReserveLarge(std::string& s, size_t bytes) {
  s.reserve(bytes);
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<uintptr_t>(s.data()) + s.size();
  const auto end = reinterpret_cast<uintptr_t>(s.data()) + s.capacity();
  const uintptr_t from = (begin + kHuge - 1) & ~(kHuge - 1), to = end & ~(kHuge - 1);
  // Only whole huge pages inside the buffer: the advice never reaches memory
  // the buffer does not own. A failure (no THP support) changes nothing.
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the page-aligned address is computed, as madvise needs
  if (to > from) (void)madvise(reinterpret_cast<void*>(from), to - from, MADV_HUGEPAGE);
}

}  // namespace retrace::base
