#include "tune_progress.h"

#include <unistd.h>

#include <cstdio>

namespace autogemm {
namespace {

std::string duration(double s) {
  char buf[32];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, int(s) / 60 % 60);
  return buf;
}

}  // namespace

bool TuneProgressPrinter::stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

std::string TuneProgressPrinter::line(const TuneProgressEvent& e) const {
  const double frac = e.total ? double(e.done) / double(e.total) : 1.0;
  std::string bar;
  if (live_) {
    const int width = 20, full = int(frac * width + 0.5);
    bar = "[" + std::string(size_t(full), '#') + std::string(size_t(width - full), '.') + "] ";
  }
  char head[160];
  std::snprintf(head, sizeof head, "%s %s%zu/%zu  elapsed %s  eta %s", shape_.c_str(), bar.c_str(), e.done,
                e.total, duration(e.elapsed_s).c_str(), e.done < e.total ? duration(e.eta_s).c_str() : "0s");
  std::string out = head;
  if (e.best) {
    char best[64];
    std::snprintf(best, sizeof best, "  best %.1f GFLOP/s ", e.best->gflops);
    out += best + e.best->config;
  }
  return out;
}

void TuneProgressPrinter::update(const TuneProgressEvent& e) {
  const auto now = std::chrono::steady_clock::now();
  if (live_) {
    if (e.done < e.total && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    std::fprintf(stderr, "\r\033[K%s", line(e).c_str());
    drawn_ = true;
    return;
  }
  const size_t tenth = e.total ? e.done * 10 / e.total : 10;
  if (tenth == last_tenth_ && e.done < e.total) return;
  last_tenth_ = tenth;
  std::fprintf(stderr, "%s\n", line(e).c_str());
}

void TuneProgressPrinter::finish() {
  if (drawn_) std::fprintf(stderr, "\n");
  drawn_ = false;
}

}  // namespace autogemm
