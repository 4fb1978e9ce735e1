#include "autogemm/tuning_session.h"

#include <chrono>
#include <csignal>
#include <ctime>

#include "autogemm/builtin_winners.h"
#include "autogemm/kernel_launch.h"
#include "autogemm/kernel_template.h"
#include "autogemm/log.h"
#include "autogemm/search_space.h"

namespace autogemm {
namespace {

// A lock-free atomic is async-signal-safe to store from a handler.
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the stop flag must be signal-safe");

using Clock = std::chrono::steady_clock;

WinnerRecord winner_record(const Problem& p, const KernelFamily& f, const TrialRecord& t) {
  WinnerRecord w;
  w.shape = p.key();
  w.family = f.name();
  w.config = t.config;
  w.template_hash = f.source().hash();
  w.median_ms = t.median_ms;
  w.spread_ms = t.spread_ms;
  w.gflops = t.gflops;
  w.tuned_at = int64_t(std::time(nullptr));
  w.timing = t.timing;
  return w;
}

}  // namespace

const char* to_string(FamilyOutcome::State s) {
  switch (s) {
    case FamilyOutcome::State::Tuned: return "tuned";
    case FamilyOutcome::State::AlreadyTuned: return "already tuned";
    case FamilyOutcome::State::NoWinner: return "no candidate verified";
    case FamilyOutcome::State::Interrupted: return "interrupted";
  }
  return "?";
}

void TuningSession::request_stop() { g_stop.store(true); }
bool TuningSession::stop_requested() { return g_stop.load(); }
void TuningSession::clear_stop() { g_stop.store(false); }

/// One family that still needs tuning for the shape.
struct TuningSession::FamilyPlan {
  const KernelFamily* family;
  std::string hash;
};

TuningSession::TuningSession(TuningCache& cache, const DeviceInfo& dev, SessionOptions opt)
    : cache_(cache), dev_(dev), key_(dev.key()), opt_(std::move(opt)) {
  opt_.tune.stop = &g_stop;
}

std::vector<TuningSession::FamilyPlan> TuningSession::plan(const Problem& p, ShapeOutcome& out) const {
  const SearchLimits lim = SearchLimits::of(dev_);
  const KernelConfig def = default_config(p);
  std::vector<FamilyPlan> pending;
  for (const KernelFamily* f : tunable_families(dev_, opt_.tune.families, opt_.tune.math_mode)) {
    // A family with nothing to measure here (the generic fallback) is not tuned.
    if (&def.family() != f && f->search_space(p, lim).empty()) continue;
    const std::string& hash = f->source().hash();
    if (!opt_.force) {
      // A winner timed in the other regime is re-tuned (and then replaced).
      auto w = cache_.find_winner(key_, p.key(), f->name(), hash);
      if (w && w->timing == opt_.tune.timing) {
        FamilyOutcome o{f->name(), FamilyOutcome::State::AlreadyTuned, TrialRecord{}, false};
        o.winner->config = w->config;
        o.winner->median_ms = w->median_ms;
        o.winner->spread_ms = w->spread_ms;
        o.winner->gflops = w->gflops;
        o.winner->timing = w->timing;
        out.families.push_back(o);
        continue;
      }
    }
    pending.push_back({f, hash});
  }
  return pending;
}

ShapeOutcome TuningSession::tune(const Problem& p, const SessionProgress& progress) {
  const auto t0 = Clock::now();
  ShapeOutcome out;
  out.problem = p;
  const std::vector<FamilyPlan> pending = plan(p, out);
  if (!pending.empty()) {
    TuneOptions opt = opt_.tune;
    opt.families.clear();
    for (const FamilyPlan& f : pending) {
      opt.families.push_back(f.family->name());
      for (std::string& c : cache_.failed_configs(key_, p.key(), f.hash)) opt.skip.push_back(std::move(c));
      if (opt_.force) continue;  // forced: every verified config is measured again
      for (TrialRecord& t : cache_.load_trials(key_, p.key(), f.hash))
        if (t.status == TrialStatus::Ok && t.timing == opt.timing) opt.measured.push_back(std::move(t));
    }
    // History: this device's current winners of the pending families.
    for (const WinnerRecord& w : cache_.load_winners(key_)) {
      auto c = KernelConfig::parse(w.config);
      if (!c || w.template_hash != template_hash(*c)) continue;
      for (const FamilyPlan& f : pending)
        if (&c->family() == f.family) opt.history.push_back({w.shape, *c});
    }
    // And the built-in winners of this architecture: tuning then measures
    // what dispatch ran before (where it is in the space), never ending on
    // a slower winner than that.
    for (const BuiltinWinner& b : builtin_winners(dev_.arch()))
      for (const FamilyPlan& f : pending)
        if (&b.config.family() == f.family) opt.history.push_back({b.shape, b.config, true});
    opt.on_trial = [&](const Candidate& c) {
      cache_.record_trials(key_, p.key(), c.config.family().name(), template_hash(c.config), {c.trial});
    };
    std::optional<TrialRecord> best;
    auto on_progress = [&](size_t done, size_t total, const Candidate& c) {
      if (c.trial.status == TrialStatus::Ok && !c.injected && (!best || c.trial.median_ms < best->median_ms))
        best = c.trial;
      if (!progress) return;
      TuneProgressEvent e{done, total, &c, best, std::chrono::duration<double>(Clock::now() - t0).count(), 0};
      const size_t fresh = done - size_t(out.resumed);
      if (fresh > 0) e.eta_s = e.elapsed_s / double(fresh) * double(total - done);
      progress(e);
    };
    out.resumed = int(opt.measured.size());
    for (const TrialRecord& t : opt.measured)
      if (!best || t.median_ms < best->median_ms) best = t;
    Tuner tuner(dev_, opt);
    TuneResult r = tuner.tune(p, on_progress);
    out.measured = r.cost.candidates;
    out.ruled_out = r.ruled_out;
    out.cost = r.cost;
    out.interrupted = r.interrupted;
    if (r.default_index) out.default_gflops = r.candidates[*r.default_index].trial.gflops;
    for (const FamilyPlan& f : pending) finish_family(p, f, r, out);
  }
  for (const FamilyOutcome& f : out.families)
    if (f.winner && (!out.best || f.winner->median_ms < out.best->median_ms)) out.best = f.winner;
  out.cost.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return out;
}

void TuningSession::finish_family(const Problem& p, const FamilyPlan& f, const TuneResult& r, ShapeOutcome& out) {
  FamilyOutcome o;
  o.family = f.family->name();
  const Candidate* best = nullptr;
  for (const Candidate& c : r.candidates) {
    if (&c.config.family() != f.family) continue;
    if (c.is_default && c.trial.status == TrialStatus::Ok) store_cubin(c);
    if (c.trial.status != TrialStatus::Ok || c.injected || c.trial.median_ms <= 0) continue;
    if (!best || c.trial.median_ms < best->trial.median_ms) best = &c;
  }
  if (r.interrupted) {
    // Its trials are stored; the winner is chosen when the shape is finished.
    o.state = FamilyOutcome::State::Interrupted;
  } else if (!best) {
    o.state = FamilyOutcome::State::NoWinner;
  } else {
    TuningCost cost = r.cost;
    cost.candidates = 0;
    cost.compile_s = 0;
    for (const Candidate& c : r.candidates)
      if (&c.config.family() == f.family && !c.resumed) ++cost.candidates, cost.compile_s += c.compile_s;
    o.state = FamilyOutcome::State::Tuned;
    o.winner = best->trial;
    o.stored = cache_.record_winner(key_, winner_record(p, *f.family, best->trial), cost);
    store_cubin(*best);
  }
  out.families.push_back(o);
}

void TuningSession::store_cubin(const Candidate& c) {
  const std::string arch = kernel_arch(c.config, dev_);
  const CubinKey key{template_hash(c.config), c.trial.config, arch, dev_.nvrtc_version};
  if (!c.cubin.empty()) {
    cache_.store_cubin(key, c.cubin);
    return;
  }
  // A winner measured by an earlier run: its cubin was not kept in memory.
  if (cache_.load_cubin(key)) return;
  try {
    cache_.store_cubin(key, compile_kernel(c.config, arch).cubin);
  } catch (const std::exception& e) {
    log().warn("could not build the cubin of {} to store it: {}", c.trial.config, e.what());
  }
}

}  // namespace autogemm
