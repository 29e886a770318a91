#pragma once
// How to simulate a scenario: fidelity, seeds, variability and rank classes. Part of the scenario
// (models/scenario/scenario.hpp), apart so that the engine can take it without the whole scenario.

#include <cstdint>

#include "models/compute/variability.hpp"
#include "models/scenario/fidelity.hpp"

namespace vtsim {

/// How to simulate.
struct SimulationConfig {
  /// Default flow.
  Fidelity fidelity = Fidelity::flow;
  /// Seed of every random choice (compute variability, stalls, ECMP hashing). Default 1.
  std::uint64_t seed = 1;
  /// How many times the point runs, under seeds seed, seed + 1, ...: what the model does not know (ECMP hashing,
  /// variability, stalls) drawn anew each time; the result is the first run's, with each job's spread over all of them
  /// (runner/point_runner.hpp). Default 1; at most kMaxSeeds.
  int seeds = 1;
  /// Whether each rank's compute time varies per iteration (models/compute/variability.hpp). Default true; false gives
  /// every rank the model's mean time, for exact comparisons.
  bool variability = true;
  /// Spread of the GPUs' speeds, fixed per GPU for the whole run (identical SKUs differ by power and thermal limits:
  /// 8% on average, up to 22%, arXiv 2208.11035, SC'22). Default 0: all GPUs alike.
  double gpu_speed_cv = 0;
  /// Rare stalls (OS or hypervisor noise). Default none.
  StallConfig stalls;
  /// Whether ranks that are alike run as one class (sim/training/rank_classes.hpp): at analytic fidelity one
  /// representative stands for the others; at flow and step fidelity it computes for them and each member keeps its own
  /// flows. Default true; false simulates every rank.
  bool reduce_ranks = true;
  /// Whether, at flow fidelity, a transfer that no other flow can meet on its route is computed in closed form
  /// instead of simulated as a SimGrid communication (sim/engine/route_ledger.hpp): the same times. Default true;
  /// false simulates every transfer.
  bool reduce_flows = true;
};

/// The most runs of one point simulation.seeds asks for.
inline constexpr int kMaxSeeds = 1000;

}  // namespace vtsim
