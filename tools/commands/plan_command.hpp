#pragma once
// `vtsim plan SCENARIO`: for one transformer job, every tensor x pipeline x data split of its GPUs, ZeRO stage,
// micro-batch size and recomputation that trains the same global batch (models/parallel/parallel_strategy.hpp
// plan_candidates); those that fit in memory are simulated (in parallel worker processes, as sweep points are) and
// ranked by throughput, with what makes the best one win; those that do not fit are listed with what they lack.

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vtsim::tools {

/// What `vtsim plan` was asked.
struct PlanRequest {
  std::string scenario_file;           ///< "" for the built-in default
  std::vector<std::string> overrides;  ///< --set PATH=VALUE, applied before planning
  std::string job;                     ///< the job's name; "" for the first
  int workers = 0;                     ///< worker processes; 0 for the CPUs available
  int max_micro_batch = 8;             ///< largest micro-batch size tried (powers of two)
  int iterations = 1;                  ///< measured iterations per configuration (after one warm-up)
  bool json = false;
};

/// Plans, simulates and ranks; the ranking as JSON (what --format json prints).
nlohmann::json plan_command(const PlanRequest& request, std::ostream& out);

}  // namespace vtsim::tools
