// run_command: a shell command's exit status and its stdout and stderr
// together, for tests that drive the built tools as child processes.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace autogemm::testing {

struct CommandOutput {
  int status = -1;   ///< exit status; -1 if it did not exit normally
  std::string text;  ///< stdout and stderr, interleaved
};

inline CommandOutput run_command(const std::string& cmd) {
  CommandOutput out;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return out;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.text.append(buf.data(), n);
  const int st = pclose(p);
  out.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return out;
}

}  // namespace autogemm::testing
