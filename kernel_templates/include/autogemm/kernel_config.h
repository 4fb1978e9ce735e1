// KernelConfig: the typed, range-checked parameters of one kernel.
//
// A config is everything NVRTC needs to specialise a template. Its canonical
// text form (to_string) is what the cache stores; parse() is the only way
// text from outside (a cache file, a command line) becomes a config, and it
// rejects anything out of range, so no outside text ever reaches NVRTC.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace autogemm {

struct Problem;

enum class KernelKind { Tiled, Generic };

struct KernelConfig {
  KernelKind kind = KernelKind::Generic;
  // Tiled parameters (see kernel_templates/sgemm_tiled.cu for their meaning).
  int bm = 0, bn = 0, bk = 0, tm = 0, tn = 0;
  int wc = 8;       ///< threads of a warp along N
  int vec = 1;      ///< 4: 16-byte global access (aligned class); 1: any
  int split_k = 1;  ///< K slices reduced deterministically (1..256)
  int split_reduce = 0;  ///< split-K only: 0 the last block of a tile reduces
                         ///< in-kernel; 1 a second kernel reduces all tiles
  int swizzle = 1;  ///< block raster group height
  int stages = 0;   ///< global->shared pipeline: 0 register staging (two
                    ///< shared buffers), 2..4 cp.async with that many buffers
  int min_blocks = 1;  ///< blocks per SM promised to the register allocator
                       ///< (__launch_bounds__); > 1 caps registers per thread
  int k_unroll = 0;    ///< k steps unrolled in the inner product (0: all bk)
  // Operand layouts of the canonical problem the kernel is built for.
  bool trans_a = false, trans_b = false;

  /// Canonical text, e.g. "tiled bm=128 bn=128 bk=8 tm=8 tn=8 wc=8 vec=4 sk=1 sw=8 ta=0 tb=0";
  /// with split-K the reduction mode follows sk: "... sk=8 rd=1 sw=1 ...";
  /// st (stages), mb (min blocks) and ku (k unroll) appear after sw only
  /// when not 0, 1 and 0.
  std::string to_string() const;
  /// Parses canonical text; nullopt (with *error) unless every field is present,
  /// known and in range (is_valid).
  static std::optional<KernelConfig> parse(const std::string& text, std::string* error = nullptr);
  /// Static range and consistency checks, independent of any device.
  bool is_valid(std::string* why = nullptr) const;

  int threads() const;
  /// Dynamic shared memory in bytes (0 for the generic kernel).
  size_t smem_bytes() const;
  /// True when this config computes `p` correctly (layouts and alignment match).
  bool can_implement(const Problem& p) const;
  /// Split-K tile counters at the start of every workspace (AG_SPLIT_TILES).
  static constexpr size_t kSplitTiles = 65536;
  /// Largest split-K workspace dispatch allocates, in floats (256 MiB); the
  /// tuner never proposes a config that needs more.
  static constexpr size_t kMaxWorkspaceFloats = size_t(64) << 20;
  /// Workspace floats needed for `p` (tile counters, then split-K partial
  /// sums), 0 if none. A workspace must be zero-filled when allocated; the
  /// kernels leave its counters zero, so it serves any later problem.
  size_t workspace_floats(const Problem& p) const;

  /// -D definitions for NVRTC.
  std::vector<std::string> defines() const;

  bool operator==(const KernelConfig& o) const { return to_string() == o.to_string(); }

  static KernelConfig generic(bool trans_a, bool trans_b);
};

/// The built-in default for `p`: a tiled config that implements any problem
/// of its layouts and alignment class, reasonable at every size.
KernelConfig default_config(const Problem& p);

}  // namespace autogemm
