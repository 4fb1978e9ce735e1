// autogemm_run: runs an unmodified program with its cuBLAS FP32 GEMMs answered
// by autogemm (libautogemm_cublas through LD_PRELOAD).
//
//   autogemm_run -- python train.py                  tuned plans, strict FP32
//   autogemm_run --math-mode fp32_accurate -- ./app  3xTF32 where it is faster
//   autogemm_run --record -- ./app                   then gemm_tune --from-record
//   autogemm_run --tune-online -- ./app              tune shapes as they appear
//
// It sets the environment the drop-in and libautogemm read, then replaces
// itself with the program (exec): the program's exit status is its own.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <climits>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string math_mode = "";
  bool record = false, tune_online = false, off = false, quiet = false;
  std::string cache;
  std::vector<std::string> command;
};

/// The drop-in beside this tool: $AUTOGEMM_CUBLAS_LIBRARY, else ../<libdir>
/// or ../lib from the tool's own folder (installed and build trees alike).
std::string find_dropin() {
  if (const char* p = std::getenv("AUTOGEMM_CUBLAS_LIBRARY"); p && *p) return p;
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return "";
  self[n] = 0;
  std::string dir(self);
  dir = dir.substr(0, dir.rfind('/'));
  for (const std::string& rel : {std::string("/../") + AUTOGEMM_RUN_LIBDIR, std::string("/../lib")}) {
    const std::string path = dir + rel + "/libautogemm_cublas.so." AUTOGEMM_RUN_SOVERSION;
    if (access(path.c_str(), R_OK) == 0) return path;
  }
  return "";
}

/// The variables the drop-in and libautogemm read, for these options.
bool set_environment(const Options& o, const std::string& dropin) {
  const char* old = std::getenv("LD_PRELOAD");
  const std::string preload = old && *old ? dropin + ":" + old : dropin;
  bool ok = setenv("LD_PRELOAD", preload.c_str(), 1) == 0;
  if (!o.math_mode.empty()) ok &= setenv("AUTOGEMM_MATH_MODE", o.math_mode.c_str(), 1) == 0;
  if (o.record) ok &= setenv("AUTOGEMM_RECORD_UNTUNED", "1", 1) == 0;
  if (o.tune_online) ok &= setenv("AUTOGEMM_TUNE", "1", 1) == 0;
  if (!o.cache.empty()) ok &= setenv("AUTOGEMM_CACHE", o.cache.c_str(), 1) == 0;
  if (o.off) ok &= setenv("AUTOGEMM_CUBLAS", "0", 1) == 0;
  // The drop-in's exit report is logged at level info.
  if (!o.quiet) ok &= setenv("AUTOGEMM_LOG_LEVEL", "info", 0) == 0;
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"autogemm_run: runs a program with its cuBLAS FP32 GEMMs on autogemm (LD_PRELOAD of libautogemm_cublas)."};
  app.add_option("--math-mode", o.math_mode, "strict (FFMA, the default) or fp32_accurate (3xTF32 tensor cores too)")
      ->check(CLI::IsMember({"strict", "fp32_accurate"}));
  app.add_flag("--record", o.record, "record the shapes the program runs, for gemm_tune --from-record");
  app.add_flag("--tune-online", o.tune_online, "tune each untuned shape in the background as it first appears");
  app.add_option("--cache", o.cache, "tuning cache file (default: $AUTOGEMM_CACHE or ~/.cache/autogemm/tuning.db)");
  app.add_flag("--off", o.off, "load the drop-in but send every call to cuBLAS (AUTOGEMM_CUBLAS=0)");
  app.add_flag("--quiet", o.quiet, "no exit report (keep AUTOGEMM_LOG_LEVEL as it is)");
  app.add_option("command", o.command, "the program and its arguments, after --")->required();
  app.positionals_at_end();
  CLI11_PARSE(app, argc, argv);

  const std::string dropin = find_dropin();
  if (dropin.empty()) {
    std::fprintf(stderr, "autogemm_run: libautogemm_cublas.so not found beside this tool; set AUTOGEMM_CUBLAS_LIBRARY to its path\n");
    return 127;
  }
  if (!set_environment(o, dropin)) {
    std::perror("autogemm_run: setenv");
    return 127;
  }
  std::vector<char*> args;
  for (std::string& a : o.command) args.push_back(a.data());
  args.push_back(nullptr);
  execvp(args[0], args.data());
  std::fprintf(stderr, "autogemm_run: cannot run %s: %s\n", args[0], std::strerror(errno));
  return 127;
}
