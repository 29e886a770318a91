#pragma once
// Running one resolved run (models/resolve/resolved_run.hpp) on SimGrid: the engine's entry.

#include <string>

#include "models/resolve/resolved_run.hpp"
#include "sim/engine/results.hpp"

namespace vtsim::sim {

/// What to produce besides the result.
struct SimulationOptions {
  /// Where to write a Chrome trace-event timeline; "" for none.
  std::string trace_file;
};

/// Simulates a resolved run (models/resolve/resolve.hpp resolve(); runner/point_runner.hpp simulate(scenario) does
/// both) and returns its figures. The engine's entry: it reads no scenario and no catalog. REQUIRES: no other
/// simulation has run in this process: SimGrid allows one engine per process, so callers that simulate several runs
/// run each in its own process.
SimulationResult simulate(const ResolvedRun& run, const SimulationOptions& options = {});

}  // namespace vtsim::sim
