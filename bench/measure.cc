#include "bench/measure.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <cstdlib>

namespace retrace::bench {
namespace {

// Reads `fd` to its end, then closes it.
std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

Sample Collect(pid_t pid, int read_fd) {
  Sample s;
  s.output = ReadAll(read_fd);
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  s.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;
  s.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (s.ok) s.seconds = std::strtod(s.output.c_str(), nullptr);
  s.ok = s.ok && s.seconds > 0;
  return s;
}

}  // namespace

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void RemoveDatabase(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-lock"}) std::filesystem::remove(path + suffix);
}

std::optional<std::string> OutputOfChild(const std::function<std::string()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return std::nullopt;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const std::string out = body();
    _exit(write(fds[1], out.data(), out.size()) == static_cast<ssize_t>(out.size()) ? 0 : 3);
  }
  close(fds[1]);
  std::string out = ReadAll(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return out;
}

Sample RunInChild(const std::function<double()>& body) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const double secs = body();
    const std::string out = std::to_string(secs) + "\n";
    if (write(fds[1], out.data(), out.size()) < 0) _exit(3);
    _exit(secs > 0 ? 0 : 1);
  }
  close(fds[1]);
  return Collect(pid, fds[0]);
}

Sample RunCommand(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], STDOUT_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  close(fds[1]);
  return Collect(pid, fds[0]);
}

Sample Best(int reps, const std::function<Sample()>& run) { return BestInRounds(reps, {run}).front(); }

std::vector<Sample> BestInRounds(int reps, const std::vector<std::function<Sample()>>& cases) {
  std::vector<Sample> best(cases.size());
  for (int i = 0; i < reps; ++i) {
    for (size_t c = 0; c < cases.size(); ++c) {
      // Flush what earlier samples left dirty, so its writeback does not land
      // inside this sample's timing.
      sync();
      Sample s = cases[c]();
      if (s.ok && (!best[c].ok || s.seconds < best[c].seconds)) best[c] = s;
    }
  }
  return best;
}

std::string ReadFileText(const std::string& path) {
  std::string text;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[1 << 16];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
    std::fclose(f);
  }
  return text;
}

void WriteFileText(const std::string& path, const std::string& text) {
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  }
}

}  // namespace retrace::bench
