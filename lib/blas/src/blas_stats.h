// Counters of the BLAS drop-in: sgemm_ calls routed to autogemm, fallen back
// (and why, and what ran them), scaled on the host, quick returns and bad
// arguments. One line at exit at log level info; blas_counts() for tests.
#pragma once

#include <string>

namespace autogemm::blas {

/// Why a call autogemm should have run went to a fallback.
enum class Why {
  Off,       ///< AUTOGEMM_BLAS_OFF is set
  NoGpu,     ///< no CUDA driver, no GPU, or device 0's context unusable
  Cuda,      ///< a CUDA step here failed (allocation, copy, synchronization)
  Autogemm,  ///< autogemm_sgemm returned a status other than success
  Count
};

/// What ran a fallen-back call.
enum class Ran { NextSgemm, HostLoop };

struct BlasCounts {
  unsigned long long routed = 0;          ///< run by autogemm on the GPU
  unsigned long long fell_back[int(Why::Count)] = {};
  unsigned long long by_next_sgemm = 0;   ///< fallbacks run by the next sgemm_ in the process
  unsigned long long by_host_loop = 0;    ///< fallbacks run by host_sgemm
  unsigned long long scaled_on_host = 0;  ///< alpha == 0 or K == 0: C scaled here
  unsigned long long quick_returns = 0;
  unsigned long long bad_arguments = 0;   ///< reported to xerbla_ (or logged without one)
};

// The counters never throw; count_fallback may (its log line, out of memory).
void count_routed() noexcept;
/// `what` (the error's text) is logged with the first fallback of each
/// reason other than Off; the counts say how often.
void count_fallback(Why why, const char* what, Ran ran);
void count_scaled_on_host() noexcept;
void count_quick_return() noexcept;
void count_bad_argument() noexcept;

BlasCounts blas_counts();
const char* why_name(Why why);

/// False when AUTOGEMM_BLAS_OFF is set to anything but "" or "0" (read once).
bool routing_enabled();

/// The file the next sgemm_ was found in, for the exit line ("" if none).
void set_next_sgemm_origin(const std::string& path);

}  // namespace autogemm::blas
