// Compiled into every executable that links retrace_malloc with mimalloc
// (CMakeLists.txt): mimalloc takes its memory from the OS in 2 MiB pages.
//
// Why: a recording keeps each append's storage lines until the folder writes
// them (JournalOptions::max_fold_lag), so a busy `retrace mcp` grows its heap
// to tens of MiB, touching each 4 KiB page for the first time, and mimalloc
// hands freed pages back to the OS and faults them in again. Where the kernel
// runs under a hypervisor a page fault costs about 11 µs (against 1 µs for a
// system call): with small pages a recorded `read` took 0.3-0.9 faults, a
// tenth of its server time. With 2 MiB pages (transparent huge pages, which
// mimalloc asks for with madvise) the heap grows in a few dozen faults and
// its pages are never handed back (docs/PERFORMANCE.md, issue 15).
#include <mimalloc.h>

#include <string_view>

namespace {

// Whether `envp` sets `name` (the C library's environ is not set up yet).
bool InEnvironment(char** envp, std::string_view name) {
  for (; envp != nullptr && *envp != nullptr; ++envp) {
    const std::string_view entry(*envp);
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') return true;
  }
  return false;
}

// Runs from the executable's .preinit_array: before any shared library's
// constructor, so before mimalloc reads its options (at its own start-up)
// and makes the main thread's first segment. mi_option_set only writes
// mimalloc's option table, which marks the option as set, so it is not read
// from the environment again: an operator's MIMALLOC_LARGE_OS_PAGES (or
// MIMALLOC_EAGER_COMMIT_DELAY) is left alone, for mimalloc to read.
void UseLargeOsPages(int, char**, char** envp) {
  if (!InEnvironment(envp, "MIMALLOC_LARGE_OS_PAGES")) mi_option_enable(mi_option_large_os_pages);
  // A thread's first segment is committed eagerly too, so it can be large:
  // the folder's heap is as busy as the main thread's.
  if (!InEnvironment(envp, "MIMALLOC_EAGER_COMMIT_DELAY")) mi_option_set(mi_option_eager_commit_delay, 0);
}

__attribute__((section(".preinit_array"), used)) void (*const kUseLargeOsPages)(int, char**, char**) = UseLargeOsPages;

}  // namespace
