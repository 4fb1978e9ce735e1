// fake_worker: TEST ONLY stand-in for autogemm_worker that needs no GPU.
//
// Speaks the real protocol (worker_protocol.h) but acts out, per candidate,
// the ways a real worker can fail, chosen by text in the "cubin" bytes:
//   FAKE:hang | agemm_broken_hang   never answers (the tuner must kill it)
//   FAKE:exit                       _exit(3) without answering
//   FAKE:segv                       dies by SIGSEGV
//   FAKE:garbage                    answers bytes that are not a frame
//   FAKE:huge                       answers a header announcing 4 GiB
//   FAKE:wrongtype                  answers a ReadyMsg instead of a ResultMsg
//   agemm_broken_trap / _oob        answers Crashed + fatal (like a sticky
//                                   CUDA error), then exits
//   anything else                   answers Ok with a time derived from the config
// (The marker names are entry points that tests/tuner/broken_kernels.cu puts
// into its cubins, so real NVRTC output drives the fake in tuner tests.)
// $AUTOGEMM_FAKE_WORKER_SETUP=fail|hang|exit breaks the problem set-up instead.
// $AUTOGEMM_FAKE_WORKER_SPREAD=S puts the times in [1, 1 + S) ms (default 1).
// $AUTOGEMM_FAKE_WORKER_SECOND=wrong answers a config's second run WrongResult.
// $AUTOGEMM_FAKE_WORKER_SLOW=CONFIG answers that config (its canonical text) in 10 ms.
#include <unistd.h>

#include <csignal>
#include <set>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

#include "autogemm/worker_protocol.h"

using namespace autogemm;

namespace {

void send(const wire::Message& m) {
  std::string why;
  wire::send_frame(3, wire::encode(m), wire::Clock::time_point::max(), &why);
}

void send_raw(const std::string& bytes) {
  std::vector<uint8_t> b(bytes.begin(), bytes.end());
  std::string why;
  wire::send_frame(3, b, wire::Clock::time_point::max(), &why);
}

[[noreturn]] void hang() {
  for (;;) pause();
}

}  // namespace

int main() {
  alarm(120);  // a safety net: never outlive a test run that forgot us
  const char* setup = std::getenv("AUTOGEMM_FAKE_WORKER_SETUP");
  const std::string setup_mode = setup ? setup : "";
  std::set<std::string> seen;  // configs run so far
  for (;;) {
    wire::Message msg;
    if (wire::read_frame(3, &msg, wire::Clock::time_point::max()) != wire::ReadStatus::Ok) return 0;
    if (std::holds_alternative<wire::ProblemMsg>(msg)) {
      if (setup_mode == "hang") hang();
      if (setup_mode == "exit") _exit(7);
      wire::ReadyMsg r;
      r.ok = setup_mode != "fail";
      if (!r.ok) r.detail = "fake set-up failure";
      send(r);
      if (!r.ok) _exit(4);
      continue;
    }
    const auto* c = std::get_if<wire::CandidateMsg>(&msg);
    if (!c) return 3;
    const std::string blob(c->cubin.begin(), c->cubin.end());
    auto has = [&](const char* s) { return blob.find(s) != std::string::npos; };
    if (has("FAKE:hang") || has("agemm_broken_hang")) hang();
    if (has("FAKE:exit")) _exit(3);
    if (has("FAKE:segv")) {
      std::signal(SIGSEGV, SIG_DFL);  // not a sanitizer's handler: a plain death by signal
      std::raise(SIGSEGV);
    }
    if (has("FAKE:garbage")) {
      send_raw("this is certainly not a worker frame");
      hang();
    }
    if (has("FAKE:huge")) {
      std::vector<uint8_t> h = wire::encode(wire::ResultMsg{});
      h.resize(wire::kHeaderBytes);
      std::memset(h.data() + 8, 0xff, 4);
      send_raw(std::string(h.begin(), h.end()));
      hang();
    }
    if (has("FAKE:wrongtype")) {
      send(wire::ReadyMsg{true, ""});
      continue;
    }
    wire::ResultMsg r;
    if (has("agemm_broken_trap") || has("agemm_broken_oob")) {
      r.status = TrialStatus::Crashed;
      r.detail = has("agemm_broken_trap") ? "cuStreamSynchronize failed: CUDA_ERROR_LAUNCH_FAILED (fake)"
                                          : "cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (fake)";
      r.fatal = true;
      send(r);
      _exit(5);
    }
    const char* second = std::getenv("AUTOGEMM_FAKE_WORKER_SECOND");
    if (second && std::string(second) == "wrong" && !seen.insert(c->config).second) {
      r.status = TrialStatus::WrongResult;
      r.detail = "fake: wrong on its second run";
      send(r);
      continue;
    }
    r.status = TrialStatus::Ok;
    const char* spread = std::getenv("AUTOGEMM_FAKE_WORKER_SPREAD");
    r.median_ms = 1.0 + (spread ? std::atof(spread) : 1.0) * double(std::hash<std::string>()(c->config) % 1000) / 1000.0;
    const char* slow = std::getenv("AUTOGEMM_FAKE_WORKER_SLOW");
    if (slow && c->config == slow) r.median_ms = 10.0;
    r.spread_ms = 0.01;
    r.runs = 5;
    r.registers = 32;
    send(r);
  }
}
