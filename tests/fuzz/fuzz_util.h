// Helpers shared by the fuzz targets (tests/fuzz/fuzz_*.cpp).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace autogemm_fuzz {

/// Aborts with a message: an invariant of the code under test does not hold.
/// abort() is what libFuzzer (and the replay test) report as a crash.
[[noreturn]] inline void invariant_failed(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n  %s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

#define FUZZ_CHECK(cond, detail)                                  \
  do {                                                            \
    if (!(cond)) ::autogemm_fuzz::invariant_failed(#cond, (detail)); \
  } while (0)

/// A private directory for this process, created once (0700) under $TMPDIR or
/// /tmp and removed at exit when empty.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    const char* t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/autogemm-fuzz-XXXXXX";
    if (!mkdtemp(tmpl.data())) {
      std::perror("mkdtemp");
      std::abort();
    }
    static std::string removed_at_exit;
    removed_at_exit = tmpl;
    std::atexit([] { rmdir(removed_at_exit.c_str()); });
    return tmpl;
  }();
  return dir;
}

/// Writes `data` to `path` (truncating); aborts if that fails (not a finding).
inline void write_file(const std::string& path, const uint8_t* data, size_t size) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::perror(path.c_str());
    std::abort();
  }
  if (size > 0 && std::fwrite(data, 1, size, f) != size) {
    std::perror(path.c_str());
    std::abort();
  }
  std::fclose(f);
}

}  // namespace autogemm_fuzz
