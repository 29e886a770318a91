#include "tools/run_command.hpp"

#include "models/scenario.hpp"
#include "sim/simulation.hpp"
#include "tools/check_command.hpp"
#include "tools/isolated_run.hpp"
#include "tools/result_table.hpp"

namespace vtsim::tools {

void run_command(const RunRequest& request, std::ostream& out) {
  std::vector<std::string> compare = request.compare;
  if (request.scenario_file.empty() && compare.empty()) compare.push_back("cluster.host.nvlink.enabled=false");

  // Load every variant here first, so that a bad scenario or override fails fast, once, before any simulation.
  const Scenario scenario = load_scenario_or_default(request.scenario_file, request.overrides);
  std::vector<Scenario> variants;
  for (const std::string& assignment : compare) {
    std::vector<std::string> overrides = request.overrides;
    overrides.push_back(assignment);
    variants.push_back(load_scenario_or_default(request.scenario_file, overrides));
  }

  const std::string trace_file = request.trace_file;
  nlohmann::json result = run_isolated([&] {
    return sim::to_json(sim::simulate(scenario, sim::SimulationOptions{trace_file}));
  });
  std::vector<Variant> columns = {{"as given", result}};
  nlohmann::json variant_results = nlohmann::json::array();
  for (std::size_t v = 0; v < variants.size(); ++v) {
    nlohmann::json variant = run_isolated([&] { return sim::to_json(sim::simulate(variants[v])); });
    columns.push_back({compare[v], variant});
    variant_results.push_back({{"set", compare[v]}, {"result", variant}});
  }
  if (request.json) {
    if (!variant_results.empty()) result["variants"] = variant_results;
    out << result.dump(2) << '\n';
    return;
  }
  print_result_table(out, columns);
}

}  // namespace vtsim::tools
