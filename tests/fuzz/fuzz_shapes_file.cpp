// Fuzz target: autogemm::read_shapes_file (gemm_tune/gemm_bench --shapes-file).
// The fuzz bytes are written to a temporary file which is then read.
//
// Invariants: never crashes; the only failure is std::runtime_error naming
// the file; each shape read equals parse_shape of its canonical text; no more
// shapes than lines.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unistd.h>

#include "autogemm/problem.h"
#include "autogemm/tuner.h"
#include "autogemm/shape_spec.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = autogemm_fuzz::scratch_dir() + "/shapes.txt";
  autogemm_fuzz::write_file(path, data, size);
  size_t lines = 0;
  for (size_t i = 0; i < size; ++i) lines += data[i] == '\n';
  if (size > 0 && data[size - 1] != '\n') ++lines;
  try {
    const auto shapes = autogemm::read_shapes_file(path);
    FUZZ_CHECK(shapes.size() <= lines, "more shapes than lines");
    for (const auto& s : shapes) {
      autogemm::ShapeSpec again;
      std::string error;
      FUZZ_CHECK(autogemm::parse_shape(s.to_string(), &again, &error),
                 "a shape read does not re-parse: '" + s.to_string() + "' (" + error + ")");
      FUZZ_CHECK(again.to_string() == s.to_string(), "round trip changed '" + s.to_string() + "'");
    }
  } catch (const std::runtime_error& e) {
    FUZZ_CHECK(std::string(e.what()).find(path) != std::string::npos,
               std::string("error does not name the file: ") + e.what());
  }
  unlink(path.c_str());
  return 0;
}
