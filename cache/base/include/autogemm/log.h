// Logging: one spdlog logger for all of autogemm (library, store, tools), level
// from AUTOGEMM_LOG_LEVEL (trace, debug, info, warn, error, off; default warn).
#pragma once

#include <spdlog/spdlog.h>

namespace autogemm {

/// The "autogemm" logger (stderr, never stdout), created on first use. It is
/// not registered with spdlog: a host program's default logger is its own.
spdlog::logger& log();

/// Overrides the level (tools raise it to info); AUTOGEMM_LOG_LEVEL still wins.
void set_default_log_level(spdlog::level::level_enum level);

}  // namespace autogemm
