// Fuzz target: autogemm::KernelConfig::parse, the only way outside text (a
// cache file, a command line) becomes a kernel configuration.
//
// Invariants checked on every input:
//  - parse never crashes; on failure it gives a non-empty error;
//  - a parsed config is valid (is_valid), its launch shape is in range, and
//    its canonical text re-parses to an equal config with the same text
//    (to_string/parse round trip, a fixed point after one step).
#include <cstdint>
#include <string>

#include "autogemm/kernel_config.h"
#include "autogemm/problem.h"
#include "autogemm/shape_spec.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using autogemm::KernelConfig;
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::string error;
  const auto c = KernelConfig::parse(text, &error);
  if (!c) {
    FUZZ_CHECK(!error.empty(), "rejected without an error: '" + text + "'");
    return 0;
  }
  std::string why;
  FUZZ_CHECK(c->is_valid(&why), "parsed but invalid (" + why + "): '" + text + "'");
  const int t = c->threads();
  FUZZ_CHECK(t >= 32 && t <= 1024, "threads out of range: '" + text + "'");
  FUZZ_CHECK(!c->defines().empty(), "no -D definitions: '" + text + "'");
  (void)c->smem_bytes();

  const std::string canon = c->to_string();
  std::string error2;
  const auto again = KernelConfig::parse(canon, &error2);
  FUZZ_CHECK(again.has_value(),
             "canonical text does not parse (" + error2 + "): '" + canon + "' from '" + text + "'");
  FUZZ_CHECK(*again == *c, "round trip changed the config: '" + canon + "' from '" + text + "'");
  FUZZ_CHECK(again->to_string() == canon, "canonical text is not a fixed point: '" + canon + "'");
  // Every parameter of every family becomes a -D value: equal defines, equal kernels.
  FUZZ_CHECK(&again->family() == &c->family() && again->defines() == c->defines() &&
                 again->trans_a == c->trans_a && again->trans_b == c->trans_b,
             "round trip changed a field: '" + canon + "'");

  // A config implements problems of its own layouts (and alignment class).
  autogemm::Problem p =
      autogemm::make_problem(AUTOGEMM_ROW_MAJOR, c->trans_a, c->trans_b, 256, 256, 256, true);
  FUZZ_CHECK(c->can_implement(p), "cannot implement its own layouts: '" + canon + "'");
  (void)c->workspace_floats(p);
  return 0;
}
