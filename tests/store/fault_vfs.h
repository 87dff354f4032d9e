// FaultVfs: a SQLite VFS shim over the default one, for the fault-injection
// and power-cut tests (in the manner of SQLite's own test VFSes and LevelDB's
// fault-injection Env). Installed as the process's default VFS, so every
// connection the code under test opens goes through it.
//
// It counts the operations that can fail — reads, writes, truncates, syncs
// and locks — and can fail the Nth with EIO or ENOSPC, or write only part
// of its buffer, once or from then on. For power cuts it remembers what each
// file held before every write or truncate since its last sync; PowerCut()
// then takes the machine down: from that operation on everything fails, and
// DropUnsynced() puts the unsynced bytes back as a machine losing power
// would — all of them, or a random part with torn sectors — and removes the
// -shm files (shared memory does not survive).
#ifndef RETRACE_TESTS_STORE_FAULT_VFS_H_
#define RETRACE_TESTS_STORE_FAULT_VFS_H_

#include <cstdint>
#include <string>

namespace retrace::testing {

enum class FaultKind {
  kEio,           // SQLITE_IOERR (the operation's own extended code)
  kEnospc,        // SQLITE_FULL on writes, SQLITE_IOERR_* otherwise
  kPartialWrite,  // a write stores a prefix of its buffer, then fails (other operations: EIO)
};

class FaultVfs {
 public:
  // Registers the shim as the default VFS (once per process) and returns it.
  static FaultVfs& Install();

  // No fault armed, counting from zero, no power cut, nothing remembered.
  void Reset();
  // Operations counted since the last Reset.
  int64_t operations() const;
  // The `n`th operation (1-based) fails with `kind`; with `sticky`, every one after it too.
  void FailAt(int64_t n, FaultKind kind, bool sticky);
  // The power goes at the `n`th operation: it and every later one fail.
  void PowerCutAt(int64_t n);
  bool power_is_cut() const;
  // After a power cut, with every connection closed: writes since each
  // file's last sync are undone — all of them, or (with `random_part`) a
  // random part chosen by `seed`, some sectors of a write kept and others
  // not — and -shm files are removed. Then the power is back.
  void DropUnsynced(bool random_part, uint64_t seed);
  // Whether any fault fired since the last Reset.
  bool fired() const;
};

}  // namespace retrace::testing

#endif  // RETRACE_TESTS_STORE_FAULT_VFS_H_
