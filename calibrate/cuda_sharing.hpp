#pragma once
// The two-process GPU sharing test of the GPU probe (gpu_probe.hpp). CUDA cannot be used in a child forked after the
// parent initialised it, so the test's processes come from a helper forked before the probe touches CUDA: the helper
// never uses CUDA itself, and forks fresh workers on request (one alone, then two at once, started together).
// Built only with CUDA.

#include <sys/types.h>

#include <optional>

#include "calibrate/gpu_probe.hpp"

namespace vtsim::calibrate::cuda {

/// The helper process. Construct it before the first CUDA call of this process.
class SharingHelper {
 public:
  /// Forks the helper; when fork fails, run() returns nullopt.
  SharingHelper();
  SharingHelper(const SharingHelper&) = delete;
  SharingHelper& operator=(const SharingHelper&) = delete;
  /// Stops the helper and waits for it.
  ~SharingHelper();

  /// Runs `plan` in one worker, then in two workers at once. nullopt when the helper or a worker failed to start;
  /// a worker's CUDA error throws ProbeFailed.
  std::optional<SharingSample> run(const SharingPlan& plan);

 private:
  pid_t pid_ = -1;
  int request_fd_ = -1;   // parent -> helper
  int response_fd_ = -1;  // helper -> parent
};

}  // namespace vtsim::calibrate::cuda
