#include "tests/store/fault_vfs.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <vector>

namespace retrace::testing {
namespace {

// What a file held before one write or truncate since its last sync.
struct Undo {
  int64_t offset = 0;
  int64_t length = 0;    // bytes the write covered (a truncate: the bytes cut off)
  std::string old;       // their old content, as far as the file reached
  int64_t old_size = 0;  // the file's size before
};

struct State {
  std::mutex mu;
  int64_t ops = 0;
  int64_t fail_at = 0;
  FaultKind kind = FaultKind::kEio;
  bool sticky = false;
  int64_t cut_at = 0;
  bool cut = false;
  bool fired = false;
  std::map<std::string, std::vector<Undo>> unsynced;  // path → since its last sync (power-cut mode)
  std::set<std::string> main_dbs;
};

State& S() {
  static State s;
  return s;
}

sqlite3_vfs* g_real = nullptr;

struct File {
  sqlite3_file base;
  std::string* path;  // null for a temporary file
  sqlite3_file* real;
};
sqlite3_file* Real(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real; }
const std::string* PathOf(sqlite3_file* f) { return reinterpret_cast<File*>(f)->path; }

enum class Verdict { kGo, kFail, kPartial };

// Counts one operation and says whether it fails.
Verdict Count(bool is_write) {
  State& s = S();
  std::lock_guard lock(s.mu);
  const int64_t n = ++s.ops;
  if (s.cut) return Verdict::kFail;
  if (s.cut_at > 0 && n >= s.cut_at) {
    s.cut = s.fired = true;
    return Verdict::kFail;
  }
  if (s.fail_at > 0 && (n == s.fail_at || (s.sticky && n > s.fail_at))) {
    s.fired = true;
    return s.kind == FaultKind::kPartialWrite && is_write ? Verdict::kPartial : Verdict::kFail;
  }
  return Verdict::kGo;
}

int FailCode(int eio) {
  std::lock_guard lock(S().mu);
  return S().kind == FaultKind::kEnospc && !S().cut && eio == SQLITE_IOERR_WRITE ? SQLITE_FULL : eio;
}

bool Remembering() {
  std::lock_guard lock(S().mu);
  return S().cut_at > 0;
}

// Records what [offset, offset + length) held, before a write or truncate changes it.
void Remember(sqlite3_file* f, int64_t offset, int64_t length) {
  const std::string* path = PathOf(f);
  if (!path || !Remembering()) return;
  sqlite3_int64 size = 0;
  if (Real(f)->pMethods->xFileSize(Real(f), &size) != SQLITE_OK) return;
  Undo u{offset, length, {}, size};
  const int64_t have = std::max<int64_t>(0, std::min<int64_t>(offset + length, size) - offset);
  u.old.resize(static_cast<size_t>(have));
  if (have > 0) (void)Real(f)->pMethods->xRead(Real(f), u.old.data(), static_cast<int>(have), offset);
  std::lock_guard lock(S().mu);
  S().unsynced[*path].push_back(std::move(u));
}

int Close(sqlite3_file* f) {
  File* file = reinterpret_cast<File*>(f);
  const int rc = file->real->pMethods ? file->real->pMethods->xClose(file->real) : SQLITE_OK;
  delete file->path;
  sqlite3_free(file->real);
  return rc;
}
int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
  if (Count(false) != Verdict::kGo) return FailCode(SQLITE_IOERR_READ);
  return Real(f)->pMethods->xRead(Real(f), buf, n, off);
}
int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
  const Verdict v = Count(true);
  if (v == Verdict::kFail) return FailCode(SQLITE_IOERR_WRITE);
  Remember(f, off, n);
  if (v == Verdict::kPartial) {
    (void)Real(f)->pMethods->xWrite(Real(f), buf, n / 2, off);
    return SQLITE_IOERR_WRITE;
  }
  return Real(f)->pMethods->xWrite(Real(f), buf, n, off);
}
int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  if (Count(false) != Verdict::kGo) return FailCode(SQLITE_IOERR_TRUNCATE);
  sqlite3_int64 now = 0;
  if (Real(f)->pMethods->xFileSize(Real(f), &now) == SQLITE_OK && now > size) Remember(f, size, now - size);
  return Real(f)->pMethods->xTruncate(Real(f), size);
}
int Sync(sqlite3_file* f, int flags) {
  if (Count(false) != Verdict::kGo) return FailCode(SQLITE_IOERR_FSYNC);
  const int rc = Real(f)->pMethods->xSync(Real(f), flags);
  if (rc == SQLITE_OK && PathOf(f)) {
    std::lock_guard lock(S().mu);
    S().unsynced.erase(*PathOf(f));
  }
  return rc;
}
int FileSize(sqlite3_file* f, sqlite3_int64* size) { return Real(f)->pMethods->xFileSize(Real(f), size); }
int Lock(sqlite3_file* f, int level) {
  if (Count(false) != Verdict::kGo) return FailCode(SQLITE_IOERR_LOCK);
  return Real(f)->pMethods->xLock(Real(f), level);
}
int Unlock(sqlite3_file* f, int level) { return Real(f)->pMethods->xUnlock(Real(f), level); }
int CheckReserved(sqlite3_file* f, int* out) { return Real(f)->pMethods->xCheckReservedLock(Real(f), out); }
int FileControl(sqlite3_file* f, int op, void* arg) { return Real(f)->pMethods->xFileControl(Real(f), op, arg); }
int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
int DeviceCharacteristics(sqlite3_file* f) { return Real(f)->pMethods->xDeviceCharacteristics(Real(f)); }
int ShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** p) {
  return Real(f)->pMethods->xShmMap(Real(f), region, size, extend, p);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) { return Real(f)->pMethods->xShmLock(Real(f), offset, n, flags); }
void ShmBarrier(sqlite3_file* f) { Real(f)->pMethods->xShmBarrier(Real(f)); }
int ShmUnmap(sqlite3_file* f, int del) { return Real(f)->pMethods->xShmUnmap(Real(f), del); }
int Fetch(sqlite3_file* f, sqlite3_int64 off, int n, void** p) { return Real(f)->pMethods->xFetch(Real(f), off, n, p); }
int Unfetch(sqlite3_file* f, sqlite3_int64 off, void* p) { return Real(f)->pMethods->xUnfetch(Real(f), off, p); }

const sqlite3_io_methods kMethods = {3,        Close,     Read,          Write,       Truncate,        Sync,
                                     FileSize, Lock,      Unlock,        CheckReserved, FileControl, SectorSize,
                                     DeviceCharacteristics, ShmMap, ShmLock, ShmBarrier, ShmUnmap, Fetch, Unfetch};

int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out_flags) {
  File* file = reinterpret_cast<File*>(f);
  file->base.pMethods = nullptr;
  file->path = name ? new std::string(name) : nullptr;
  file->real = static_cast<sqlite3_file*>(sqlite3_malloc(g_real->szOsFile));
  std::memset(file->real, 0, static_cast<size_t>(g_real->szOsFile));
  const int rc = g_real->xOpen(g_real, name, file->real, flags, out_flags);
  if (rc != SQLITE_OK) {
    delete file->path;
    sqlite3_free(file->real);
    return rc;
  }
  if (file->path && (flags & SQLITE_OPEN_MAIN_DB)) {
    std::lock_guard lock(S().mu);
    S().main_dbs.insert(*file->path);
  }
  file->base.pMethods = &kMethods;
  return SQLITE_OK;
}
int Delete(sqlite3_vfs*, const char* name, int sync) {
  {
    std::lock_guard lock(S().mu);
    if (S().cut) return SQLITE_IOERR_DELETE;
    S().unsynced.erase(name);
  }
  return g_real->xDelete(g_real, name, sync);
}
int Access(sqlite3_vfs*, const char* name, int flags, int* out) { return g_real->xAccess(g_real, name, flags, out); }
int FullPathname(sqlite3_vfs*, const char* name, int n, char* out) { return g_real->xFullPathname(g_real, name, n, out); }
void* DlOpen(sqlite3_vfs*, const char* name) { return g_real->xDlOpen(g_real, name); }
void DlError(sqlite3_vfs*, int n, char* msg) { g_real->xDlError(g_real, n, msg); }
void (*DlSym(sqlite3_vfs*, void* h, const char* sym))(void) { return g_real->xDlSym(g_real, h, sym); }
void DlClose(sqlite3_vfs*, void* h) { g_real->xDlClose(g_real, h); }
int Randomness(sqlite3_vfs*, int n, char* out) { return g_real->xRandomness(g_real, n, out); }
int Sleep(sqlite3_vfs*, int us) { return g_real->xSleep(g_real, us); }
int CurrentTime(sqlite3_vfs*, double* t) { return g_real->xCurrentTime(g_real, t); }
int GetLastError(sqlite3_vfs*, int n, char* msg) { return g_real->xGetLastError(g_real, n, msg); }
int CurrentTimeInt64(sqlite3_vfs*, sqlite3_int64* t) { return g_real->xCurrentTimeInt64(g_real, t); }

sqlite3_vfs g_vfs;

std::string ReadAll(int fd) {
  std::string out;
  char buf[1 << 16];
  ssize_t n;
  off_t at = 0;
  while ((n = ::pread(fd, buf, sizeof buf, at)) > 0) {
    out.append(buf, static_cast<size_t>(n));
    at += n;
  }
  return out;
}

// Puts one file back as a power loss leaves it: every unsynced byte lost, or
// each touched 512-byte sector lost or kept at random.
void Restore(const std::string& path, const std::vector<Undo>& undo, bool random_part, std::mt19937_64& rng) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return;  // deleted since
  const std::string now = ReadAll(fd);
  int64_t extent = static_cast<int64_t>(now.size());
  for (const Undo& u : undo) extent = std::max({extent, u.offset + u.length, u.old_size});
  std::string synced = now;
  synced.resize(static_cast<size_t>(extent), '\0');
  for (auto it = undo.rbegin(); it != undo.rend(); ++it) {  // the earliest record's old bytes win
    std::memcpy(synced.data() + it->offset, it->old.data(), it->old.size());
    const int64_t past = it->offset + static_cast<int64_t>(it->old.size());
    std::memset(synced.data() + past, 0, static_cast<size_t>(it->offset + it->length - past));
  }
  const int64_t synced_size = undo.front().old_size;
  std::string out;
  int64_t size;
  if (!random_part) {
    out = synced.substr(0, static_cast<size_t>(synced_size));
    size = synced_size;
  } else {
    out = now;
    out.resize(static_cast<size_t>(extent), '\0');
    for (int64_t s = 0; s < extent; s += 512) {
      const size_t n = static_cast<size_t>(std::min<int64_t>(512, extent - s));
      if (std::memcmp(out.data() + s, synced.data() + s, n) != 0 && rng() % 2 == 0) {
        std::memcpy(out.data() + s, s < synced_size ? synced.data() + s : std::string(n, '\0').data(), n);
      }
    }
    size = rng() % 2 == 0 ? static_cast<int64_t>(now.size()) : synced_size;  // the size change reached the disk, or not
    out.resize(static_cast<size_t>(size), '\0');
  }
  (void)!::pwrite(fd, out.data(), out.size(), 0);
  (void)!::ftruncate(fd, size);
  ::close(fd);
}

}  // namespace

FaultVfs& FaultVfs::Install() {
  static FaultVfs vfs;
  static std::once_flag once;
  std::call_once(once, [] {
    g_real = sqlite3_vfs_find(nullptr);
    g_vfs = *g_real;
    g_vfs.iVersion = 2;
    g_vfs.szOsFile = sizeof(File);
    g_vfs.zName = "retrace-fault";
    g_vfs.pNext = nullptr;
    g_vfs.pAppData = nullptr;
    g_vfs.xOpen = Open;
    g_vfs.xDelete = Delete;
    g_vfs.xAccess = Access;
    g_vfs.xFullPathname = FullPathname;
    g_vfs.xDlOpen = DlOpen;
    g_vfs.xDlError = DlError;
    g_vfs.xDlSym = DlSym;
    g_vfs.xDlClose = DlClose;
    g_vfs.xRandomness = Randomness;
    g_vfs.xSleep = Sleep;
    g_vfs.xCurrentTime = CurrentTime;
    g_vfs.xGetLastError = GetLastError;
    g_vfs.xCurrentTimeInt64 = CurrentTimeInt64;
    sqlite3_vfs_register(&g_vfs, /*makeDflt=*/1);
  });
  return vfs;
}

void FaultVfs::Reset() {
  std::lock_guard lock(S().mu);
  State& s = S();
  s.ops = s.fail_at = s.cut_at = 0;
  s.cut = s.fired = s.sticky = false;
  s.unsynced.clear();
}

int64_t FaultVfs::operations() const {
  std::lock_guard lock(S().mu);
  return S().ops;
}

void FaultVfs::FailAt(int64_t n, FaultKind kind, bool sticky) {
  std::lock_guard lock(S().mu);
  S().fail_at = n;
  S().kind = kind;
  S().sticky = sticky;
}

void FaultVfs::PowerCutAt(int64_t n) {
  std::lock_guard lock(S().mu);
  S().cut_at = n;
}

bool FaultVfs::power_is_cut() const {
  std::lock_guard lock(S().mu);
  return S().cut;
}

bool FaultVfs::fired() const {
  std::lock_guard lock(S().mu);
  return S().fired;
}

void FaultVfs::DropUnsynced(bool random_part, uint64_t seed) {
  std::map<std::string, std::vector<Undo>> unsynced;
  std::set<std::string> dbs;
  {
    std::lock_guard lock(S().mu);
    unsynced.swap(S().unsynced);
    dbs = S().main_dbs;
  }
  std::mt19937_64 rng(seed);
  for (const auto& [path, undo] : unsynced) {
    if (!undo.empty()) Restore(path, undo, random_part, rng);
  }
  for (const std::string& db : dbs) ::unlink((db + "-shm").c_str());  // shared memory is gone
  Reset();
}

}  // namespace retrace::testing
