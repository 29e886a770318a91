#pragma once
// Simulating a scenario the way every command does: resolved, then run on the engine (simulate, in the calling
// process), and a point with whatever companion runs its figures need, each in a process of its own (simulate_point).
// `vtsim run` and `vtsim sweep` both go through here, so their results agree.

#include <string>

#include <nlohmann/json.hpp>

#include "models/scenario/scenario.hpp"
#include "sim/engine/simulation.hpp"

namespace vtsim::runner {

/// Simulates `scenario` in this process with its calibration profile: sim::simulate(resolve(scenario,
/// load_scenario_calibration(scenario))), its wall clock's plan_s including reading the profile and resolving. Throws
/// InputError for a scenario that validates but cannot run (a profile measured on another box, a job that does not fit
/// in memory, a forced NCCL choice NCCL would refuse): resolve() raises it before the engine starts. REQUIRES: no other
/// simulation has run in this process (one SimGrid engine per process).
sim::SimulationResult simulate(const Scenario& scenario, const sim::SimulationOptions& options = {});
/// simulate(scenario, options) with `calibration` in place of the scenario's profile (a test's measurements by hand);
/// the result still names scenario.calibration_profile as where they came from.
sim::SimulationResult simulate(const Scenario& scenario, const CalibratedParameters& calibration,
                               const sim::SimulationOptions& options = {});

/// Which companion runs a point's figures get.
enum class Companions {
  all,  ///< each model-parallel job's replica alone (its scaling reference), each tenant alone
  none  ///< the point alone: its scaling efficiency against the closed-form reference, no tenant figures
};

/// Simulates `scenario` in a child process and returns its result JSON (sim::to_json), with `companions`, each in a
/// process of its own. `trace_file` may be "". With simulation.seeds = N > 1 the point runs N times, under seeds
/// seed ... seed + N - 1, each with its companions: the result is the first run's, each job gains `across_seeds`
/// (mean, min, max, and from 20 runs p5 and p95, of its step time, samples/s and scaling efficiency) and `seeds` lists
/// the seeds. With one run, `seeds` notes when the answer is one draw of ECMP hashing.
/// Throws InputError for a scenario that cannot run; std::runtime_error if the simulation process fails.
nlohmann::json simulate_point(const Scenario& scenario, const std::string& trace_file = "",
                              Companions companions = Companions::all);

}  // namespace vtsim::runner
