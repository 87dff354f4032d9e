// The tamper-evident chain of a session's stored rows (`retrace verify`).
//
// Each storage row (one event, or one packed chunk row) carries a link:
//   link(row) = SHA-256(link(previous row) || the row's exact stored line)
// and the first row's previous link is the session's genesis:
//   genesis = SHA-256(32 zero bytes || the session's verbatim header line)
// so that a changed byte anywhere, a row removed, duplicated or moved, or a
// changed header, breaks every link from there on. The links depend on the
// lines alone: a session exported and imported elsewhere has the same head.
// What the chain alone cannot tell is a log cut short at its end (the rows
// left still chain) or one whose links were all recomputed by whoever edited
// it: the head (the last link), pinned somewhere else (`retrace verify
// --head`) and compared later (`--pinned`), is what catches those.
#ifndef RETRACE_STORE_EVENT_CHAIN_H_
#define RETRACE_STORE_EVENT_CHAIN_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace retrace::store {

using Link = std::array<unsigned char, 32>;

Link GenesisLink(std::string_view header_line);
Link NextLink(const Link& previous, std::string_view line);
std::string LinkHex(const Link& link);

// Recomputes a session's chain row by row, in stored order, and says where
// it first breaks.
class ChainCheck {
 public:
  explicit ChainCheck(std::string_view header_line) : expected_(GenesisLink(header_line)) {}

  // The next stored row: its first seq, its count of events, its line and
  // its stored link (empty: none). False once the chain is broken (then
  // problem() says where and how).
  bool Add(int64_t seq, int64_t count, std::string_view line, std::string_view stored_link);

  // After the last row: the head pinned earlier, as hex. A chain that holds
  // but ends elsewhere (rows cut from the end, or every link recomputed) is
  // caught here.
  void End(std::string_view pinned_head_hex);

  const std::optional<std::string>& problem() const { return problem_; }
  std::optional<int64_t> problem_seq() const { return problem_seq_; }
  int64_t rows() const { return rows_; }
  int64_t events() const { return next_seq_; }
  // The last link recomputed: the session's head.
  const Link& head() const { return expected_; }

 private:
  bool Fail(int64_t seq, std::string what);

  Link expected_;
  int64_t next_seq_ = 0;
  int64_t rows_ = 0;
  std::optional<std::string> problem_;
  std::optional<int64_t> problem_seq_;
};

}  // namespace retrace::store

#endif  // RETRACE_STORE_EVENT_CHAIN_H_
