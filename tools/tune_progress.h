// TuneProgressPrinter: gemm_tune's per-shape progress on stderr.
//
// On a terminal, one live line redrawn in place (a bar, candidates measured /
// total, best so far, elapsed, ETA), at most ten times a second; elsewhere
// (a log file, CI) a plain line every 10 % of the shape and at its end, so
// logs stay short. No library in Debian does this for C++ without pulling in
// a UI toolkit, and it is forty lines.
#pragma once

#include <chrono>
#include <string>

#include "autogemm/tuning_session.h"

namespace autogemm {

class TuneProgressPrinter {
 public:
  /// `shape`: how the shape is named in the lines; `live`: draw in place.
  TuneProgressPrinter(std::string shape, bool live) : shape_(std::move(shape)), live_(live) {}
  ~TuneProgressPrinter() { finish(); }

  void update(const TuneProgressEvent& e);
  /// Ends the live line (called by the destructor too).
  void finish();

  /// True when stderr is a terminal.
  static bool stderr_is_terminal();

 private:
  std::string line(const TuneProgressEvent& e) const;
  std::string shape_;
  bool live_;
  bool drawn_ = false;
  size_t last_tenth_ = 0;
  std::chrono::steady_clock::time_point last_draw_{};
};

}  // namespace autogemm
