#pragma once
// A transformer split the way Megatron-LM splits it (docs/large-models.md), as one GPU runs its share:
// - Tensor parallelism over t GPUs (Shoeybi et al. 2019, Sec. 3; Korthikanti et al. 2023, Sec. 4.2.2): the QKV and
//   MLP up-projections are column-parallel (each GPU holds 1/t of the output features), the attention core runs 1/t
//   of the heads, the output and MLP down-projections are row-parallel (1/t of the input features); the token
//   embedding and the LM head are split over the vocabulary. Layer norms, dropouts and residual adds run on every GPU
//   of the group in full, or on 1/t of the sequence with sequence parallelism.
// - Its collectives within the tensor group, per micro-batch of b sequences of s tokens, on b s h activations:
//   without sequence parallelism, an allreduce after each row-parallel layer's forward (and the embedding's) and one
//   after each column-parallel layer's input-gradient backward (and the LM head's): 2 forward and 2 backward per
//   block; with it, an allgather before each column-parallel layer's forward and a reduce-scatter after its backward,
//   a reduce-scatter after each row-parallel layer's forward (and the embedding's) and an allgather before its
//   backward.
// - Pipeline parallelism over p stages, each split in v virtual stages (interleaved schedule): the blocks are dealt in
//   p v runs of consecutive blocks; the layers before the first block go with the first run, those after the last
//   block with the last. Between virtual stages a micro-batch's activations go forward and their gradients back: b s h
//   elements, 1/t of them with sequence parallelism.
// Element counts of split layers are split in the same proportion as their flop (an approximation for the memory-
// bound passes of a GEMM's input and output, which are small next to its math).

#include <cstddef>
#include <string>
#include <vector>

#include "models/core/precision.hpp"
#include "models/parallel/parallel_strategy.hpp"
#include "models/workload/workload.hpp"

namespace vtsim {

/// A collective within the tensor group.
enum class TensorCollective { all_reduce, all_gather, reduce_scatter };

/// One tensor-group collective: its kind and its buffer per sequence (the whole buffer, as nccl-tests count it).
struct TensorCall {
  TensorCollective kind = TensorCollective::all_reduce;
  double bytes_per_sample = 0;
};

/// The collectives around one layer of a stage, in the order the layer's passes meet them.
struct LayerCalls {
  std::vector<TensorCall> forward_before;
  std::vector<TensorCall> forward_after;
  std::vector<TensorCall> backward_before;  ///< before the layer's backward kernels
  std::vector<TensorCall> backward_after;
};

/// One virtual pipeline stage as one GPU of its tensor group runs it.
struct StagePart {
  std::size_t first_layer = 0;  ///< in the whole workload's forward order
  std::size_t end_layer = 0;    ///< one past the last
  Workload workload;            ///< the stage's layers, split over the tensor group
  std::vector<LayerCalls> calls;  ///< per layer of `workload`; empty calls when t = 1
  /// Bytes sent to the next virtual stage per sequence (activations; gradients come back the same size).
  double boundary_bytes_per_sample = 0;
  /// Per sequence, the bytes the receiving tensor group allgathers after each transfer (scatter-gather: the whole
  /// activations, of which each GPU received 1/t); 0 without it.
  double received_gather_bytes_per_sample = 0;
};

/// Whether `layer` belongs to a transformer block ("block0" ...), not the embedding or the head around them.
bool is_block_layer(const Layer& layer);

/// What makes `strategy` impossible for `workload` ("" when it is possible): not a transformer, layers not a
/// multiple of p v, heads not a multiple of t, interleaving without p >= 2 and m a multiple of p.
std::string partition_problem(const Workload& workload, const ParallelStrategy& strategy);

/// The p v virtual stages, virtual stage k = chunk c of pipeline stage k % p, with c = k / p (Megatron's interleaved
/// assignment; v = 1 otherwise). REQUIRES: partition_problem() is "".
std::vector<StagePart> partition_model(const Workload& workload, const ParallelStrategy& strategy,
                                       Precision precision);

/// One pass of a pipeline schedule: the forward or backward of micro-batch `micro` through the rank's model chunk.
struct PipelinePass {
  bool forward = true;
  int micro = 0;
  int chunk = 0;  ///< the rank's virtual stage is chunk * p + its stage
};

/// The passes pipeline stage `stage` runs in one iteration, in order (NARAYANAN's schedules as Megatron-LM implements
/// them): GPipe, all forwards then all backwards; 1F1B, min(p - stage - 1, m) forwards, then one forward and one
/// backward alternately, then the remaining backwards; interleaved, warm-up of 2 (p - stage - 1) + (v - 1) p
/// forwards (all of them when m = p), model chunks taken in turns of p micro-batches. REQUIRES: partition_problem()
/// is "".
std::vector<PipelinePass> pipeline_schedule(const ParallelStrategy& strategy, int stage);

}  // namespace vtsim
