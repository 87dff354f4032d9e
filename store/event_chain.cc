#include "store/event_chain.h"

#include <openssl/evp.h>

#include <cstring>
#include <memory>
#include <stdexcept>

namespace retrace::store {
namespace {

// SHA-256 fetched from OpenSSL's provider once: an implicit fetch on every
// digest (EVP_sha256()) looks the algorithm up again each time, which costs
// more than hashing a line.
const EVP_MD* Sha256Md() {
  static const std::unique_ptr<EVP_MD, decltype(&EVP_MD_free)> md(EVP_MD_fetch(nullptr, "SHA256", nullptr), EVP_MD_free);
  return md.get();
}

Link Sha256(std::string_view a, std::string_view b) {
  // One context per thread, reused: creating one costs more than hashing a line.
  thread_local const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  Link out{};
  unsigned int size = 0;
  if (!ctx || Sha256Md() == nullptr || EVP_DigestInit_ex2(ctx.get(), Sha256Md(), nullptr) != 1 ||
      EVP_DigestUpdate(ctx.get(), a.data(), a.size()) != 1 || EVP_DigestUpdate(ctx.get(), b.data(), b.size()) != 1 ||
      EVP_DigestFinal_ex(ctx.get(), out.data(), &size) != 1 || size != out.size()) {
    throw std::runtime_error("OpenSSL's SHA-256 failed");  // only if the library is broken
  }
  return out;
}

std::string_view View(const Link& link) { return {reinterpret_cast<const char*>(link.data()), link.size()}; }

}  // namespace

Link GenesisLink(std::string_view header_line) {
  const Link zero{};
  return Sha256(View(zero), header_line);
}

Link NextLink(const Link& previous, std::string_view line) { return Sha256(View(previous), line); }

std::string LinkHex(const Link& link) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(64);
  for (unsigned char c : link) {
    hex.push_back(kHex[c >> 4]);
    hex.push_back(kHex[c & 15]);
  }
  return hex;
}

bool ChainCheck::Fail(int64_t seq, std::string what) {
  problem_ = std::move(what);
  problem_seq_ = seq;
  return false;
}

bool ChainCheck::Add(int64_t seq, int64_t count, std::string_view line, std::string_view stored_link) {
  if (problem_) return false;
  if (seq != next_seq_) {
    return Fail(seq, seq > next_seq_ ? "events " + std::to_string(next_seq_) + ".." + std::to_string(seq - 1) +
                                           " are missing before seq " + std::to_string(seq)
                                     : "seq " + std::to_string(seq) + " comes again after seq " +
                                           std::to_string(next_seq_ - 1));
  }
  if (stored_link.empty()) return Fail(seq, "the row at seq " + std::to_string(seq) + " has no link");
  expected_ = NextLink(expected_, line);
  if (stored_link != View(expected_)) {
    return Fail(seq, "the row at seq " + std::to_string(seq) +
                         " is not what was chained: its line, or a row before it, was changed, removed or moved");
  }
  next_seq_ = seq + count;
  ++rows_;
  return true;
}

void ChainCheck::End(std::string_view pinned_head_hex) {
  if (problem_ || pinned_head_hex == LinkHex(expected_)) return;
  Fail(next_seq_, "the chain holds but its head is not the one pinned (" + std::string(pinned_head_hex) +
                      "): rows were cut from the end of the log (it now ends at seq " +
                      std::to_string(next_seq_ - 1) + "), or it was changed and every link recomputed");
}

}  // namespace retrace::store
