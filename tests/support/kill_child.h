// Child processes for the crash-safety and concurrency tests: start a program
// with its stdout and stderr on pipes, collect them, and SIGKILL it (its whole
// process group, so helpers it started die too) after a deadline or as soon
// as its output says so. Also: a program's path relative to the test binary.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace autogemm::testing {

struct ChildRun {
  std::string out, err;  ///< everything read from stdout and stderr
  bool killed = false;   ///< we sent SIGKILL (before it exited by itself)
  int exit_status = -1;  ///< exit status, -1 if it died by a signal
  int signal = 0;        ///< the signal that ended it, 0 if it exited
  double seconds = 0;    ///< wall time until it ended
};

/// A running child; start() forks and execs, wait() collects.
class Child {
 public:
  /// `env`: NAME=value entries added to the environment.
  Child(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}) {
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
      throw std::runtime_error("pipe2 failed");
    t0_ = std::chrono::steady_clock::now();
    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      setpgid(0, 0);  // its own process group: a kill reaches its helpers too
      dup2(out_pipe[1], 1);
      dup2(err_pipe[1], 2);
      for (const std::string& e : env) putenv(const_cast<char*>(e.c_str()));
      std::vector<char*> cargv;
      for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
      cargv.push_back(nullptr);
      execv(cargv[0], cargv.data());
      _exit(127);
    }
    setpgid(pid_, pid_);  // also here: no race with the kill below
    close(out_pipe[1]);
    close(err_pipe[1]);
    fds_[0] = out_pipe[0];
    fds_[1] = err_pipe[0];
  }
  ~Child() {
    if (pid_ > 0 && !reaped_) {
      kill(-pid_, SIGKILL);
      int st;
      waitpid(pid_, &st, 0);
    }
    for (int fd : fds_)
      if (fd >= 0) close(fd);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  pid_t pid() const { return pid_; }
  const ChildRun& result() const { return r_; }

  /// Reads output until the child closes both pipes, or until `deadline_s`
  /// seconds after the start (< 0: no deadline), or until `stop(out, err)`
  /// returns true; in the last two cases SIGKILLs the process group. Then
  /// drains the pipes (what the child wrote before dying is kept) and reaps it.
  const ChildRun& run(double deadline_s = -1,
                      const std::function<bool(const std::string&, const std::string&)>& stop = {}) {
    using clock = std::chrono::steady_clock;
    const auto deadline = t0_ + std::chrono::duration_cast<clock::duration>(
                                    std::chrono::duration<double>(deadline_s < 0 ? 1e9 : deadline_s));
    int st = 0;
    // After the child ended (or was killed), its pipes normally close at once;
    // a helper it left behind may hold them open: read on for 5 s at most.
    clock::time_point ended{};
    while (fds_[0] >= 0 || fds_[1] >= 0) {
      const auto now = clock::now();
      if (!reaped_ && waitpid(pid_, &st, WNOHANG) == pid_) reaped_ = true, ended = now;
      if (!reaped_ && !r_.killed && (now >= deadline || (stop && stop(r_.out, r_.err)))) kill_now();
      if (reaped_ && now - ended > std::chrono::seconds(5)) break;
      int ms = 50;
      if (!reaped_ && !r_.killed) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count();
        ms = int(std::min<long long>(std::max<long long>(left, 0), stop ? 20 : 200));
      }
      pump(ms);
    }
    if (!reaped_) waitpid(pid_, &st, 0);
    reaped_ = true;
    r_.seconds = std::chrono::duration<double>(clock::now() - t0_).count();
    if (WIFEXITED(st)) r_.exit_status = WEXITSTATUS(st);
    if (WIFSIGNALED(st)) r_.signal = WTERMSIG(st);
    return r_;
  }

  void kill_now() {
    if (r_.killed || reaped_) return;
    kill(-pid_, SIGKILL);
    r_.killed = true;
  }

 private:
  void pump(int timeout_ms) {
    pollfd p[2];
    int n = 0, which[2];
    for (int i = 0; i < 2; ++i)
      if (fds_[i] >= 0) p[n] = {fds_[i], POLLIN, 0}, which[n++] = i;
    if (n == 0) return;
    if (poll(p, nfds_t(n), timeout_ms) <= 0) return;
    for (int j = 0; j < n; ++j) {
      if (!(p[j].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[8192];
      const ssize_t got = read(p[j].fd, buf, sizeof buf);
      std::string& dest = which[j] == 0 ? r_.out : r_.err;
      if (got > 0) {
        dest.append(buf, size_t(got));
      } else {
        close(fds_[which[j]]);
        fds_[which[j]] = -1;
      }
    }
  }

  pid_t pid_ = -1;
  int fds_[2] = {-1, -1};
  bool reaped_ = false;
  ChildRun r_;
  std::chrono::steady_clock::time_point t0_;
};

/// Runs a program to completion (or SIGKILL after `deadline_s`).
inline ChildRun run_child(const std::vector<std::string>& argv, double deadline_s = -1,
                          const std::vector<std::string>& env = {}) {
  Child c(argv, env);
  return c.run(deadline_s);
}

/// `rel` (a path relative to the directory of this test binary) + "/" + name.
inline std::string beside_self(const std::string& rel, const std::string& name) {
  char self[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  std::string dir = n > 0 ? std::string(self, size_t(n)) : std::string();
  dir = dir.substr(0, dir.rfind('/'));
  return rel.empty() ? dir + "/" + name : dir + "/" + rel + "/" + name;
}

/// Lines of `text` (without the newlines; a last line without one included).
inline std::vector<std::string> text_lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace autogemm::testing
