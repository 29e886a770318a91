#pragma once
// Horovod's coordinator (docs/cluster-model.md, "Frameworks"): the reduction policy of a data-parallel Horovod job.
// Each rank reports a gradient when its backward pass makes it; the coordinator ticks every cycle time and, at a tick
// after a gradient became ready on every rank, pays the negotiation (the ranks agree on what is ready everywhere), then
// packs the gradients agreed on, in the order they became ready everywhere, into fusion buffers of at most the
// fusion threshold (a larger gradient goes alone) and hands each buffer to every rank's communication actor as one
// allreduce. A gradient that becomes ready during the negotiation waits for the next tick, as a request that reaches
// Horovod's coordinator after it built its response list does. PyTorch DDP has no coordinator: each rank launches its
// buckets itself (sim/training/ddp_reducer.hpp).

#include <functional>
#include <vector>

#include "sim/engine/sync.hpp"
#include "sim/training/gradient_reduction.hpp"

namespace vtsim::sim {

class HorovodCoordinator final : public GradientReduction {
 public:
  /// Horovod's knobs, as the job sets them (HOROVOD_CYCLE_TIME, HOROVOD_FUSION_THRESHOLD).
  struct Settings {
    double cycle_time_s = 0;            ///< 0: no wait for a tick
    double negotiation_s = 0;           ///< per tick with gradients to dispatch
    double fusion_threshold_bytes = 0;  ///< the most a buffer holds, unless one gradient is larger
  };

  /// A coordinator for gradients of `tensor_bytes` (per gradient, in the job's order) over `ranks` ranks; `dispatch`
  /// hands a buffer to every rank that communicates. REQUIRES: ranks >= 1; a running engine (it waits on a counter).
  HorovodCoordinator(Settings settings, std::vector<double> tensor_bytes, int ranks,
                     std::function<void(const FusionBuffer&)> dispatch);

  /// `gradient.ranks` more ranks have gradient `gradient.tensor` ready (a rank standing for its class brings its
  /// members'); once every rank has it, it joins the gradients ready everywhere and the coordinator wakes. The
  /// gradient's iteration is the coordinator's own count (every rank reports every gradient once per iteration).
  void gradient_ready(const ReadyGradient& gradient) override;

  /// The coordinator actor's loop; it never returns (its actor is a daemon).
  [[noreturn]] void run();

 private:
  /// Fuses and dispatches the first `count` gradients ready everywhere.
  void dispatch_ready(std::size_t count);

  Settings settings_;
  std::vector<double> tensor_bytes_;
  int ranks_;
  std::function<void(const FusionBuffer&)> dispatch_;
  std::vector<int> ready_ranks_;       ///< per gradient, the ranks that have it ready in the current iteration
  std::vector<int> ready_everywhere_;  ///< ready on every rank, not yet in a buffer, in the order they became so
  Counter ready_events_;               ///< gradients that became ready everywhere, since the start
  long tensors_dispatched_ = 0;
};

}  // namespace vtsim::sim
