#include "autogemm/tuning_keys.h"

namespace autogemm {

int64_t batch_bucket(int64_t count) {
  if (count <= 8) return count < 1 ? 1 : count;
  int64_t b = 16;
  while (b < count && b < (int64_t(1) << 40)) b *= 2;
  return b;
}

const char* to_string(TrialStatus s) {
  switch (s) {
    case TrialStatus::Ok: return "ok";
    case TrialStatus::CompileFailed: return "compile_failed";
    case TrialStatus::LimitsExceeded: return "limits_exceeded";
    case TrialStatus::WrongResult: return "wrong_result";
    case TrialStatus::Timeout: return "timeout";
    case TrialStatus::Crashed: return "crashed";
  }
  return "unknown";
}

std::optional<TrialStatus> parse_trial_status(const std::string& s) {
  for (TrialStatus t : {TrialStatus::Ok, TrialStatus::CompileFailed, TrialStatus::LimitsExceeded,
                        TrialStatus::WrongResult, TrialStatus::Timeout, TrialStatus::Crashed})
    if (s == to_string(t)) return t;
  return std::nullopt;
}

const char* to_string(TimingRegime t) { return t == TimingRegime::Warm ? "warm" : "rotate"; }

std::optional<TimingRegime> parse_timing_regime(const std::string& s) {
  if (s == "rotate") return TimingRegime::Rotate;
  if (s == "warm") return TimingRegime::Warm;
  return std::nullopt;
}

}  // namespace autogemm
