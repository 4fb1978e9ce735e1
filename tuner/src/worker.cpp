#include "autogemm/worker.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "autogemm/log.h"

extern char** environ;

namespace autogemm {
namespace {

using wire::Clock;

bool executable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0; }

Clock::time_point deadline_in(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string describe_exit(int st) {
  if (WIFEXITED(st)) return "exited with status " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) {
    const int sig = WTERMSIG(st);
    const char* name = strsignal(sig);
    return "killed by signal " + std::to_string(sig) + " (" + (name ? name : "unknown") + ")";
  }
  return "ended with wait status " + std::to_string(st);
}

std::string seconds_text(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", s);
  return b;
}

}  // namespace

double default_candidate_timeout(const Problem& p) { return 20.0 + 10.0 * p.flops() / 1e11; }
double default_setup_timeout(const Problem& p) { return 60.0 + p.flops() / 1e10; }

std::string Worker::locate(const std::string& configured) {
  if (!configured.empty()) {
    if (executable(configured)) return configured;
    throw WorkerError("the candidate worker '" + configured + "' (the configured worker path) is missing or not executable");
  }
  if (const char* env = std::getenv("AUTOGEMM_WORKER"); env && *env) {
    if (executable(env)) return env;
    throw WorkerError(std::string("the candidate worker '") + env + "' named by $AUTOGEMM_WORKER is missing or not executable");
  }
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string next_to;
  if (n > 0) {
    std::string exe(self, size_t(n));
    next_to = exe.substr(0, exe.rfind('/') + 1) + kExecutable;
    if (executable(next_to)) return next_to;
  }
  throw WorkerError(std::string("cannot find the candidate worker ") + kExecutable + " (looked for " +
                    (next_to.empty() ? std::string("it next to this program") : next_to) +
                    "); install it next to the tuning program or set $AUTOGEMM_WORKER to its path");
}

Worker::Worker(std::string path, int device) : path_(std::move(path)), device_(device) {}

Worker::~Worker() {
  // A graceful end: the worker exits when its channel closes.
  if (pid_) stop(false);
}

void Worker::start() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw WorkerError(std::string("cannot create the worker channel: ") + std::strerror(errno));
  // The child's end is moved above fd 3 first: dup2 onto itself would keep
  // its close-on-exec flag, and the worker would start without a channel.
  const int child = ::fcntl(sv[1], F_DUPFD_CLOEXEC, 10);
  ::close(sv[1]);
  if (child < 0) {
    ::close(sv[0]);
    throw WorkerError(std::string("cannot create the worker channel: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, 2, 1);      // stdout -> stderr: fd 3 alone carries the protocol
  posix_spawn_file_actions_adddup2(&fa, child, 3);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_setsigmask(&at, &none);   // our threads may block signals; the worker should not
  posix_spawnattr_setsigdefault(&at, &all);  // nor inherit ignored SIGPIPE/SIGINT dispositions
  // Its own process group: a Ctrl-C at the terminal reaches the tuner, which
  // stops after the candidate in flight, and not the worker running it (whose
  // death would record a good candidate as crashed). The worker still dies
  // with the tuner (PR_SET_PDEATHSIG in worker_main.cpp).
  posix_spawnattr_setpgroup(&at, 0);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  const std::string parent = std::to_string(::getpid());
  std::vector<char*> argv = {const_cast<char*>(path_.c_str()), const_cast<char*>("--protocol-fd"),
                             const_cast<char*>("3"), const_cast<char*>("--parent"),
                             const_cast<char*>(parent.c_str()), nullptr};
  pid_t pid = 0;
  // posix_spawn = fork + exec with nothing in between: no CUDA context, SQLite
  // connection or lock of this process is ever used by the child.
  const int rc = ::posix_spawn(&pid, path_.c_str(), &fa, &at, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  ::close(child);
  if (rc != 0) {
    ::close(sv[0]);
    throw WorkerError("cannot start the candidate worker " + path_ + ": " + std::strerror(rc));
  }
  pid_ = pid;
  fd_ = sv[0];
  ++started_;
  log().debug("candidate worker {} started (pid {})", path_, pid_);
}

std::string Worker::stop(bool kill_now) {
  if (!pid_) return "not running";
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  int st = 0;
  pid_t r = 0;
  if (!kill_now) {
    // It has closed its end or is about to exit (sticky error, end of
    // tuning): give it a moment to tear its context down by itself.
    const auto until = deadline_in(5.0);
    while ((r = ::waitpid(pid_, &st, WNOHANG)) == 0 && Clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (r == 0) {
    ::kill(pid_, SIGKILL);
    while ((r = ::waitpid(pid_, &st, 0)) < 0 && errno == EINTR) {
    }
  }
  pid_ = 0;
  // ECHILD: the program ignores SIGCHLD or reaped it itself; the status is lost.
  return r < 0 ? std::string("ended (exit status unavailable)") : describe_exit(st);
}

void Worker::setup(double timeout_s) {
  const auto deadline = deadline_in(timeout_s);
  std::string why;
  if (!wire::send_frame(fd_, wire::encode(problem_), deadline, &why)) {
    const std::string how = stop(true);
    throw WorkerError("the candidate worker failed before set-up (" + why + "; " + how + ")");
  }
  wire::Message m;
  wire::ReadStatus s;
  try {
    s = wire::read_frame(fd_, &m, deadline);
  } catch (const wire::ProtocolError& e) {
    stop(true);
    throw WorkerError(std::string("the candidate worker sent an invalid reply to set-up: ") + e.what());
  }
  if (s == wire::ReadStatus::Timeout) {
    stop(true);
    throw WorkerError("the candidate worker did not set up " + problem_.problem.to_string() + " within " +
                      seconds_text(timeout_s) + " s; killed");
  }
  if (s == wire::ReadStatus::Eof) {
    const std::string how = stop(false);
    throw WorkerError("the candidate worker ended during set-up of " + problem_.problem.to_string() + " (" + how + ")");
  }
  const auto* ready = std::get_if<wire::ReadyMsg>(&m);
  if (!ready) {
    stop(true);
    throw WorkerError("the candidate worker answered set-up with the wrong message");
  }
  if (!ready->ok) {
    stop(false);
    throw WorkerError("the candidate worker could not set up " + problem_.problem.to_string() + ": " + ready->detail);
  }
}

void Worker::set_problem(const Problem& p, unsigned seed, double timeout_s, TimingRegime timing) {
  problem_ = wire::ProblemMsg{};
  problem_.problem = p;
  problem_.seed = seed;
  problem_.warm = timing == TimingRegime::Warm;
  problem_.device = device_;
  try {
    const std::vector<uint8_t> frame = wire::encode(problem_);
    (void)wire::decode_frame(frame.data(), frame.size());
  } catch (const wire::ProtocolError& e) {
    // Out of the protocol's (and the kernels') range: say so here, not as a dead worker.
    throw WorkerError("cannot tune " + p.to_string() + " in the worker: " + e.what());
  }
  have_problem_ = true;
  setup_timeout_s_ = timeout_s;
  if (!pid_) start();
  setup(timeout_s);
}

WorkerOutcome Worker::run(const std::string& config, const std::vector<char>& cubin, double best_ms,
                          double timeout_s) {
  if (!have_problem_) throw WorkerError("Worker::run called before set_problem");
  if (!pid_) {
    // The previous worker died or was killed: a fresh one, the same problem.
    start();
    setup(setup_timeout_s_);
  }
  WorkerOutcome out;
  if (config.empty() || config.size() > wire::kMaxConfigChars || cubin.empty() || cubin.size() > wire::kMaxCubinBytes) {
    out.detail = "config text or cubin outside the worker protocol's limits; not run";
    return out;
  }
  wire::CandidateMsg c;
  c.config = config;
  c.cubin = cubin;
  c.best_ms = std::isnan(best_ms) ? INFINITY : best_ms;
  const auto deadline = deadline_in(timeout_s);
  std::string why;
  if (!wire::send_frame(fd_, wire::encode(c), deadline, &why)) {
    out.detail = "the worker could not take the candidate (" + why + "; " + stop(true) + ")";
    return out;
  }
  wire::Message m;
  wire::ReadStatus s;
  try {
    s = wire::read_frame(fd_, &m, deadline);
  } catch (const wire::ProtocolError& e) {
    out.detail = std::string("the worker sent an invalid reply (") + e.what() + "); worker killed and replaced";
    stop(true);
    return out;
  }
  if (s == wire::ReadStatus::Timeout) {
    stop(true);
    out.status = TrialStatus::Timeout;
    out.detail = "no result within " + seconds_text(timeout_s) +
                 " s (the kernel hangs or is far too slow); worker killed and replaced";
    return out;
  }
  if (s == wire::ReadStatus::Eof) {
    out.detail = "the worker died running the candidate (" + stop(false) + "); replaced";
    return out;
  }
  const auto* r = std::get_if<wire::ResultMsg>(&m);
  if (!r) {
    stop(true);
    out.detail = "the worker answered with the wrong message; worker killed and replaced";
    return out;
  }
  out.status = r->status;
  out.median_ms = r->median_ms;
  out.spread_ms = r->spread_ms;
  out.runs = r->runs;
  out.registers = r->registers;
  out.local_bytes = r->local_bytes;
  out.detail = r->detail;
  if (r->fatal) {
    // Sticky CUDA error: the worker exits by itself after this reply.
    stop(false);
    if (out.status == TrialStatus::Ok) out.status = TrialStatus::Crashed;  // never trust a dying context
    out.detail += "; worker context lost, replaced";
  }
  return out;
}

}  // namespace autogemm
