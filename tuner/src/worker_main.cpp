// autogemm_worker: loads, verifies and times candidate kernels for the tuner.
//
// Started by autogemm::Worker (tuner/src/worker.cpp) as
//     autogemm_worker --protocol-fd 3 --parent <pid>
// and driven over fd 3 (worker_protocol.h). It exists so that a candidate
// that faults or hangs takes down this process, not the tuner: after a
// sticky CUDA error it replies once and exits; a hang is ended by the tuner's
// SIGKILL. Diagnostics go to stderr; stdout is never written (the tuner points
// it at stderr anyway), so nothing can corrupt the protocol.
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "autogemm/benchmark.h"
#include "autogemm/kernel_launch.h"
#include "autogemm/log.h"
#include "autogemm/verifier.h"
#include "autogemm/worker_protocol.h"

using namespace autogemm;

namespace {

/// CUDA errors after which the context cannot be used any more.
bool context_is_lost(CUresult r) {
  return r == CUDA_ERROR_ILLEGAL_ADDRESS || r == CUDA_ERROR_LAUNCH_FAILED ||
         r == CUDA_ERROR_ILLEGAL_INSTRUCTION || r == CUDA_ERROR_MISALIGNED_ADDRESS ||
         r == CUDA_ERROR_HARDWARE_STACK_ERROR || r == CUDA_ERROR_INVALID_PC ||
         r == CUDA_ERROR_ASSERT || r == CUDA_ERROR_LAUNCH_TIMEOUT || r == CUDA_ERROR_ECC_UNCORRECTABLE;
}

/// Everything that lives for one problem: operands, reference, timing.
struct Session {
  Problem problem;
  DeviceInfo dev;
  std::unique_ptr<Verifier> ver;
  std::unique_ptr<Stream> stream;
  std::unique_ptr<Benchmark> bench;
  std::unique_ptr<RotatingOperands> copies;  ///< timing runs cycle over these
  DeviceBuffer workspace;
};

/// Grows the session's workspace to what `cfg` needs (zeroed once: kernels
/// leave it zeroed) and zeroes its counter area for this candidate.
void prepare_workspace(Session& s, const KernelConfig& cfg, CUstream stream) {
  const size_t ws = cfg.workspace_floats(s.problem);
  if (s.workspace.bytes() < ws * 4) {
    s.workspace = DeviceBuffer();
    s.workspace = DeviceBuffer(ws * 4);
    // On the candidate's stream: a plain cuMemsetD32 runs on the legacy
    // stream and may not be done when a kernel on a non-blocking stream starts.
    AUTOGEMM_CU(cuMemsetD32Async(s.workspace.get(), 0, ws, stream));
  }
  // A faulty earlier candidate must not leave traps for the next one.
  if (const size_t counters = cfg.family().workspace_counter_floats(cfg))
    AUTOGEMM_CU(cuMemsetD32Async(s.workspace.get(), 0, counters, stream));
}

/// Times a verified candidate over the rotating copies. One timed run
/// first: a candidate that run settles against the best so far
/// (settled_by_one_run) is recorded from it alone. The verifying launch
/// warmed the kernel and copy 0, and took `verify_ms`: from 10 ms on it is
/// that first run (at most microseconds of operand traffic differ between
/// a warm and a cold L2, and one launch per candidate is a tenth of a
/// second at 16384^3).
Timing time_candidate(Session& s, const LoadedKernel& k, double best_ms, double verify_ms, std::string* detail) {
  constexpr double kLongMs = 10.0;
  auto launch = [&](CUstream st, int i) { k.launch(s.copies->call(i), st, s.workspace.get()); };
  const double first = verify_ms >= kLongMs ? verify_ms : s.bench->once_rotating(launch, s.copies->count(), false);
  if (const char* why = settled_by_one_run(first, best_ms)) {
    *detail = why;
    Timing t;
    t.median_ms = first;
    t.runs = 1;
    return t;
  }
  // The runs above warmed caches and clocks and sized the batches. A sample
  // is a batch of about 1 ms (or one launch), so ten give a stable median;
  // long kernels need fewer (>= 10 ms: a 1% spread there is >= 100 us;
  // from 30 ms on two, which spread about 1% at 16384^3: the tuner times
  // again the finalists within 3% of the best).
  TimingOptions o;
  o.warmup = 0;
  o.expected_ms = first;
  o.max_runs = 10;
  o.target_ms = 20;
  if (first >= kLongMs) o.min_runs = first >= 3 * kLongMs ? 2 : 3;
  return s.bench->time_rotating(launch, s.copies->count(), o);
}

/// Loads, verifies and times one candidate into `r` (throws on CUDA errors).
void verify_and_time(Session& s, const KernelConfig& cfg, const wire::CandidateMsg& msg, wire::ResultMsg& r) {
  const CUstream stream = s.stream->get();
  LoadedKernel k = LoadedKernel::load(cfg, msg.cubin, s.dev);
  r.registers = k.resources().registers;
  r.local_bytes = k.resources().local_bytes;
  prepare_workspace(s, cfg, stream);
  s.ver->prepare(stream);
  const Event start, end;
  start.record(stream);
  k.launch(s.ver->call(), stream, s.workspace.get());
  end.record(stream);
  const VerifyResult vr = s.ver->check(stream, cfg.family().accuracy());  // synchronizes
  if (!vr.ok) {
    r.status = TrialStatus::WrongResult;
    r.detail = vr.why;
    return;
  }
  const Timing t = time_candidate(s, k, msg.best_ms, end.elapsed_since(start), &r.detail);
  r.status = TrialStatus::Ok;
  r.median_ms = t.median_ms;
  r.spread_ms = t.iqr_ms;
  r.runs = t.runs;
  if (r.local_bytes > 0)
    r.detail += (r.detail.empty() ? "" : "; ") + std::to_string(r.local_bytes) + " bytes of local memory per thread";
}

/// One candidate, as the in-process tuner used to do it. Sets r.fatal when
/// the context is no longer usable.
wire::ResultMsg run_candidate(Session& s, const wire::CandidateMsg& msg) {
  wire::ResultMsg r;
  r.status = TrialStatus::Crashed;
  std::string err;
  const std::optional<KernelConfig> cfg = KernelConfig::parse(msg.config, &err);
  if (!cfg) {
    r.detail = "the worker rejected the config text: " + err;
    return r;
  }
  if (!cfg->can_implement(s.problem)) {
    // Launching it could read or write outside the operands: refuse.
    r.status = TrialStatus::WrongResult;
    r.detail = "config cannot implement " + s.problem.to_string() + "; not run";
    return r;
  }
  try {
    verify_and_time(s, *cfg, msg, r);
  } catch (const LimitsError& e) {
    r.status = TrialStatus::LimitsExceeded;
    r.detail = e.what();
  } catch (const CudaError& e) {
    r.status = TrialStatus::Crashed;
    r.detail = e.what();
    // Some errors do not poison the context (e.g. too many resources
    // requested for a launch); anything that survives a full sync is fine.
    r.fatal = context_is_lost(e.code()) || driver().cuCtxSynchronize() != CUDA_SUCCESS;
  } catch (const std::exception& e) {
    r.status = TrialStatus::Crashed;
    r.detail = e.what();
  }
  return r;
}

/// The operands, reference and timing copies of a problem the tuner sends.
std::unique_ptr<Session> open_session(const wire::ProblemMsg& pm) {
  auto s = std::make_unique<Session>();
  s->problem = pm.problem;
  s->dev = DeviceInfo::current();
  // Inputs over 2^-4..2^4: every candidate, of any family, is checked on
  // data whose products span binades (issue 9: splitting errors that
  // unit-range data would hide), still far from subnormals and overflow.
  s->ver = std::make_unique<Verifier>(pm.problem, s->dev, pm.alpha, pm.beta, pm.seed, 4);
  s->stream = std::make_unique<Stream>();
  s->bench = std::make_unique<Benchmark>(s->dev, s->stream->get());
  s->ver->prepare(s->stream->get());  // C's copies start from its initial values
  // Warm timing: one copy (no L2 to exceed), used call after call.
  const size_t rotate_over = pm.warm ? 0 : size_t(s->dev.l2_bytes);
  s->copies = std::make_unique<RotatingOperands>(pm.problem, s->ver->call(), rotate_over, s->stream->get());
  return s;
}

/// A long compile or driver message must not make a reply itself invalid.
void clip_detail(wire::Message& m) {
  std::visit(
      [](auto& x) {
        if constexpr (std::is_same_v<std::decay_t<decltype(x)>, wire::ReadyMsg> ||
                      std::is_same_v<std::decay_t<decltype(x)>, wire::ResultMsg>)
          if (x.detail.size() > wire::kMaxDetailChars) x.detail.resize(wire::kMaxDetailChars);
      },
      m);
}

/// Closes every fd above stderr but `keep` (the channel): anything the tuner
/// left without close-on-exec (a cache file, a device node) must not be held
/// by this process.
void close_inherited_fds(int keep) {
  for (int fd = 3; fd < keep; ++fd) close(fd);
#ifdef SYS_close_range
  if (syscall(SYS_close_range, unsigned(keep) + 1, ~0u, 0u) == 0) return;
#endif
  for (int fd = keep + 1; fd < 1024; ++fd) close(fd);
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "autogemm_worker: runs candidate kernels for the autogemm tuner; not meant to be started by hand.\n"
               "usage: autogemm_worker --protocol-fd 3 --parent <pid>\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  int fd = -1;
  long parent = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--protocol-fd") == 0) fd = std::atoi(argv[i + 1]);
    else if (std::strcmp(argv[i], "--parent") == 0) parent = std::atol(argv[i + 1]);
    else usage();
  }
  if (fd < 3 || parent <= 0 || argc != 5) usage();
  // Die with the tuner: a worker stuck in a hung kernel must not outlive it
  // (EOF on the channel covers the idle case). Checked after arming, as the
  // tuner may have exited before this line.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != pid_t(parent)) return 0;
  close_inherited_fds(fd);
  set_default_log_level(spdlog::level::warn);

  std::unique_ptr<ScopedPrimaryContext> ctx;
  std::unique_ptr<Session> session;
  auto reply = [&](wire::Message m) {
    clip_detail(m);
    std::string why;
    if (!wire::send_frame(fd, wire::encode(m), wire::Clock::time_point::max(), &why)) {
      std::fprintf(stderr, "autogemm_worker: %s\n", why.c_str());
      std::_Exit(3);  // the tuner is gone; nothing to tidy for anyone
    }
  };
  for (;;) {
    wire::Message msg;
    try {
      if (wire::read_frame(fd, &msg, wire::Clock::time_point::max()) != wire::ReadStatus::Ok) break;  // tuner done
    } catch (const wire::ProtocolError& e) {
      std::fprintf(stderr, "autogemm_worker: %s\n", e.what());
      return 3;
    }
    if (const auto* pm = std::get_if<wire::ProblemMsg>(&msg)) {
      wire::ReadyMsg ready;
      try {
        if (!ctx) ctx = std::make_unique<ScopedPrimaryContext>(pm->device);
        session.reset();  // free the previous problem's buffers first
        session = open_session(*pm);
        ready.ok = true;
      } catch (const std::exception& e) {
        ready.detail = e.what();
      }
      reply(ready);
      if (!ready.ok) std::_Exit(4);  // the tuner gives up on this problem
    } else if (const auto* cm = std::get_if<wire::CandidateMsg>(&msg)) {
      if (!session) {
        std::fprintf(stderr, "autogemm_worker: candidate before any problem\n");
        return 3;
      }
      const wire::ResultMsg r = run_candidate(*session, *cm);
      reply(r);
      // A lost context cannot even be torn down cleanly: leave at once.
      if (r.fatal) std::_Exit(5);
    } else {
      std::fprintf(stderr, "autogemm_worker: unexpected message from the tuner\n");
      return 3;
    }
  }
  session.reset();
  ctx.reset();
  return 0;
}
