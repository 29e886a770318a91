#pragma once
// How much a rank's compute time varies from iteration to iteration, and the random draws that make it vary.
//
// Each rank's kernels of one iteration are scaled by a multiplier drawn from a lognormal distribution of mean 1 and
// coefficient of variation `cv` (positive, right-skewed, as step times are); a rare stall (OS or hypervisor noise)
// may add a fixed delay. The draws are seeded by simulation.seed, the job and the rank, so the same scenario gives
// the same bytes. The spread comes from a calibration profile's step-time log when it has one
// (`vtsim calibrate import step-times`), else from an uncalibrated default per workload class.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "models/workload/workload.hpp"

namespace vtsim {

/// A coefficient of variation and where it came from.
struct StepTimeSpread {
  double cv = 0;
  std::string source;
  bool uncalibrated = true;
};

/// The uncalibrated default for `workload`: 2% for fixed-shape models, 10% for those with variable inputs. No
/// published per-iteration figure for data-parallel training was found (docs/hardware-facts.md, "Variability"): both
/// are stated guesses, to be replaced by a measured step-time log.
StepTimeSpread default_step_time_spread(const Workload& workload);

/// Coefficient of variation (sample standard deviation / mean) of `times`. REQUIRES: at least two positive values.
double coefficient_of_variation(const std::vector<double>& times);

/// Rare stalls beside the compute: each rank-iteration stalls for `duration_s` with `probability`. Default none.
struct StallConfig {
  double probability = 0;
  double duration_s = 0;
};

/// The random draws of one rank: deterministic for (seed, stream).
class ComputeNoise {
 public:
  /// Draws for stream `stream` (a job and rank) under `seed`, with the spread `cv` and `stalls`.
  ComputeNoise(std::uint64_t seed, std::uint64_t stream, double cv, StallConfig stalls);
  /// The next iteration's multiplier of the rank's kernel times: lognormal, mean 1, coefficient of variation cv
  /// (1 exactly when cv is 0).
  double next_multiplier();
  /// The next iteration's stall: duration_s with the stall probability, else 0.
  double next_stall_s();

 private:
  double uniform();  ///< in (0, 1), from the generator's 53 high bits
  std::mt19937_64 generator_;
  double sigma_ = 0;
  double mu_ = 0;
  StallConfig stalls_;
};

}  // namespace vtsim
