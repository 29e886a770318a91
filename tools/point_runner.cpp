#include "tools/point_runner.hpp"

#include "sim/simulation.hpp"
#include "tools/isolated_run.hpp"

namespace vtsim::tools {

nlohmann::json simulate_point(const Scenario& scenario, const std::string& trace_file) {
  return run_isolated([&] { return sim::to_json(sim::simulate(scenario, sim::SimulationOptions{trace_file})); });
}

}  // namespace vtsim::tools
