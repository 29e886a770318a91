#pragma once
// Running one scenario on SimGrid.

#include <string>

#include "models/resolve/resolve.hpp"
#include "sim/results.hpp"

namespace vtsim {
struct Scenario;
}  // namespace vtsim

namespace vtsim::sim {

/// What to produce besides the result.
struct SimulationOptions {
  /// Where to write a Chrome trace-event timeline; "" for none.
  std::string trace_file;
};

/// Simulates `scenario` and returns its figures. Throws InputError for a scenario that validates but cannot run
/// (a job that does not fit in memory, a combination not modelled): resolve() (models/resolve/resolve.hpp) raises it
/// before the engine starts. REQUIRES: no other simulation has run in this process: SimGrid allows one engine per
/// process, so callers that simulate several scenarios run each in its own process.
SimulationResult simulate(const Scenario& scenario, const SimulationOptions& options = {});

/// Simulates a resolved run (simulate(scenario) is simulate(resolve(scenario)), its wall clock's plan_s including
/// the resolving). The engine's entry: it reads no scenario and no catalog. REQUIRES: as simulate(scenario).
SimulationResult simulate(const ResolvedRun& run, const SimulationOptions& options = {});

}  // namespace vtsim::sim
