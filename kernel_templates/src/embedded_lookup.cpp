#include <stdexcept>

#include "autogemm/embedded_sources.h"

namespace autogemm {

const EmbeddedSource& embedded_source(const std::string& file) {
  for (const auto& s : embedded_sources())
    if (file == s.file) return s;
  throw std::out_of_range("kernel template '" + file + "' is not embedded in this build");
}

}  // namespace autogemm
