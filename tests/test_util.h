// Shared test vocabulary: fixture access, temp dirs, line splitting.
#ifndef RETRACE_TESTS_TEST_UTIL_H_
#define RETRACE_TESTS_TEST_UTIL_H_

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <initializer_list>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace retrace::testing {

inline std::string FixturePath(const std::string& name) { return std::string(RETRACE_FIXTURE_DIR) + "/" + name; }

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Splits on '\n'; a final line without '\n' is kept.
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

// A longer log made of a raw log's text: its header, then its event lines
// `copies` times, renumbered so the seqs run on. dsh writes an event's "seq"
// (a chunk row's "seq0") right after its "type", which is where it is
// changed. REQUIRES: the last line is a plain event (a chunk row's member
// count would be needed to continue after it).
inline std::string RepeatedLog(const std::string& text, int copies) {
  const std::vector<std::string> lines = Lines(text);
  auto seq_at = [](const std::string& line) {  // where the number starts, and how long it is
    size_t at = line.find("\",\"seq");
    at = line.find(':', at) + 1;
    return std::pair<size_t, size_t>(at, line.find(',', at) - at);
  };
  const auto [last_at, last_len] = seq_at(lines.back());
  const long events = std::stol(lines.back().substr(last_at, last_len)) + 1;
  std::string out = lines.front() + "\n";
  for (int copy = 0; copy < copies; ++copy) {
    for (size_t i = 1; i < lines.size(); ++i) {
      std::string line = lines[i];
      const auto [at, len] = seq_at(line);
      line.replace(at, len, std::to_string(std::stol(line.substr(at, len)) + copy * events));
      out += line + "\n";
    }
  }
  return out;
}

// A log (after `header_line`) whose second turn starts between a `write`
// call, its content `content_bytes` long, and the call's result. dsh never
// writes one; a hand-made log may. A long content puts the middle of the
// file before the second turn, where a log cut in two pieces is cut.
inline std::string CallSplitFromItsResultLog(const std::string& header_line, size_t content_bytes) {
  return header_line + "\n" +
         R"({"type":"turn/start","seq":0,"time":1,"data":{"turn":1}})"
         "\n"
         R"({"type":"tool/call","seq":1,"time":2,"data":{"turn":1,"step":1,"callId":"c1","name":"write",)"
         R"("arguments":"{\"file_path\":\"a.txt\",\"content\":\")" +
         std::string(content_bytes, 'x') +
         R"(\"}"}})"
         "\n"
         R"({"type":"turn/start","seq":2,"time":3,"data":{"turn":2}})"
         "\n"
         R"({"type":"tool/result","seq":3,"time":4,"data":{"turn":2,"step":1,"message":{"source":{"kind":"tool",)"
         R"("callId":"c1"},"content":[{"type":"tool-result","toolCallId":"c1","content":[{"type":"text",)"
         R"("text":"Wrote a.txt"}]}]}}})"
         "\n"
         R"({"type":"turn/end","seq":4,"time":5,"data":{"turn":2,"reason":{"kind":"completed"}}})"
         "\n";
}

inline const std::vector<std::string>& RawFixtures() {
  static const std::vector<std::string> kFixtures = {
      "s1-tools-inject.jsonl", "s2-interrupted-tool.crashed.jsonl", "s2-interrupted-tool.repaired-resumed.jsonl",
      "c01-fs-read.jsonl",     "c04-bash-jobs.jsonl",               "c06-errors-policy.jsonl"};
  return kFixtures;
}

struct ShellOutcome {
  int code = -1;     // the exit status, or -1 if the command did not exit normally
  std::string out;   // whatever the command printed on the stream it was given
};

// Runs `command` through /bin/sh and captures its stdout (append "2>&1" for both).
inline ShellOutcome Shell(const std::string& command) {
  ShellOutcome r;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// The directory with Node 22 (node22/) and the upstream dsh packages
// (node_modules/@deepseek-ai/<pkg> for each of `packages`): $RETRACE_UPSTREAM,
// else bench/out/upstream (bench/setup_upstream.sh). "" when any is missing.
inline std::string UpstreamDir(std::initializer_list<const char*> packages) {
  const char* env = std::getenv("RETRACE_UPSTREAM");
  const std::string dir = env ? env : std::string(RETRACE_SOURCE_DIR) + "/bench/out/upstream";
  if (!std::filesystem::exists(dir + "/node22/package/bin/node")) return "";
  for (const char* pkg : packages) {
    if (!std::filesystem::exists(dir + "/node_modules/@deepseek-ai/" + pkg)) return "";
  }
  return dir;
}

// A fresh directory removed on destruction.
class TempDir {
 public:
  // Under `parent` (default: the system's temporary directory).
  explicit TempDir(const std::string& parent = std::filesystem::temp_directory_path().string()) {
    std::string tmpl = parent + "/retrace-test-XXXXXX";
    const char* made = mkdtemp(tmpl.data());
    path_ = made ? made : (std::filesystem::temp_directory_path() / "retrace-test-unmade").string();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

}  // namespace retrace::testing

#endif  // RETRACE_TESTS_TEST_UTIL_H_
