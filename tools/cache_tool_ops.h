// autogemm_cache's subcommands that work on whole caches: list (filtered),
// merge (another cache file into this one), diff (two caches), prune, vacuum;
// and the views coverage and show.
#pragma once

#include <optional>
#include <string>

#include "autogemm/tuning_keys.h"

namespace autogemm::cache_tool {

/// What `list` shows: winners, or with `trials` every trial; each filter
/// applies when set (device: part of the device's name; status: trials only).
struct ListFilter {
  bool trials = false;
  std::string device, shape, family, status;
};
int cmd_list(const std::string& db, const ListFilter& f, bool as_json);

/// Merges the cache at `from` into `db`: winners by the record_winner rule
/// (the faster verified one stays), trials upserted, nothing deleted. The
/// other cache's cubins are code from elsewhere: taken only with
/// `trust_cubins`, else counted and left behind.
int cmd_merge(const std::string& db, const std::string& from, bool trust_cubins, bool as_json);

/// Winners of cache `a` against cache `b`, per device, shape and family:
/// added, removed, faster, slower (beyond both spreads) or the same.
int cmd_diff(const std::string& a, const std::string& b, bool as_json);

/// Removes (`dry_run`: counts) the rows of kernel templates this build no
/// longer has and cubins of another NVRTC than this machine's.
int cmd_prune(const std::string& db, bool dry_run, bool as_json);

/// SQLite VACUUM on `db`, with the file's size before and after.
int cmd_vacuum(const std::string& db, bool as_json);

// cache_tool_views.cpp

/// The recorded shapes (AUTOGEMM_RECORD_UNTUNED) of each device whose name
/// contains `device`, each with its fastest winner if tuned; per device the
/// share of shapes and of calls that are tuned.
int cmd_coverage(const std::string& db, const std::string& device, bool as_json);

/// Everything stored about one shape (both alignment classes): the winner of
/// each family, every trial (fastest verified first) and its recorded calls.
int cmd_show(const std::string& db, const std::string& shape, const std::string& device, bool as_json);

}  // namespace autogemm::cache_tool
