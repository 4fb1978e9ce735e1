#include "autogemm/online_tuner.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "autogemm/log.h"
#include "autogemm/shape_recorder.h"

extern char** environ;

namespace autogemm {
namespace {

namespace fs = std::filesystem;

// A positive number from the environment, or `fallback` with a warning.
double positive(const char* name, double fallback, std::vector<std::string>* warnings) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const double d = std::strtod(v, &end);
  if (end && *end == '\0' && d > 0 && d < 1e9) return d;
  warnings->push_back(std::string(name) + "='" + v + "' is not a positive number; using " +
                      std::to_string(fallback));
  return fallback;
}

// gemm_tune beside the file this code was loaded from: libautogemm.so in
// PREFIX/lib next to PREFIX/bin, or a build tree's lib/ next to tools/.
std::string find_tuner() {
  if (const char* v = std::getenv("AUTOGEMM_GEMM_TUNE"); v && *v) return ::access(v, X_OK) == 0 ? v : "";
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&find_tuner), &info) || !info.dli_fname) return "";
  std::error_code ec;
  const fs::path self = fs::canonical(info.dli_fname, ec);
  if (ec) return "";
  for (const fs::path& p : {self.parent_path() / "gemm_tune", self.parent_path().parent_path() / "bin" / "gemm_tune",
                            self.parent_path().parent_path() / "tools" / "gemm_tune"})
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  return "";
}

std::string shape_text(const ShapeKey& s) {
  std::string t = std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) + ":" +
                  (s.trans_a ? "T" : "N") + (s.trans_b ? "T" : "N");
  if (s.batch > 1) t += "@" + std::to_string(s.batch);
  return t;
}

}  // namespace

std::vector<std::string> OnlineTuner::child_environment(const char* const* env) {
  // What gemm_tune reads as "a rank of a launcher" (tuner/src/fleet.cpp).
  static const char* const kLauncher[] = {
      "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
      "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "PMI_LOCAL_RANK", "PMI_LOCAL_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS",
      "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE", "SLURM_STEP_TASKS_PER_NODE",
      "SLURM_TASKS_PER_NODE", "SLURM_NODEID"};
  std::vector<std::string> out;
  for (; env && *env; ++env) {
    const std::string entry(*env);
    const std::string name = entry.substr(0, entry.find('='));
    if (std::find(std::begin(kLauncher), std::end(kLauncher), name) == std::end(kLauncher)) out.push_back(entry);
  }
  return out;
}

OnlineTuner::Settings OnlineTuner::from_environment(std::vector<std::string>* warnings) {
  Settings s;
  bool known = true;
  const char* on = std::getenv("AUTOGEMM_TUNE");
  s.enabled = ShapeRecorder::parse_switch(on, &known);
  if (!known) warnings->push_back(std::string("AUTOGEMM_TUNE='") + on + "' is neither 1 nor 0; not tuning online");
  s.budget = int(positive("AUTOGEMM_TUNE_BUDGET", s.budget, warnings));
  s.seconds = positive("AUTOGEMM_TUNE_SECONDS", s.seconds, warnings);
  if (s.enabled) {
    s.tuner = find_tuner();
    if (s.tuner.empty())
      warnings->push_back("AUTOGEMM_TUNE=1 but gemm_tune was not found (set AUTOGEMM_GEMM_TUNE to its path); "
                          "not tuning online");
  }
  return s;
}

OnlineTuner::OnlineTuner(Settings s) : s_(std::move(s)) {}

OnlineTuner::~OnlineTuner() {
  if (supervisor_.joinable()) supervisor_.join();
}

std::vector<std::string> OnlineTuner::arguments(const std::string& cache_path, int device,
                                                const ShapeKey& shape) const {
  std::vector<std::string> a = {s_.tuner, "--device", std::to_string(device), "--db", cache_path,
                                "--shape", shape_text(shape), "--budget", std::to_string(s_.budget)};
  if (!shape.aligned) a.push_back("--unaligned");
  return a;
}

bool OnlineTuner::request(const std::string& cache_path, int device, const ShapeKey& shape, bool capturing) {
  if (!enabled()) return false;
  std::unique_lock<std::mutex> lock(mu_);
  const auto key = std::make_tuple(device, shape.m, shape.n, shape.k, shape.trans_a, shape.trans_b, shape.aligned,
                                   shape.batch);
  if (running_ || capturing || asked_.count(key)) return false;
  asked_.insert(key);  // asked once per process, whatever the outcome
  const std::vector<std::string> args = arguments(cache_path, device, shape);
  std::vector<char*> argv;
  for (const std::string& x : args) argv.push_back(const_cast<char*>(x.c_str()));
  argv.push_back(nullptr);
  // The child's standard streams are /dev/null (a library never writes to
  // the host's stdout), and it inherits no other descriptor.
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  for (int fd : {0, 1, 2}) posix_spawn_file_actions_addopen(&fa, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
  posix_spawn_file_actions_addclosefrom_np(&fa, 3);
  std::vector<std::string> env = child_environment(environ);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t child = 0;
  const int rc = posix_spawn(&child, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    log().warn("online tuning of {} not started: cannot run {} (error {})", shape_text(shape), s_.tuner, rc);
    return false;
  }
  log().info("tuning {} in the background (gemm_tune pid {}, at most {} s); until it is stored, calls run the "
             "current plan", shape_text(shape), child, s_.seconds);
  running_ = true;
  if (supervisor_.joinable()) supervisor_.join();  // the previous one has ended: running_ was false
  supervisor_ = std::thread([this, child] { supervise(child); });
  return true;
}

void OnlineTuner::supervise(pid_t child) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto after = [&](double s) { return clock::now() - start > std::chrono::duration<double>(s); };
  int status = 0;
  bool interrupted = false, killed = false, reaped = true;
  for (;;) {
    const pid_t r = ::waitpid(child, &status, WNOHANG);
    if (r == child) break;
    // A host that ignores SIGCHLD reaps its children itself: wait for the
    // process to be gone, with no status to read.
    if (r < 0 && ::kill(child, 0) != 0) {
      reaped = false;
      break;
    }
    if (!interrupted && after(s_.seconds)) {
      ::kill(child, SIGINT);  // gemm_tune stops after the candidate in flight
      interrupted = true;
    }
    if (interrupted && !killed && after(s_.seconds + s_.grace)) {
      ::kill(child, SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (!reaped) status = killed ? SIGKILL : 0;  // unknown: assume it ended as it was going to
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (ok)
    log().info("online tuning finished (gemm_tune pid {}); the next calls use its winner", child);
  else
    log().warn("online tuning by gemm_tune pid {} ended without a winner ({}{}); the shape keeps its plan", child,
               WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status)) : std::string("killed"),
               interrupted ? ", stopped at the time limit" : "");
  if (ok) finished_.store(true, std::memory_order_release);
  std::lock_guard<std::mutex> lock(mu_);
  last_ok_ = ok;
  running_ = false;
  idle_.notify_all();
}

bool OnlineTuner::wait_idle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [&] { return !running_; });
  return last_ok_;
}

}  // namespace autogemm
