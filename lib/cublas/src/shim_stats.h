// Counters of the cuBLAS drop-in: per entry point, calls routed to autogemm,
// passed to cuBLAS (and why) and fallen back; reported at exit at log level
// info, read by autogemm_cublas_get_counts.
#pragma once

#include "route.h"

namespace autogemm::cublas {

void count_routed(Entry e);
void count_passed(Entry e, Reason why);
/// A routed call autogemm could not run (`what`: its error), then run by cuBLAS.
void count_fallback(Entry e, const char* what);

/// False when AUTOGEMM_CUBLAS=0 turns routing off (read once).
bool routing_enabled();

}  // namespace autogemm::cublas
