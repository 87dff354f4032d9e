// AppendJournal: the sequential file that makes an append durable at
// `normal` before the database has it.
//
// At Durability::kNormal an acknowledged append must survive a crash of the
// process (not of the machine). A SQLite commit gives that, but rewrites every
// page the append touches (six b-trees, 32 KiB pages: ~200 KB a commit), which
// is most of a recorded call's cost. One write(2) of the append's storage
// lines to this file gives it too: once write returns, the bytes are in the OS
// page cache, and a killed process cannot take them back. JournaledEventLog
// (journaled_event_log.h) writes each append here, answers, and folds the
// appends into the database behind the answers, in batches; when the database
// holds everything written, the file is emptied.
//
// The file lives next to the database, `<db>-appends-<pid>-<n>`, and its owner
// holds an exclusive flock on it for its life. A file nobody holds is an
// orphan: its owner died before folding it. EventStore::Open folds orphans
// into the database (FoldOrphanJournals) and removes them. A recorder whose
// appends never pause replaces its journal with a fresh one (n + 1) once it
// has grown (JournalOptions::rotate_bytes) and deletes the old one when all
// it holds is folded: so it may hold two at a moment, and orphans are folded
// in the order they were made.
//
// Layout: the 8-byte magic "RTRCAPJ1" and the 36-byte boot id of the machine
// that wrote it (/proc/sys/kernel/random/boot_id), then frames:
//   u32 payload length · u32 CRC-32C of the payload · payload
//   payload = u32 session-id length · session id · i64 first seq · u32 count ·
//             count × (u32 length · storage line)
// integers little-endian. A frame is one write(2), and the file is never
// fsynced (`normal` does not promise to outlive the machine).
//
// What a fold may meet:
//  - After a process crash (the same boot): the page cache kept every byte
//    written, so at most the last frame is incomplete — the one being written
//    when the process died, never acknowledged — and it is dropped. A bad frame
//    anywhere else is corruption: the open fails naming the file and the byte,
//    and the file is kept.
//  - After a machine crash (another boot): any part of the file may be lost,
//    as may the database's latest unsynced commits. The frames are folded in
//    order while they are whole and continue the session; the first that does
//    not, and all after it, are the most recent appends, which `normal` may
//    lose: they are dropped.
#ifndef RETRACE_STORE_APPEND_JOURNAL_H_
#define RETRACE_STORE_APPEND_JOURNAL_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <retrace/engine/base/status.h>
#include <retrace/engine/base/unique_fd.h>

namespace retrace::store {

// One append read back from a journal.
struct JournalFrame {
  std::string session_id;
  int64_t first_seq = 0;
  std::vector<std::string> lines;  // storage lines, seq first_seq, first_seq + 1, ...
};

class AppendJournal {
 public:
  // Creates a fresh journal next to the database at `db_path`, locked by this object.
  static Result<AppendJournal> Create(const std::string& db_path);

  AppendJournal(AppendJournal&& other) noexcept;
  AppendJournal& operator=(AppendJournal&&) = delete;
  // Closes the file and releases its lock; the file stays (Remove() deletes it).
  ~AppendJournal();

  // Appends one frame with one write(2). On failure the file is cut back to
  // where it was, so a later frame never follows a torn one.
  Status Write(std::string_view session_id, int64_t first_seq, std::span<const std::string_view> lines);
  // Bytes written so far (the header included): what a fold has caught up with.
  uint64_t size() const { return size_; }
  // Empties the file (back to its header): every frame is in the database.
  Status Reset();
  // Deletes the file, then closes it.
  Status Remove();
  const std::string& path() const { return path_; }

 private:
  AppendJournal(std::string path, base::UniqueFd fd, uint64_t size)
      : path_(std::move(path)), fd_(std::move(fd)), size_(size) {}
  std::string path_;
  base::UniqueFd fd_;
  uint64_t size_ = 0;
};

// A journal's contents: its frames up to the first bad or incomplete one.
struct JournalContents {
  std::string boot_id;  // of the machine that wrote it
  std::vector<JournalFrame> frames;
  // Where the frames stopped before the end of the file, and why (empty: they did not).
  size_t bad_at = 0;
  std::string bad;
  bool last_frame_torn = false;  // the bad frame is the last and incomplete or failing its checksum
};
Result<JournalContents> ReadJournal(const std::string& path);

// A frame's checksum, CRC-32C: with the CPU's instruction where it has one;
// the portable form gives the same values everywhere (tests compare them).
uint32_t JournalChecksum(std::string_view bytes);
uint32_t JournalChecksumPortable(std::string_view bytes);

// This machine's boot id ("" when it cannot be read).
const std::string& CurrentBootId();

// The journals next to the database at `db_path` that no live process holds,
// each locked by the returned descriptor while the caller folds it
// (ReleaseOrphan closes it; RemoveOrphan deletes the file first).
struct OrphanJournal {
  std::string path;
  base::UniqueFd fd;
};
Result<std::vector<OrphanJournal>> LockOrphanJournals(const std::string& db_path);
Status RemoveOrphan(OrphanJournal& orphan);
void ReleaseOrphan(OrphanJournal& orphan);

}  // namespace retrace::store

#endif  // RETRACE_STORE_APPEND_JOURNAL_H_
