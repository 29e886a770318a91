#pragma once
// The reduction policy of a training job (docs/cluster-model.md, "Frameworks"): what turns the gradients a rank's
// backward pass makes into the collectives its communication actor runs. The loop that runs the ranks
// (sim/training/training_job_state.hpp) reports each gradient as it becomes ready and knows nothing else of the policy:
// - Horovod's coordinator (sim/training/horovod_coordinator.hpp) fuses what is ready on every rank at each tick;
// - PyTorch DDP's reducer (sim/training/ddp_reducer.hpp) launches each rank's buckets in order as they fill;
// - what ZeRO changes (a reduce-scatter in place of the allreduce, a round per micro-batch, the weights gathered) is
//   models/parallel/zero_sharding.hpp, which the model-parallel rank asks.

namespace vtsim::sim {

/// A collective of gradients handed to the communication actors: Horovod's fusion buffer, or one of DDP's buckets.
struct FusionBuffer {
  int iteration;
  int tensor_count;
  double bytes;
};

/// A gradient that became ready on a rank.
struct ReadyGradient {
  int iteration = 0;
  /// The micro-batch whose backward made it: under ZeRO-2/3 each micro-batch's gradients are a round of their own.
  int micro_batch = 0;
  int position = 0;  ///< the rank that reports it
  int tensor = 0;    ///< index into the rank's gradients
  int ranks = 1;     ///< ranks it is ready on: a rank standing for its class brings its members' with it
};

class GradientReduction {
 public:
  virtual ~GradientReduction() = default;
  /// `gradient` is ready: the policy hands whatever collectives that completes to the communication actors.
  virtual void gradient_ready(const ReadyGradient& gradient) = 0;
};

}  // namespace vtsim::sim
