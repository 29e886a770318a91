#include "runner/point_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <utility>
#include <vector>

#include "models/core/error.hpp"
#include "models/core/fairness.hpp"
#include "models/resolve/resolve.hpp"
#include "models/scenario/scenario_writer.hpp"
#include "sim/engine/isolated_run.hpp"
#include "sim/engine/simulation.hpp"

namespace vtsim::runner {

namespace {

sim::SimulationResult simulate_resolved(std::chrono::steady_clock::time_point start, const ResolvedRun& run,
                                        const sim::SimulationOptions& options) {
  const double resolve_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  sim::SimulationResult result = sim::simulate(run, options);
  result.wall_clock.plan_s += resolve_s;
  return result;
}

}  // namespace

sim::SimulationResult simulate(const Scenario& scenario, const sim::SimulationOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  return simulate_resolved(start, resolve(scenario, load_scenario_calibration(scenario)), options);
}

sim::SimulationResult simulate(const Scenario& scenario, const CalibratedParameters& calibration,
                               const sim::SimulationOptions& options) {
  return simulate_resolved(std::chrono::steady_clock::now(), resolve(scenario, calibration), options);
}

namespace {

nlohmann::json simulate_isolated(const Scenario& scenario, const std::string& trace_file) {
  return sim::run_isolated([&] { return sim::to_json(simulate(scenario, sim::SimulationOptions{trace_file})); });
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

/// A job split over t x p > 1 GPUs per model replica and replicated d > 1 times is compared with one replica: the
/// same job with data parallelism 1 on the GPUs its replica 0 runs on (Megatron's rank order: data index 0), alone and
/// undisturbed, simulated in a process of its own, so that its scaling efficiency is that of data parallelism, like
/// for like (the same micro-batches, recomputation, schedule and precision), and not against a GPU that could not
/// hold the model. A replica that fits only with ZeRO's sharding over its data-parallel peers has no such reference:
/// the job keeps the closed-form one, and its description says why.
void add_replica_references(const Scenario& scenario, nlohmann::json& result) {
  std::size_t position = 0;  // result["jobs"] lists the active jobs in order
  for (const JobConfig& job : scenario.jobs) {
    if (job.idle) continue;
    nlohmann::json& figures = result["jobs"][position++];
    if (!job.parallelism) continue;
    const ParallelStrategy& strategy = *job.parallelism;
    const int replica_gpus = strategy.tensor * strategy.pipeline;
    if (replica_gpus == 1 || strategy.data == 1) continue;
    Scenario alone = scenario;
    JobConfig replica = job;
    replica.gpu_ids.clear();
    for (std::size_t r = 0; r < job.gpu_ids.size(); ++r) {
      if ((static_cast<int>(r) / strategy.tensor) % strategy.data == 0) replica.gpu_ids.push_back(job.gpu_ids[r]);
    }
    replica.parallelism->data = 1;
    alone.jobs = {replica};
    alone.events.clear();
    nlohmann::json simulated;
    try {
      simulated = simulate_isolated(alone, "")["jobs"][0];
    } catch (const InputError&) {  // it does not fit in memory alone
      auto& description = figures["scaling_reference"]["description"];
      description = description.get<std::string>() + "; one model replica alone does not fit without ZeRO's sharding";
      continue;
    }
    const double replica_samples_per_s = simulated["samples_per_s"].get<double>();
    figures["scaling_reference"] = {
        {"description", "one model replica (TP " + std::to_string(strategy.tensor) + " x PP " +
                            std::to_string(strategy.pipeline) + ", " + std::to_string(replica_gpus) +
                            " GPUs) on replica 0's GPUs, alone, the same micro-batches and recomputation (simulated)"},
        {"gpus", replica_gpus},
        {"step_time_s", simulated["step_time_s"]["mean"]},
        {"samples_per_s", replica_samples_per_s}};
    figures["scaling_efficiency"] = figures["samples_per_s"].get<double>() / (strategy.data * replica_samples_per_s);
  }
}

// The point once, under its own seed, with its companions.
nlohmann::json simulate_once(const Scenario& scenario, const std::string& trace_file, Companions companions) {
  nlohmann::json result = simulate_isolated(scenario, trace_file);
  if (companions == Companions::none) return result;
  add_replica_references(scenario, result);
  add_tenant_figures(scenario, result);
  return result;
}

// Whether a job of the scenario sends flows between racks over ECMP-hashed spines: which spine each flow takes is
// drawn from the seed, and two flows may share an uplink (or not) by that draw alone.
bool crosses_hashed_spines(const Scenario& scenario) {
  const ClusterConfig& cluster = scenario.cluster;
  if (cluster.racks < 2 || cluster.fabric.spines < 2 || cluster.fabric.adaptive_routing) return false;
  const int gpus_per_rack = cluster.hosts_per_rack * cluster.host.gpus;
  for (const JobConfig& job : scenario.jobs) {
    if (job.idle || job.gpu_ids.empty()) continue;
    const auto [lowest, highest] = std::minmax_element(job.gpu_ids.begin(), job.gpu_ids.end());
    if (*lowest / gpus_per_rack != *highest / gpus_per_rack) return true;
  }
  return false;
}

// mean, min, max of `values`, and with 20 or more their 5th and 95th percentiles (nearest rank).
nlohmann::json spread_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  nlohmann::json spread = {{"mean", std::accumulate(values.begin(), values.end(), 0.0) / n},
                           {"min", values.front()},
                           {"max", values.back()}};
  if (values.size() >= 20) {
    const auto nearest_rank = [&](double p) { return values[static_cast<std::size_t>(std::ceil(p * n)) - 1]; };
    spread["p5"] = nearest_rank(0.05);
    spread["p95"] = nearest_rank(0.95);
  }
  return spread;
}

// Each job's spread over the runs (the first is `result`), and which seeds they ran under.
void add_seed_spread(const std::vector<std::uint64_t>& seeds, const std::vector<nlohmann::json>& runs,
                     nlohmann::json& result) {
  const std::vector<std::pair<const char*, std::vector<const char*>>> figures = {
      {"step_time_s", {"step_time_s", "mean"}},
      {"samples_per_s", {"samples_per_s"}},
      {"scaling_efficiency", {"scaling_efficiency"}}};
  for (std::size_t j = 0; j < result["jobs"].size(); ++j) {
    nlohmann::json across = {{"runs", runs.size()}};
    for (const auto& [name, path] : figures) {
      std::vector<double> values;
      for (const nlohmann::json& run : runs) {
        const nlohmann::json* value = &run["jobs"][j];
        for (const char* key : path) value = &(*value)[key];
        values.push_back(value->get<double>());
      }
      across[name] = spread_of(std::move(values));
    }
    result["jobs"][j]["across_seeds"] = across;
  }
  result["seeds"] = {{"runs", runs.size()},
                     {"values", seeds},
                     {"note", "each job's across_seeds spreads over these runs; its other figures are the first's"}};
}

}  // namespace

nlohmann::json simulate_point(const Scenario& scenario, const std::string& trace_file, Companions companions) {
  const SimulationConfig& simulation = scenario.simulation;
  if (simulation.seeds <= 1) {
    nlohmann::json result = simulate_once(scenario, trace_file, companions);
    result["seeds"] = {{"runs", 1}, {"values", {simulation.seed}}};
    if (crosses_hashed_spines(scenario)) {
      result["seeds"]["note"] =
          "one draw: flows between racks are hashed onto one of " + std::to_string(scenario.cluster.fabric.spines) +
          " spines (ECMP) by simulation.seed " + std::to_string(simulation.seed) +
          ", and another seed may collide them differently; simulation.seeds (vtsim run --seeds N) gives the spread";
    }
    return result;
  }
  std::vector<std::uint64_t> seeds;
  std::vector<nlohmann::json> runs;
  for (int k = 0; k < simulation.seeds; ++k) {
    Scenario draw = scenario;
    draw.simulation.seed = simulation.seed + static_cast<std::uint64_t>(k);
    draw.simulation.seeds = 1;
    seeds.push_back(draw.simulation.seed);
    runs.push_back(simulate_once(draw, k == 0 ? trace_file : "", companions));  // the timeline is the first run's
  }
  nlohmann::json result = runs.front();
  add_seed_spread(seeds, runs, result);
  return result;
}

}  // namespace vtsim::runner
