#include "autogemm/dispatcher.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include <unordered_map>

#include "argument_detail.h"
#include "autogemm/cuda_driver.h"
#include "autogemm/dispatch_policy.h"
#include "autogemm/log.h"
#include "autogemm/tuning_cache.h"
#include "autogemm/gemm_args.h"
#include "dispatch_counters.h"
#include "kernel_cache.h"

namespace autogemm {

namespace {

/// Plans are per shape and math mode (a mode admits other families), and
/// apart for calls captured into a CUDA graph, whose split-K room is only
/// what the caller lent (see ContextState::plan).
struct PlanKey {
  ShapeKey shape;
  MathMode mode;
  bool capturing = false;
  size_t lent_floats = 0;  ///< captured calls: a power of two, or 0
  bool operator==(const PlanKey& o) const {
    return shape == o.shape && mode == o.mode && capturing == o.capturing && lent_floats == o.lent_floats;
  }
};

struct PlanKeyHash {
  size_t operator()(const PlanKey& k) const noexcept {
    const ShapeKey& s = k.shape;
    size_t h = std::hash<int64_t>()(s.m);
    h = h * 1000003u ^ std::hash<int64_t>()(s.n);
    h = h * 1000003u ^ std::hash<int64_t>()(s.k);
    h = h * 1000003u ^ std::hash<int64_t>()(s.batch);
    h = h * 1000003u ^ std::hash<size_t>()(k.lent_floats);
    return h * 31u + (size_t(s.trans_a) | size_t(s.trans_b) << 1 | size_t(s.aligned) << 2 |
                      size_t(k.mode) << 3 | size_t(k.capturing) << 5);
  }
};

/// Switches the calling thread to relaxed stream-capture mode for its
/// lifetime when `on`, so a kernel load during a capture does not invalidate it.
class RelaxedCapture {
 public:
  explicit RelaxedCapture(bool on) : on_(on) {
    if (on_) check(driver().cuThreadExchangeStreamCaptureMode(&mode_), "cuThreadExchangeStreamCaptureMode");
  }
  ~RelaxedCapture() {
    if (on_) driver().cuThreadExchangeStreamCaptureMode(&mode_);
  }
  RelaxedCapture(const RelaxedCapture&) = delete;
  RelaxedCapture& operator=(const RelaxedCapture&) = delete;

 private:
  bool on_;
  CUstreamCaptureMode mode_ = CU_STREAM_CAPTURE_MODE_RELAXED;
};

/// Floats of the caller's lent workspace a captured plan may use: the
/// largest power of two that fits (few distinct plans whatever the sizes),
/// 0 when none is lent or it is not 16-byte aligned (partials are stored 16
/// bytes at a time).
size_t lent_floats(const GemmArgs& args) {
  if (!args.workspace || reinterpret_cast<std::uintptr_t>(args.workspace) % 16 != 0) return 0;
  const unsigned long long floats = std::min<unsigned long long>(args.workspace_bytes / sizeof(float),
                                                                 kMaxWorkspaceFloats);
  size_t p = 1;
  while (p * 2 <= floats) p *= 2;
  return floats ? p : 0;
}

/// True while `stream` is being captured into a CUDA graph.
bool is_capturing(CUstream stream) {
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  check(driver().cuStreamIsCapturing(stream, &capture), "cuStreamIsCapturing");
  return capture != CU_STREAM_CAPTURE_STATUS_NONE;
}

/// The calling thread's own mode, if it set one (autogemm_set_thread_math_mode).
thread_local std::optional<MathMode> t_thread_mode;

struct Plan {
  std::shared_ptr<const LoadedKernel> kernel;
  PlanSource source = PlanSource::Default;
  ShapeRecorder::Usage* usage = nullptr;  ///< its call counter, when recording was on at first sight
};

/// Throws ApiError naming the first bad argument (reference-BLAS order).
void check_arguments(const GemmArgs& g) {
  const autogemm_status st = validate(g);
  if (st != AUTOGEMM_SUCCESS) throw ApiError(st, detail::argument_detail(g, st));
}

void check_operands(const GemmArgs& g) {
  const autogemm_status st = check_pointers(g);
  if (st != AUTOGEMM_SUCCESS) throw ApiError(st, detail::argument_detail(g, st));
}

}  // namespace

struct ContextState {
  CUcontext ctx = nullptr;
  // When ctx is its device's primary context, autogemm holds a reference to
  // it, so the caller releasing theirs cannot destroy the context (and the
  // modules loaded in it) under our plans.
  bool retained_primary = false;
  CUdevice device = 0;
  DeviceKey device_key;  ///< what the cache calls this GPU
  std::vector<TunedEntry> winners;
  std::vector<TunedEntry> builtin;  ///< built-in winners of the device's architecture
  SearchLimits limits;  ///< this device's, for the cost models of the fallback
  std::unique_ptr<KernelCache> kernels;
  std::shared_mutex plans_mu;
  std::unordered_map<PlanKey, Plan, PlanKeyHash> plans;
  std::mutex ws_mu;
  std::unordered_map<CUstream, DeviceBuffer> workspaces;

  /// The plan for `p`, made on first sight: policy, then kernel load; a
  /// config that fails to build or load falls back to the default, then to
  /// the generic kernel. A call captured into a CUDA graph gets a plan whose
  /// workspace fits in the `lent` floats its caller lends (none without):
  /// autogemm's own per-stream buffer may be freed and regrown after the
  /// graph baked its address in, and replays on other streams would share
  /// it. A new kernel loads under relaxed capture mode: loading a module is
  /// not stream work and must not end a capture the calling thread runs.
  const Plan& plan(const Problem& p, MathMode mode, ShapeRecorder* recorder, bool capturing = false,
                   size_t lent = 0) {
    const PlanKey key{p.key(), mode, capturing, capturing ? lent : 0};
    {
      std::shared_lock<std::shared_mutex> lock(plans_mu);
      if (auto it = plans.find(key); it != plans.end()) return it->second;
    }
    // Any thread may be capturing, describe() or not: loading is never graph work.
    const RelaxedCapture relaxed(true);
    PlanChoice choice = choose_config(p, winners, mode, limits, builtin, capturing ? lent : kMaxWorkspaceFloats);
    Plan plan;
    plan.source = choice.source;
    const KernelConfig candidates[] = {choice.config, default_config(p),
                                       KernelConfig::generic(p.trans_a, p.trans_b)};
    for (const KernelConfig& cfg : candidates) {
      try {
        plan.kernel = kernels->get(cfg);
        break;
      } catch (const CudaError&) {
        throw;  // the context itself is in trouble: report it
      } catch (const std::exception& e) {
        log().warn("kernel '{}' unusable for {} ({}); falling back", cfg.to_string(), p.to_string(), e.what());
        plan.source = PlanSource::Default;
      }
    }
    if (!plan.kernel) throw std::runtime_error("no kernel could be built for " + p.to_string());
    if (recorder) plan.usage = recorder->track(device_key, p.key(), plan.source == PlanSource::Exact);
    log().debug("plan for {}: {} ({}{})", p.to_string(), plan.kernel->config().to_string(), to_string(plan.source),
                capturing ? ", captured with " + std::to_string(lent) + " floats lent" : std::string());
    std::unique_lock<std::shared_mutex> lock(plans_mu);
    return plans.emplace(key, std::move(plan)).first->second;
  }

  /// Launches a split-K plan with this stream's workspace. The lock covers
  /// the launch, so another thread growing (freeing) the same stream's buffer
  /// cannot slip in between; cuMemFree on growth waits for work using it.
  void launch_with_workspace(const LoadedKernel& k, const CanonicalCall& call, CUstream stream, size_t floats) {
    std::lock_guard<std::mutex> lock(ws_mu);
    DeviceBuffer& buf = workspaces[stream];
    if (buf.bytes() < floats * sizeof(float)) {
      buf = DeviceBuffer();
      buf = DeviceBuffer(floats * sizeof(float));
      // Zero once (stream-ordered before the launch): kernels keep it zeroed.
      check(driver().cuMemsetD32Async(buf.get(), 0, floats, stream), "cuMemsetD32Async(workspace)");
    }
    k.launch(call, stream, buf.get());
  }

  /// Launches `k` for `call`: a captured split-K plan in the caller's lent
  /// memory (its counters zeroed on the stream first: lent memory holds
  /// anything), any other split-K plan in this stream's own workspace.
  void launch(const LoadedKernel& k, const CanonicalCall& call, CUstream stream, bool capturing, void* lent) {
    const KernelConfig& cfg = k.config();
    const size_t floats = cfg.workspace_floats(call.problem);
    if (!floats) return k.launch(call, stream, 0);
    if (!capturing) return launch_with_workspace(k, call, stream, floats);
    const CUdeviceptr ws = reinterpret_cast<CUdeviceptr>(lent);
    if (const size_t counters = cfg.family().workspace_counter_floats(cfg))
      check(driver().cuMemsetD32Async(ws, 0, counters, stream), "cuMemsetD32Async(lent workspace)");
    k.launch(call, stream, ws);
  }

  ~ContextState() {
    // Kernels and buffers go first, while the context is certainly alive.
    plans.clear();
    kernels.reset();
    workspaces.clear();
    if (retained_primary) driver().cuDevicePrimaryCtxRelease(device);
  }
};

Dispatcher& Dispatcher::instance() {
  // Never destroyed: kernels and modules must not be unloaded during static
  // destruction, when the driver may already be gone.
  static Dispatcher* d = new Dispatcher();
  return *d;
}

Dispatcher::Dispatcher()
    : counters_(std::make_unique<DispatchCounters>()), process_mode_(int(MathMode::Strict)) {
  std::string bad;
  process_mode_ = int(math_mode_from_environment(&bad));
  if (!bad.empty())
    log().warn("AUTOGEMM_MATH_MODE='{}' is not a math mode (strict, fp32_accurate); using strict", bad);
  bool known = true;
  const char* record = std::getenv("AUTOGEMM_RECORD_UNTUNED");
  recorder_.set_enabled(ShapeRecorder::parse_switch(record, &known));
  if (!known) log().warn("AUTOGEMM_RECORD_UNTUNED='{}' is neither 1 nor 0; not recording shapes", record);
  std::vector<std::string> warnings;
  online_ = std::make_unique<OnlineTuner>(OnlineTuner::from_environment(&warnings));
  for (const std::string& w : warnings) log().warn("{}", w);
}

void Dispatcher::reload_after_tuning() {
  std::unique_lock<std::shared_mutex> lock(mu_);
  contexts_.clear();
  // An open store sees the new rows as they are; only a cache the tuning
  // created must be opened (old states hold no store then: nothing dangles).
  if (!store_) store_opened_ = false;
}

void Dispatcher::tune_online(const ContextState& state, const Problem& p, bool capturing) {
  std::string path;
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    path = path_chosen_ ? path_ : TuningCache::default_path();
  }
  online_->request(path, int(state.device), p.key(), capturing);
}

void Dispatcher::set_process_mode(MathMode m) { process_mode_.store(int(m), std::memory_order_relaxed); }
void Dispatcher::set_thread_mode(std::optional<MathMode> m) { t_thread_mode = m; }
MathMode Dispatcher::mode() const {
  return t_thread_mode ? *t_thread_mode : MathMode(process_mode_.load(std::memory_order_relaxed));
}
Dispatcher::~Dispatcher() = default;

void Dispatcher::open_store_locked() {
  store_opened_ = true;
  store_.reset();
  const std::string path = path_chosen_ ? path_ : TuningCache::default_path();
  recorder_.set_path(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    log().info("no tuning cache at {}: built-in defaults until gemm_tune fills it", path);
    return;
  }
  store_ = TuningCache::open(path, TuningCache::Mode::ReadOnly);
  std::string why;
  cubins_trusted_ = TuningCache::cubins_trusted(path, &why);
  if (!cubins_trusted_)
    log().warn("tuning cache {}: its stored kernels are not loaded, because {}; its tuned configs are used, "
               "compiled here by NVRTC (chmod go-w the file and its directory to use them)",
               path, why);
}

void Dispatcher::open_store_once_locked() {
  if (store_opened_) return;
  try {
    open_store_locked();
  } catch (const std::exception& e) {
    log().warn("tuning cache unusable, running on built-in defaults: {}", e.what());
    store_.reset();
  }
}

void Dispatcher::init(const char* path) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  contexts_.clear();
  path_chosen_ = path != nullptr;
  path_ = path ? path : "";
  try {
    open_store_locked();
  } catch (const std::exception& e) {
    log().warn("tuning cache unusable, running on built-in defaults: {}", e.what());
    store_.reset();
    // Whatever went wrong, the caller learns one thing: this file is not used.
    if (dynamic_cast<const CacheError*>(&e)) throw;
    throw CacheError(e.what());
  }
}

void Dispatcher::shutdown() {
  try {
    recorder_.flush();
  } catch (const std::exception& e) {
    log().warn("recorded shapes not written at shutdown: {}", e.what());
  }
  std::unique_lock<std::shared_mutex> lock(mu_);
  contexts_.clear();
  store_.reset();
  store_opened_ = false;
}

std::shared_ptr<ContextState> Dispatcher::context_state(CUcontext ctx) {
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    for (auto& c : contexts_)
      if (c->ctx == ctx) return c;
  }
  std::unique_lock<std::shared_mutex> lock(mu_);
  for (auto& c : contexts_)
    if (c->ctx == ctx) return c;
  open_store_once_locked();
  auto state = std::make_shared<ContextState>();
  state->ctx = ctx;
  AUTOGEMM_CU(cuCtxGetDevice(&state->device));
  CUcontext primary = nullptr;
  AUTOGEMM_CU(cuDevicePrimaryCtxRetain(&primary, state->device));
  if (primary == ctx)
    state->retained_primary = true;
  else
    driver().cuDevicePrimaryCtxRelease(state->device);  // a user-made context: theirs to keep alive
  DeviceInfo dev = DeviceInfo::current();
  state->device_key = dev.key();
  if (store_) {
    try {
      state->winners = usable_winners(store_->load_winners(dev.key()));
      log().info("{} tuned shapes for {} ({}) in {}", state->winners.size(), dev.name, dev.arch(),
                 store_->path());
    } catch (const std::exception& e) {
      log().warn("could not read tuned shapes, using built-in defaults: {}", e.what());
    }
  }
  state->limits = SearchLimits::of(dev);
  state->builtin = builtin_entries(dev.arch());
  // Stored cubins come only from a file no one else can write (a cache carries code).
  state->kernels =
      std::make_unique<KernelCache>(std::move(dev), cubins_trusted_ ? store_.get() : nullptr, counters_.get());
  contexts_.push_back(state);
  return state;
}

CUcontext Dispatcher::current_context() {
  std::string why;
  const DriverApi* d = driver_api(&why);
  if (!d) throw ApiError(AUTOGEMM_NO_DEVICE, why);
  CUcontext ctx = nullptr;
  const CUresult r = d->cuCtxGetCurrent(&ctx);
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    d->cuGetErrorName(r, &name);
    throw ApiError(AUTOGEMM_NO_CONTEXT, std::string("cuCtxGetCurrent failed: ") + (name ? name : "CUDA error"));
  }
  if (!ctx)
    throw ApiError(AUTOGEMM_NO_CONTEXT,
                   "no CUDA context is current on the calling thread: make one current first "
                   "(cudaSetDevice and any runtime call such as cudaFree(0), or cuCtxSetCurrent)");
  return ctx;
}

void Dispatcher::sgemm(const GemmArgs& args, CUstream stream) {
  check_arguments(args);
  if (is_quick_return(args)) return;
  check_operands(args);
  const CUcontext ctx = current_context();
  if (online_->take_finished()) reload_after_tuning();
  try {
    const CanonicalCall call = normalize(args);
    const std::shared_ptr<ContextState> state = context_state(ctx);
    const bool capturing = is_capturing(stream);
    const Plan& plan =
        state->plan(call.problem, mode(), recorder_.enabled() ? &recorder_ : nullptr, capturing, lent_floats(args));
    if (plan.usage)
      plan.usage->calls.fetch_add(1, std::memory_order_relaxed);
    else if (recorder_.enabled())  // a plan made before recording was turned on
      recorder_.track(state->device_key, call.problem.key(), plan.source == PlanSource::Exact)
          ->calls.fetch_add(1, std::memory_order_relaxed);
    if (plan.source != PlanSource::Exact && online_->enabled()) tune_online(*state, call.problem, capturing);
    state->launch(*plan.kernel, call, stream, capturing, args.workspace);
    counters_->calls.fetch_add(1, std::memory_order_relaxed);
    auto& hit = plan.source == PlanSource::Exact     ? counters_->exact
                : plan.source == PlanSource::Nearest ? counters_->nearest
                                                     : counters_->fallback;
    hit.fetch_add(1, std::memory_order_relaxed);
    if (plan.kernel->config().family().accuracy() == AccuracyClass::Fp32Accurate)
      counters_->fp32_accurate.fetch_add(1, std::memory_order_relaxed);
  } catch (const std::exception& e) {
    // A run-time failure of real work is worth a line in the log even when
    // the caller only looks at the status.
    log().error("autogemm_sgemm failed: {}", e.what());
    throw;
  }
}

PlanDescription Dispatcher::describe(const GemmArgs& args) {
  check_arguments(args);
  const CUcontext ctx = current_context();
  const CanonicalCall call = normalize(args);
  const MathMode m = mode();
  const Plan& plan = context_state(ctx)->plan(call.problem, m, recorder_.enabled() ? &recorder_ : nullptr);
  PlanDescription out;
  const KernelConfig& cfg = plan.kernel->config();
  out.config = cfg.to_string();
  out.family = cfg.family().name();
  out.source = plan.source;
  out.mode = m;
  out.accuracy = cfg.family().accuracy();
  return out;
}

void Dispatcher::flush_recorded() {
  {
    // The file is known once the store was looked for (first call or init).
    std::unique_lock<std::shared_mutex> lock(mu_);
    open_store_once_locked();
  }
  recorder_.flush();
}

void Dispatcher::stats(autogemm_stats* out) const { counters_->snapshot(out); }

}  // namespace autogemm
