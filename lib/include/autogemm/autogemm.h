/* autogemm.h — the public C API of libautogemm.
 *
 * autogemm_sgemm computes C = alpha * op(A) * op(B) + beta * C in FP32 on
 * device pointers (from cudaMalloc / cuMemAlloc), asynchronously on the
 * caller's stream, with the kernel configuration tuned for this GPU and shape
 * (see gemm_tune). Arguments follow cblas_sgemm; the stream comes last.
 *
 * Threading: every function is thread-safe. autogemm_sgemm never
 * synchronizes the caller's stream. The CUDA context current on the calling
 * thread is the one used (the runtime API's primary context once the caller
 * has touched the device, e.g. with cudaMalloc or cudaSetDevice).
 *
 * Errors are returned as autogemm_status; no C++ exception crosses this API.
 * autogemm_last_error gives the detail behind the last failure of the thread.
 *
 * Floating-point environment: no function of this API leaves a floating-point
 * exception flag raised, cleared or changed in the caller's thread, whatever
 * the arguments (NaN, zero sizes, bad values). Each saves the caller's
 * environment on entry, runs with its flags clear, every exception
 * non-trapping and round-to-nearest, and restores the caller's flags, traps,
 * rounding and denormal modes on exit. A caller may therefore enable traps
 * (feenableexcept) or test flags around a call without autogemm interfering.
 */
#ifndef AUTOGEMM_AUTOGEMM_H
#define AUTOGEMM_AUTOGEMM_H

#if defined(__GNUC__)
#define AUTOGEMM_API __attribute__((visibility("default")))
#else
#define AUTOGEMM_API
#endif

/* In C++ the enums get a fixed underlying type, so any int a C caller
 * passes (say 999 as a layout) is a valid value to reject, not undefined
 * behaviour. The C ABI is unchanged: the type is int either way. */
#ifdef __cplusplus
#define AUTOGEMM_ENUM_BASE : int
#else
#define AUTOGEMM_ENUM_BASE
#endif

/* The version of this header, as CMake's project(autogemm VERSION ...).
 * AUTOGEMM_VERSION is one number that grows with every release:
 * 10000 * major + 100 * minor + patch (0.1.0 is 100). Compare it with
 * autogemm_version() to detect a header/library mismatch at run time. */
#define AUTOGEMM_VERSION_MAJOR 0
#define AUTOGEMM_VERSION_MINOR 1
#define AUTOGEMM_VERSION_PATCH 0
#define AUTOGEMM_VERSION \
  (AUTOGEMM_VERSION_MAJOR * 10000 + AUTOGEMM_VERSION_MINOR * 100 + AUTOGEMM_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* Same values as CBLAS_LAYOUT / CBLAS_TRANSPOSE. */
typedef enum AUTOGEMM_ENUM_BASE { AUTOGEMM_ROW_MAJOR = 101, AUTOGEMM_COL_MAJOR = 102 } autogemm_layout;
typedef enum AUTOGEMM_ENUM_BASE {
  AUTOGEMM_NO_TRANS = 111,
  AUTOGEMM_TRANS = 112,
  AUTOGEMM_CONJ_TRANS = 113 /* same as AUTOGEMM_TRANS for real data */
} autogemm_transpose;

typedef enum AUTOGEMM_ENUM_BASE {
  AUTOGEMM_SUCCESS = 0,
  /* Invalid arguments, reported in reference-BLAS order; nothing is written. */
  AUTOGEMM_INVALID_LAYOUT = 1,
  AUTOGEMM_INVALID_TRANS_A = 2,
  AUTOGEMM_INVALID_TRANS_B = 3,
  AUTOGEMM_INVALID_M = 4,
  AUTOGEMM_INVALID_N = 5,
  AUTOGEMM_INVALID_K = 6,
  AUTOGEMM_INVALID_LDA = 7,
  AUTOGEMM_INVALID_LDB = 8,
  AUTOGEMM_INVALID_LDC = 9,
  AUTOGEMM_NULL_A = 10,
  AUTOGEMM_NULL_B = 11,
  AUTOGEMM_NULL_C = 12,
  /* Strided-batched calls only, checked after ldc in this order. */
  AUTOGEMM_INVALID_BATCH_COUNT = 13, /* negative */
  AUTOGEMM_INVALID_STRIDE_A = 14,    /* negative or huge, with more than one product */
  AUTOGEMM_INVALID_STRIDE_B = 15,
  AUTOGEMM_INVALID_STRIDE_C = 16,    /* the products' C would share elements */
  /* Run-time failures. */
  AUTOGEMM_NO_DEVICE = 20,      /* no CUDA driver or no GPU */
  AUTOGEMM_NO_CONTEXT = 21,     /* no CUDA context is current on this thread */
  AUTOGEMM_CUDA_ERROR = 22,     /* a CUDA driver call failed */
  AUTOGEMM_COMPILE_ERROR = 23,  /* NVRTC failed to build a kernel */
  AUTOGEMM_OUT_OF_MEMORY = 24,
  AUTOGEMM_CACHE_ERROR = 25,    /* only from autogemm_init with an unusable file */
  AUTOGEMM_INTERNAL_ERROR = 26,
  AUTOGEMM_INVALID_MATH_MODE = 27 /* autogemm_set_(thread_)math_mode: no such mode */
} autogemm_status;

/* Opaque CUDA stream (cudaStream_t and CUstream are both this type). */
struct CUstream_st;

/* A short English sentence for a status code (static storage). */
AUTOGEMM_API const char* autogemm_status_string(autogemm_status status);

/* The detail behind the last status other than AUTOGEMM_SUCCESS that a
 * function returning autogemm_status (autogemm_init, autogemm_sgemm,
 * autogemm_describe, autogemm_describe_plan, autogemm_record_shapes,
 * autogemm_flush_recorded_shapes, the math-mode setters) returned on the
 * calling thread:
 * the parameter that was wrong and its value, the CUDA driver's error, the
 * reason the cache file was refused, ... One line of English, never NULL.
 *
 * Each of those functions sets it when it fails and empties it ("") when it
 * succeeds, so it is "" after a success and before the thread's first call.
 * The other functions (autogemm_status_string, autogemm_last_error,
 * autogemm_version, autogemm_get_stats, autogemm_shutdown) leave it as it is.
 * The text is per thread; the pointer stays valid, and the text unchanged,
 * until the calling thread next calls a status-returning autogemm function
 * or exits. */
AUTOGEMM_API const char* autogemm_last_error(void);

/* The version of the library loaded at run time: returns its
 * AUTOGEMM_VERSION number and stores its parts where the pointers are not
 * NULL. It may differ from the header's macros when a program runs against
 * another build of libautogemm than it was compiled with. */
AUTOGEMM_API int autogemm_version(int* major, int* minor, int* patch);

/* Chooses the tuning cache file for this process before the first
 * autogemm_sgemm. NULL selects the default: $AUTOGEMM_CACHE, else
 * $XDG_CACHE_HOME/autogemm/tuning.db, else ~/.cache/autogemm/tuning.db.
 * Without a call, the default is used. A cache that is missing is fine
 * (built-in defaults); one that cannot be read returns AUTOGEMM_CACHE_ERROR
 * (autogemm_last_error says why) and autogemm keeps working on built-in
 * defaults. Calling it again switches
 * the file and forgets what was loaded from the previous one. */
AUTOGEMM_API autogemm_status autogemm_init(const char* cache_path);

/* Releases kernels and caches of this process (optional, e.g. before exit). */
AUTOGEMM_API void autogemm_shutdown(void);

/* C = alpha * op(A) * op(B) + beta * C, as cblas_sgemm, on device memory.
 * Reference-BLAS contract: alpha == 0 never reads A or B; beta == 0 never
 * reads C; quick return (nothing touched) when M == 0 or N == 0, or when
 * (alpha == 0 or K == 0) and beta == 1. Asynchronous on `stream` (NULL: the
 * legacy default stream). */
AUTOGEMM_API autogemm_status autogemm_sgemm(autogemm_layout layout, autogemm_transpose trans_a,
                               autogemm_transpose trans_b, int m, int n, int k, float alpha,
                               const float* a, int lda, const float* b, int ldb, float beta,
                               float* c, int ldc, struct CUstream_st* stream);

/* A strided batch of `batch_count` independent products, each as
 * autogemm_sgemm with the same sizes, scalars and leading dimensions:
 *   C + i * stride_c = alpha * op(A + i * stride_a) * op(B + i * stride_b)
 *                      + beta * (C + i * stride_c),   i = 0 .. batch_count - 1
 * (strides in floats, as cublasSgemmStridedBatched). One launch covers the
 * batch (the batch is a grid dimension), tuned and cached like the plain call
 * under the shape and a bucket of the count (gemm_tune --shape 64x64x64@4096).
 * Quick return (nothing touched) when batch_count == 0 or as autogemm_sgemm.
 * With more than one product: stride_a and stride_b may be anything >= 0
 * (0 reuses one matrix for every product); the products' C must not share an
 * element: stride_c at least past one C, or the Cs side by side within each
 * row of width ldc (stride_c >= the row length and batch_count rows of it
 * fit in ldc). A bad count or stride returns AUTOGEMM_INVALID_BATCH_COUNT or
 * AUTOGEMM_INVALID_STRIDE_A/B/C, after the checks of autogemm_sgemm. */
AUTOGEMM_API autogemm_status autogemm_sgemm_strided_batched(
    autogemm_layout layout, autogemm_transpose trans_a, autogemm_transpose trans_b, int m, int n, int k,
    float alpha, const float* a, int lda, long long stride_a, const float* b, int ldb, long long stride_b,
    float beta, float* c, int ldc, long long stride_c, int batch_count, struct CUstream_st* stream);

/* autogemm_sgemm_strided_batched with device memory the caller lends for
 * this call, as cuBLAS's handle workspace is: `workspace_bytes` bytes at
 * `workspace` (16-byte aligned), used only by work this call enqueues on
 * `stream`. It matters inside a CUDA graph capture: a captured call takes a
 * split-K plan only if that plan's partial tiles fit in the lent memory (with
 * none lent it takes none, since autogemm's own per-stream buffer may move
 * after the graph recorded its address). Outside a capture autogemm keeps
 * using its own buffer. NULL, 0 or a misaligned pointer: exactly
 * autogemm_sgemm_strided_batched. batch_count 1 with zero strides is one
 * product, as autogemm_sgemm. */
AUTOGEMM_API autogemm_status autogemm_sgemm_strided_batched_workspace(
    autogemm_layout layout, autogemm_transpose trans_a, autogemm_transpose trans_b, int m, int n, int k,
    float alpha, const float* a, int lda, long long stride_a, const float* b, int ldb, long long stride_b,
    float beta, float* c, int ldc, long long stride_c, int batch_count, void* workspace,
    unsigned long long workspace_bytes, struct CUstream_st* stream);

/* Recording the shapes an application runs, so that
 * `gemm_tune --from-record` tunes exactly those. When on, each shape
 * autogemm_sgemm dispatches (canonical form, alignment class, on this GPU) is
 * counted in memory (an atomic add per call) and written to the tuning cache
 * file (table requested_shapes, created if the file is missing) by a
 * background thread every few seconds, by autogemm_flush_recorded_shapes,
 * by autogemm_shutdown and at exit. Off by default; AUTOGEMM_RECORD_UNTUNED=1
 * turns it on from the start. `autogemm_cache coverage` shows the record
 * against what is tuned. */
AUTOGEMM_API autogemm_status autogemm_record_shapes(int enable);
/* Writes the recorded counts now. AUTOGEMM_CACHE_ERROR (autogemm_last_error
 * says why) when the file cannot be written; the counts are kept and written
 * by a later flush. */
AUTOGEMM_API autogemm_status autogemm_flush_recorded_shapes(void);

/* Math modes, in the spirit of cublasSetMathMode. STRICT (the default) runs
 * FFMA kernels only: plain FP32 arithmetic. FP32_ACCURATE also admits
 * tensor-core kernel families that reach FP32 accuracy by splitting each
 * operand into two TF32 parts (3xTF32); they are verified against the same
 * FP64 bound as the FFMA kernels. No mode ever selects lossy arithmetic
 * (plain TF32, FP16). DEFAULT, for autogemm_set_thread_math_mode only, makes
 * the thread follow the process mode again. The process mode starts as
 * $AUTOGEMM_MATH_MODE ("strict" or "fp32_accurate"), else STRICT. */
typedef enum AUTOGEMM_ENUM_BASE {
  AUTOGEMM_MATH_DEFAULT = -1,
  AUTOGEMM_MATH_STRICT = 0,
  AUTOGEMM_MATH_FP32_ACCURATE = 1
} autogemm_math_mode;

/* Sets the mode of every thread that has not set its own. Returns
 * AUTOGEMM_INVALID_MATH_MODE for anything but STRICT or FP32_ACCURATE. */
AUTOGEMM_API autogemm_status autogemm_set_math_mode(autogemm_math_mode mode);
/* Sets the calling thread's mode (DEFAULT: follow the process mode again). */
AUTOGEMM_API autogemm_status autogemm_set_thread_math_mode(autogemm_math_mode mode);
/* The mode autogemm_sgemm uses on the calling thread (never DEFAULT). */
AUTOGEMM_API autogemm_math_mode autogemm_get_math_mode(void);

/* Counters of this process, for tests and diagnostics. */
typedef struct {
  unsigned long long calls;          /* autogemm_sgemm calls that launched work */
  unsigned long long exact_hits;     /* dispatched with the tuned config of that shape */
  unsigned long long nearest_hits;   /* with a config tuned for another shape */
  unsigned long long default_hits;   /* with the built-in default */
  unsigned long long nvrtc_compiles; /* kernels compiled by NVRTC in this process */
  unsigned long long cubins_loaded;  /* kernels loaded from cubins stored in the cache */
  unsigned long long fp32_accurate_calls; /* calls run by an FP32-accurate tensor-core family */
} autogemm_stats;

AUTOGEMM_API void autogemm_get_stats(autogemm_stats* out);

/* Where a plan's config came from (the dispatch policy's three steps). */
typedef enum AUTOGEMM_ENUM_BASE {
  AUTOGEMM_PLAN_EXACT = 0,   /* tuned for exactly this shape on this GPU */
  AUTOGEMM_PLAN_NEAREST = 1, /* tuned for another shape, chosen by the cost model */
  AUTOGEMM_PLAN_DEFAULT = 2  /* built-in default: nothing tuned applies, or */
                             /* the cost model expects it to beat what does */
} autogemm_plan_source;

/* Sizes of the text fields of autogemm_plan_info, terminating zero included. */
#define AUTOGEMM_PLAN_FAMILY_SIZE 32
#define AUTOGEMM_PLAN_CONFIG_SIZE 256
#define AUTOGEMM_PLAN_SOURCE_SIZE 16

/* The kernel dispatch would run for a call. Every text field is
 * zero-terminated within its array. */
typedef struct {
  char family[AUTOGEMM_PLAN_FAMILY_SIZE]; /* kernel family: "tiled", "generic", ... */
  char config[AUTOGEMM_PLAN_CONFIG_SIZE]; /* canonical config text, beginning with the
                                             family: what gemm_tune stores and
                                             autogemm_cache lists */
  char source_name[AUTOGEMM_PLAN_SOURCE_SIZE]; /* "exact", "nearest" or "default" */
  autogemm_plan_source source;
  autogemm_math_mode math_mode;  /* the calling thread's mode the plan was made for */
  int fp32_accurate;             /* 1: a tensor-core FP32-accurate family; 0: strict FFMA */
} autogemm_plan_info;

/* The plan dispatch would use for this call on the current context (for tools
 * and diagnostics), loading its kernel as the first autogemm_sgemm of the
 * shape would. Validates the arguments like autogemm_sgemm, with alpha = 1
 * and beta = 0; the pointers only select the alignment class (they are never
 * read, and NULL is accepted). On success fills *out when it is not NULL; on
 * failure leaves *out untouched. */
AUTOGEMM_API autogemm_status autogemm_describe_plan(autogemm_layout layout, autogemm_transpose trans_a,
                                       autogemm_transpose trans_b, int m, int n, int k,
                                       const float* a, int lda, const float* b, int ldb,
                                       const float* c, int ldc, autogemm_plan_info* out);

/* autogemm_describe_plan for autogemm_sgemm_strided_batched's arguments (a
 * batch has plans of its own: its count's bucket is part of the key). */
AUTOGEMM_API autogemm_status autogemm_describe_plan_strided_batched(
    autogemm_layout layout, autogemm_transpose trans_a, autogemm_transpose trans_b, int m, int n, int k,
    const float* a, int lda, long long stride_a, const float* b, int ldb, long long stride_b, const float* c,
    int ldc, long long stride_c, int batch_count, autogemm_plan_info* out);

/* The same plan as one line of text: the config text, one space, and the
 * source in parentheses, e.g.
 *   "tiled bm=128 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0 (exact)".
 * The last " (" of the line separates the two (autogemm_describe_plan gives
 * them apart, with the family, without any parsing). On success writes at
 * most `size` bytes including the terminating zero (a longer line is cut
 * short; AUTOGEMM_PLAN_CONFIG_SIZE + AUTOGEMM_PLAN_SOURCE_SIZE bytes always
 * suffice); on failure, or with config NULL or size 0, writes nothing. */
AUTOGEMM_API autogemm_status autogemm_describe(autogemm_layout layout, autogemm_transpose trans_a,
                                  autogemm_transpose trans_b, int m, int n, int k,
                                  const float* a, int lda, const float* b, int ldb,
                                  const float* c, int ldc, char* config, unsigned long size);

#ifdef __cplusplus
}
#endif

#endif /* AUTOGEMM_AUTOGEMM_H */
