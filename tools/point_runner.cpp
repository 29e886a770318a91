#include "tools/point_runner.hpp"

#include <map>

#include "models/fairness.hpp"
#include "models/scenario_writer.hpp"
#include "sim/simulation.hpp"
#include "tools/isolated_run.hpp"

namespace vtsim::tools {
namespace {

nlohmann::json simulate_isolated(const Scenario& scenario, const std::string& trace_file) {
  return run_isolated([&] { return sim::to_json(sim::simulate(scenario, sim::SimulationOptions{trace_file})); });
}

/// With several tenants, each one's figures against the same job running alone (the scenario with only that job, each
/// simulated in its own process; identical tenants share one such run), and Jain's fairness over their normalised
/// throughputs (shared / alone).
void add_tenant_figures(const Scenario& scenario, nlohmann::json& result) {
  std::vector<const JobConfig*> active;
  for (const JobConfig& job : scenario.jobs) {
    if (!job.idle) active.push_back(&job);
  }
  if (active.size() < 2) return;
  std::map<std::string, double> alone_step_by_job;  // keyed by the single-job scenario, its job's name blanked
  nlohmann::json tenants = nlohmann::json::array();
  std::vector<double> normalised;
  for (std::size_t t = 0; t < active.size(); ++t) {
    Scenario alone = scenario;
    alone.jobs = {*active[t]};
    alone.events.clear();  // the baseline is the tenant alone and undisturbed (the events name the shared jobs)
    nlohmann::json key = scenario_to_json(alone);
    key["jobs"][0]["name"] = "";
    double& alone_step = alone_step_by_job[key.dump()];
    if (alone_step == 0) alone_step = simulate_isolated(alone, "")["jobs"][0]["step_time_s"]["mean"].get<double>();
    const nlohmann::json& shared = result["jobs"][t];
    const double step = shared["step_time_s"]["mean"].get<double>();
    tenants.push_back({{"name", active[t]->name},
                       {"samples_per_s", shared["samples_per_s"]},
                       {"step_time_s", step},
                       {"alone_step_time_s", alone_step},
                       {"slowdown", step / alone_step}});
    result["jobs"][t]["alone_step_time_s"] = alone_step;  // also per job, for the sweep CSV's columns
    result["jobs"][t]["slowdown_vs_alone"] = step / alone_step;
    normalised.push_back(alone_step / step);
  }
  result["tenants"] = tenants;
  result["fairness"] = {{"jain", jain_index(normalised)}, {"of", "throughput shared / throughput alone, per tenant"}};
}

}  // namespace

nlohmann::json simulate_point(const Scenario& scenario, const std::string& trace_file) {
  nlohmann::json result = simulate_isolated(scenario, trace_file);
  add_tenant_figures(scenario, result);
  return result;
}

}  // namespace vtsim::tools
