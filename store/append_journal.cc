#include "store/append_journal.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/crc.hpp>

namespace retrace::store {
namespace {

constexpr std::string_view kMagic = "RTRCAPJ1";
constexpr size_t kBootIdSize = 36;  // a UUID's text
constexpr size_t kHeaderSize = 8 + kBootIdSize;
constexpr size_t kFrameHead = 8;  // length, CRC

std::string Errno(std::string_view what, const std::string& path) {
  return std::string(what) + " " + path + ": " + std::strerror(errno);
}

// CRC-32C (Castagnoli), the checksum of LevelDB's and RocksDB's logs. Every
// append computes one on the thread that answers, so it uses the CPU's crc32
// instruction where there is one (SSE 4.2), and Boost's table otherwise.
uint32_t CrcPortable(std::string_view bytes) {
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) uint32_t CrcSse42(std::string_view bytes) {
  uint64_t crc = 0xFFFFFFFF;
  const char* p = bytes.data();
  size_t n = bytes.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    crc = __builtin_ia32_crc32di(crc, word);
  }
  auto crc32 = static_cast<uint32_t>(crc);
  for (; n > 0; ++p, --n) crc32 = __builtin_ia32_crc32qi(crc32, static_cast<unsigned char>(*p));
  return crc32 ^ 0xFFFFFFFF;
}
#endif

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
void PutI64(std::string& out, int64_t v) {
  const auto u = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) out += static_cast<char>((u >> (8 * i)) & 0xff);
}

// Reads little-endian integers and byte strings off a payload; any read past
// its end marks it bad.
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}
  uint64_t Uint(int bytes) {
    if (s_.size() - at_ < static_cast<size_t>(bytes)) return bad_ = true, 0;
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(s_[at_ + i])) << (8 * i);
    at_ += bytes;
    return v;
  }
  std::string Bytes(uint64_t n) {
    if (s_.size() - at_ < n) return bad_ = true, std::string();
    std::string out(s_.substr(at_, n));
    at_ += n;
    return out;
  }
  bool ok_and_done() const { return !bad_ && at_ == s_.size(); }

 private:
  std::string_view s_;
  size_t at_ = 0;
  bool bad_ = false;
};

std::string JournalPrefix(const std::string& db_path) {
  return std::filesystem::path(db_path).filename().string() + "-appends-";
}

// Where a journal named `<prefix><pid>-<n>` sorts among the orphans: in the
// order it was made, by (pid, n). A name of another shape sorts last.
std::pair<uint64_t, uint64_t> JournalOrder(std::string_view pid_and_n) {
  constexpr std::pair<uint64_t, uint64_t> kLast{UINT64_MAX, UINT64_MAX};
  const char* const end = pid_and_n.data() + pid_and_n.size();
  uint64_t pid = 0;
  uint64_t n = 0;
  const auto [dash, pid_error] = std::from_chars(pid_and_n.data(), end, pid);
  if (pid_error != std::errc() || dash == end || *dash != '-') return kLast;
  const auto [after, n_error] = std::from_chars(dash + 1, end, n);
  if (n_error != std::errc() || after != end) return kLast;
  return {pid, n};
}

std::filesystem::path JournalDir(const std::string& db_path) {
  std::filesystem::path dir = std::filesystem::path(db_path).parent_path();
  return dir.empty() ? std::filesystem::path(".") : dir;
}

Status WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::IoError(n < 0 ? std::strerror(errno) : "no progress");
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

}  // namespace

uint32_t JournalChecksum(std::string_view bytes) {
#if defined(__x86_64__)
  static const bool sse42 = __builtin_cpu_supports("sse4.2");
  if (sse42) return CrcSse42(bytes);
#endif
  return CrcPortable(bytes);
}

uint32_t JournalChecksumPortable(std::string_view bytes) { return CrcPortable(bytes); }

Result<AppendJournal> AppendJournal::Create(const std::string& db_path) {
  static std::atomic<uint64_t> counter{0};
  const std::filesystem::path dir = JournalDir(db_path);
  const std::string prefix = JournalPrefix(db_path) + std::to_string(::getpid()) + "-";
  // Made under a name orphan scans ignore and locked before it gets its own,
  // so no scan ever finds it unlocked.
  const std::string temp = (dir / ("." + prefix + std::to_string(counter++) + ".new")).string();
  base::UniqueFd fd(::open(temp.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600));
  if (!fd) return Status::IoError(Errno("cannot create the append journal", temp));
  auto fail = [&](const std::string& why) {
    fd.reset();
    ::unlink(temp.c_str());
    return Status::IoError(why);
  };
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return fail(Errno("cannot lock the append journal", temp));
  std::string header(kMagic);
  header += CurrentBootId();
  header.resize(kHeaderSize, '-');  // no boot id to be had: one no boot will match
  if (!WriteAll(fd.get(), header).ok()) return fail(Errno("cannot write the append journal", temp));
  while (true) {
    const std::string path = (dir / (prefix + std::to_string(counter++))).string();
    // link() refuses an existing name (a dead process's orphan with our pid): take the next.
    if (::link(temp.c_str(), path.c_str()) == 0) {
      ::unlink(temp.c_str());
      return AppendJournal(path, std::move(fd), kHeaderSize);
    }
    if (errno != EEXIST) return fail(Errno("cannot name the append journal", path));
  }
}

AppendJournal::AppendJournal(AppendJournal&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::move(other.fd_)), size_(other.size_) {}

AppendJournal::~AppendJournal() = default;

Status AppendJournal::Write(std::string_view session_id, int64_t first_seq, std::span<const std::string_view> lines) {
  if (!fd_) return Status::FailedPrecondition("the append journal is closed");
  std::string frame(kFrameHead, '\0');
  PutU32(frame, static_cast<uint32_t>(session_id.size()));
  frame += session_id;
  PutI64(frame, first_seq);
  PutU32(frame, static_cast<uint32_t>(lines.size()));
  for (std::string_view line : lines) {
    PutU32(frame, static_cast<uint32_t>(line.size()));
    frame += line;
  }
  const std::string_view payload = std::string_view(frame).substr(kFrameHead);
  std::string head;
  PutU32(head, static_cast<uint32_t>(payload.size()));
  PutU32(head, JournalChecksum(payload));
  frame.replace(0, kFrameHead, head);
  if (Status st = WriteAll(fd_.get(), frame); !st.ok()) {
    // Cut a partial frame off, so the next one does not follow it.
    if (::ftruncate(fd_.get(), static_cast<off_t>(size_)) != 0) {
      fd_.reset();  // the file is kept as it is: a fold drops its torn end
    }
    return Status::IoError("cannot write the append journal " + path_ + ": " + st.message());
  }
  size_ += frame.size();
  return Status::Ok();
}

Status AppendJournal::Reset() {
  if (!fd_) return Status::FailedPrecondition("the append journal is closed");
  if (::ftruncate(fd_.get(), static_cast<off_t>(kHeaderSize)) != 0) {
    return Status::IoError(Errno("cannot empty the append journal", path_));
  }
  size_ = kHeaderSize;
  return Status::Ok();
}

Status AppendJournal::Remove() {
  if (!fd_) return Status::Ok();
  Status st = ::unlink(path_.c_str()) == 0 ? Status::Ok() : Status::IoError(Errno("cannot remove", path_));
  fd_.reset();
  return st;
}

const std::string& CurrentBootId() {
  static const std::string id = [] {
    std::string text;
    if (const base::UniqueFd fd(::open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)); fd) {
      char buf[64];
      const ssize_t n = ::read(fd.get(), buf, sizeof buf);
      if (n > 0) text.assign(buf, static_cast<size_t>(n));
    }
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text.size() == kBootIdSize ? text : std::string();
  }();
  return id;
}

Result<JournalContents> ReadJournal(const std::string& path) {
  std::string bytes;
  {
    const base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return Status::IoError(Errno("cannot open the append journal", path));
    char buf[1 << 16];
    while (true) {
      const ssize_t n = ::read(fd.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Status::IoError(Errno("cannot read the append journal", path));
      if (n == 0) break;
      bytes.append(buf, static_cast<size_t>(n));
    }
  }
  JournalContents out;
  if (bytes.size() < kHeaderSize) {  // its process died while making it: nothing was acknowledged
    return out;
  }
  if (std::string_view(bytes).substr(0, kMagic.size()) != kMagic) {
    return Status::Corruption("append journal " + path + " does not start with " + std::string(kMagic));
  }
  out.boot_id = bytes.substr(kMagic.size(), kBootIdSize);
  size_t at = kHeaderSize;
  auto stop = [&](std::string why, bool torn) {
    out.bad_at = at;
    out.bad = std::move(why);
    out.last_frame_torn = torn;
    return out;
  };
  while (at < bytes.size()) {
    Cursor head(std::string_view(bytes).substr(at, std::min(kFrameHead, bytes.size() - at)));
    const uint64_t length = head.Uint(4);
    const auto crc = static_cast<uint32_t>(head.Uint(4));
    if (!head.ok_and_done() || bytes.size() - at - kFrameHead < length) return stop("is cut short", true);
    const std::string_view payload = std::string_view(bytes).substr(at + kFrameHead, length);
    const bool last = at + kFrameHead + length == bytes.size();
    if (JournalChecksum(payload) != crc) return stop("fails its checksum", last);
    Cursor c(payload);
    JournalFrame frame;
    frame.session_id = c.Bytes(c.Uint(4));
    frame.first_seq = static_cast<int64_t>(c.Uint(8));
    const uint64_t count = c.Uint(4);
    for (uint64_t i = 0; i < count && !c.ok_and_done(); ++i) frame.lines.push_back(c.Bytes(c.Uint(4)));
    if (!c.ok_and_done() || frame.lines.size() != count || count == 0) return stop("is malformed", false);
    out.frames.push_back(std::move(frame));
    at += kFrameHead + length;
  }
  return out;
}

Result<std::vector<OrphanJournal>> LockOrphanJournals(const std::string& db_path) {
  // In the order they were made: a recorder that replaced its journal
  // (JournalOptions::rotate_bytes) may leave two, whose frames follow on.
  std::vector<std::pair<std::pair<uint64_t, uint64_t>, OrphanJournal>> found;
  const std::string prefix = JournalPrefix(db_path);
  std::error_code ec;
  std::filesystem::directory_iterator it(JournalDir(db_path), ec);
  if (ec) return std::vector<OrphanJournal>{};  // no directory to look in: no journals
  for (const std::filesystem::directory_entry& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string path = entry.path().string();
    base::UniqueFd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
    if (!fd) continue;                                               // removed since the listing
    if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) continue;         // its process is alive
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || st.st_nlink == 0) continue;  // folded and removed by another process meanwhile
    found.emplace_back(JournalOrder(std::string_view(name).substr(prefix.size())), OrphanJournal{path, std::move(fd)});
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second.path) < std::tie(b.first, b.second.path);
  });
  std::vector<OrphanJournal> out;
  out.reserve(found.size());
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

Status RemoveOrphan(OrphanJournal& orphan) {
  Status st = ::unlink(orphan.path.c_str()) == 0 ? Status::Ok() : Status::IoError(Errno("cannot remove", orphan.path));
  ReleaseOrphan(orphan);
  return st;
}

void ReleaseOrphan(OrphanJournal& orphan) { orphan.fd.reset(); }

}  // namespace retrace::store
