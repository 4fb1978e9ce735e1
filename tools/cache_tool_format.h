// Formats of autogemm_cache: the JSON export (winners, trials, devices) and
// the text tables, shared by its subcommands.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "autogemm/tuning_cache.h"

namespace autogemm::cache_tool {

using nlohmann::json;

/// The export's "format" field and the newest format version this build writes.
extern const char* const kFormat;
constexpr int kFormatVersion = 1;

void put_shape(json& j, const ShapeKey& s);
ShapeKey get_shape(const json& j);
json device_json(const DeviceKey& d);
DeviceKey get_device(const json& j);
json winner_json(const WinnerRecord& w);
WinnerRecord get_winner(const json& j);
json trial_json(const TrialRow& r);
TrialRow get_trial(const json& j);
json request_json(const ShapeRequest& r);
ShapeRequest get_request(const json& j);

/// "NN", "NT", ... of a canonical shape.
std::string layout(const ShapeKey& s);
/// "MxNxK".
std::string dims(const ShapeKey& s);
std::string utc(int64_t unix_seconds);
std::string fixed(double v, int digits);
void print_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

/// The canonical shape (what the cache stores) of a shape as the tools take
/// it; throws CLI::ValidationError naming `option`.
ShapeKey parse_shape_arg(const std::string& text, const char* option = "--shape");
/// Same problem in canonical form; the alignment class is not part of a
/// shape's text, so both classes match.
bool same_problem(const ShapeKey& a, const ShapeKey& b);

/// Opens `db` (the default cache when empty).
std::unique_ptr<TuningCache> open_db(const std::string& db, TuningCache::Mode mode);

}  // namespace autogemm::cache_tool
