#pragma once
// What a ZeRO stage (ZERO: Rajbhandari et al., SC'20; docs/large-models.md) does while a job runs, over its d
// data-parallel ranks: the plan of a model-parallel job, its ranks in the engine and the traffic report ask it rather
// than test the stage number. What it saves in memory is strategy_memory's (models/parallel/parallel_strategy.hpp).
// - Stage 1 shards the optimizer's states: each rank steps 1/d of the weights, the gradients are reduce-scattered,
//   and the updated weights allgathered after the step.
// - Stage 2 shards the gradients too: each micro-batch's are reduce-scattered as backward makes them.
// - Stage 3 shards the weights: each layer's are gathered before each pass that uses them, one layer ahead.
// DeepSpeed's closed-form count of the bytes (one micro-batch per step) is data_parallel_bytes
// (models/parallel/parallel_strategy.hpp).

#include "models/collectives/collective_model.hpp"
#include "models/parallel/parallel_strategy.hpp"

namespace vtsim {

struct ZeroSharding {
  int stage = 0;  ///< 0 (none) to 3
  int data = 1;   ///< d: the data-parallel ranks the states are sharded over

  static ZeroSharding of(const ParallelStrategy& strategy) { return {strategy.zero_stage, strategy.data}; }

  /// Stages 1-3: each rank's optimizer steps 1/d of the weights (optimizer_share of its time and bytes).
  bool shards_optimizer() const { return stage >= 1; }
  double optimizer_share() const { return shards_optimizer() ? 1.0 / data : 1.0; }
  /// The collective that reduces the gradients: a reduce-scatter once the optimizer is sharded, else an allreduce.
  Collective gradient_collective() const {
    return shards_optimizer() ? Collective::reduce_scatter : Collective::allreduce;
  }
  /// Stages 2-3: every micro-batch's gradients are reduced as backward makes them, not only the last one's.
  bool reduces_every_micro_batch() const { return stage >= 2; }
  /// Stages 1-2 over several ranks: the ranks allgather the updated weights after the optimizer's step.
  bool gathers_after_step() const { return data > 1 && (stage == 1 || stage == 2); }
  /// Stage 3: the weights are sharded; each layer's are gathered before each pass that uses it (over several ranks).
  bool shards_weights() const { return stage == 3; }
  bool gathers_per_layer() const { return data > 1 && shards_weights(); }

  /// Bytes a data group moves per step, in allreduce equivalents (a reduce-scatter or an allgather moves half an
  /// allreduce's), for `gradients` and `weights` bytes of its stage over `micro_batches` micro-batches: stage 1
  /// reduce-scatters the gradients once and allgathers the weights once; stage 2 reduce-scatters every micro-batch's
  /// gradients; stage 3 also gathers the weights before each forward and each backward pass.
  double allreduce_equivalents(double gradients, double weights, double micro_batches) const {
    const double m = micro_batches;
    switch (stage) {
      case 1:
        return gradients / 2 + weights / 2;
      case 2:
        return m * gradients / 2 + weights / 2;
      case 3:
        return m * gradients / 2 + 2 * m * weights / 2;
      default:
        return gradients;
    }
  }
};

}  // namespace vtsim
