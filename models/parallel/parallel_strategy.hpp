#pragma once
// Parallel strategies for transformers too large for plain data parallelism: tensor parallelism (Megatron), pipeline
// parallelism, sharded data parallelism (ZeRO) and activation recomputation. Their memory per GPU, pipeline bubble,
// flops and communication volumes, as closed forms (docs/large-models.md). The engine runs them
// (models/parallel/model_partition.hpp splits the model, sim/training/model_parallel_rank.cpp runs it).
//
// Sources (formulas, not results):
//   KORTHIKANTI  V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models", MLSys 2023
//                (arXiv 2205.05198), Sec. 4: bytes one transformer layer keeps for backward per micro-batch of b
//                sequences, 16-bit activations with dropout: s b h (34 + 5 a s / h) unsplit; with tensor parallelism
//                t: s b h (10 + 24 / t + 5 a s / (h t)); adding sequence parallelism: s b h (34 + 5 a s / h) / t;
//                selective recomputation (attention's softmax, dropout and score inputs recomputed): s b h 34 / t with
//                sequence parallelism, s b h (10 + 24 / t) without; full recomputation: the layer's input, 2 s b h
//                (/ t with sequence parallelism). The first pipeline stage holds min(p, m) micro-batches in flight
//                under 1F1B, m under GPipe, and (1 + (p - 1) / (p v)) times 1F1B's under the interleaved schedule.
//   NARAYANAN    D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
//                Megatron-LM", SC'21 (arXiv 2104.04473): the pipeline bubble is (p - 1) / m of the ideal time under
//                GPipe and 1F1B, (p - 1) / (v m) interleaved (Sec. 2.2); flops per iteration of B sequences:
//                72 B s l h^2 (1 + s / (6 h) + V / (12 l h)), 96 B s l h^2 (1 + s / (6 h) + V / (16 l h)) with full
//                recomputation (Appendix); a tensor-parallel layer allreduces its b s h activations twice in forward
//                and twice in backward within its tensor group (Sec. 2.3).
//   ZERO         S. Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models", SC'20:
//                stage 1 partitions the optimizer state (the fp32 master weights with it) over the data-parallel
//                ranks, stage 2 the gradients too, stage 3 the 16-bit weights too; stages 1 and 2 move what an
//                allreduce moves, 2 x the parameters per rank, stage 3 1.5 times that (an allgather of the weights in
//                forward and again in backward, a reduce-scatter of the gradients).

#include <string>
#include <string_view>
#include <vector>

#include "models/compute/memory_model.hpp"
#include "models/core/precision.hpp"
#include "models/workload/workload.hpp"

namespace vtsim {

/// The order in which a pipeline runs its micro-batches.
enum class PipelineSchedule {
  gpipe,        ///< every forward, then every backward
  one_f_one_b,  ///< 1F1B: after warm-up, one forward then one backward
  interleaved,  ///< 1F1B over v virtual stages per GPU (Megatron's interleaved schedule)
};

/// What backward recomputes instead of keeping.
enum class Recompute {
  none,       ///< every activation kept
  selective,  ///< attention's memory-hungry, cheap parts recomputed (KORTHIKANTI)
  full,       ///< only each layer's input kept; forward runs again in backward
};

std::string_view to_string(PipelineSchedule schedule);
std::string_view to_string(Recompute recompute);

/// How a transformer job is split over its GPUs: tensor x pipeline x data = GPUs.
struct ParallelStrategy {
  int tensor = 1;            ///< t: GPUs that split each layer
  int pipeline = 1;          ///< p: stages of consecutive layers
  int data = 1;              ///< d: replicas of the (split) model
  int zero_stage = 0;        ///< 0-3 over the data-parallel ranks
  int micro_batch_size = 1;  ///< b: sequences per micro-batch
  int micro_batches = 1;     ///< m: micro-batches per optimizer step per replica
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  int virtual_stages = 1;    ///< v: interleaved only
  Recompute recompute = Recompute::none;
  bool sequence_parallel = false;  ///< splits the layers' non-tensor-parallel parts along the sequence too
  /// Transformer blocks per virtual stage, in pipeline order (p x v entries, virtual stage k = chunk k / p of stage
  /// k % p); empty: the blocks split equally. The embedding goes with the first stage, the head with the last.
  std::vector<int> stage_layers;
  /// Without sequence parallelism: each GPU of a tensor group sends 1/t of the activations between stages and the
  /// receivers allgather them over the group (Megatron-LM's default, --no-scatter-gather-tensors-in-pipeline turns it
  /// off; DeepSpeed's pipeline engine partitions them likewise). With sequence parallelism they are split anyway.
  bool scatter_gather = true;
};

/// Transformer blocks of each virtual stage under `strategy` for a model of `layers` blocks: its stage_layers, or
/// layers / (p v) each. REQUIRES: stage_layers empty or of p v entries; layers divisible by p v when it is empty.
std::vector<int> blocks_per_virtual_stage(const ParallelStrategy& strategy, int layers);

/// The share of the model's blocks that its busiest physical stage (the one with the most, over its v chunks) holds:
/// 1 / p when the blocks split equally.
double busiest_stage_share(const ParallelStrategy& strategy, int layers);

/// One line: "TP 4 x PP 2 x DP 1, ZeRO-1, micro-batch 1 x 8, 1F1B, selective recomputation, sequence parallel".
std::string describe(const ParallelStrategy& strategy);

/// The activations one layer keeps per micro-batch under `strategy`, as a fraction of the unsplit layer's, none
/// recomputed (KORTHIKANTI). REQUIRES: a transformer shape (layers > 0).
double activation_fraction(const TransformerShape& shape, const ParallelStrategy& strategy);

/// Micro-batches whose activations the busiest (first) pipeline stage holds at once, counted in whole-model
/// micro-batches of its L / p layers: min(p, m) / p under 1F1B, m / p under GPipe, the interleaved factor on 1F1B's.
double activations_in_flight(const ParallelStrategy& strategy);

/// What one GPU holds: the model states split by t x p and sharded by ZeRO over d, and the activations of the micro-
/// batches in flight on the first stage, from the workload's own stored activations (memory_model.hpp) scaled by
/// activation_fraction. REQUIRES: a transformer workload; t, p, d, b, m, v >= 1.
MemoryFootprint strategy_memory(const Workload& workload, const ParallelStrategy& strategy, Precision precision);

/// Idle fraction of a pipeline's time, stages equal and communication free: (p - 1) / (m + p - 1) under GPipe and
/// 1F1B, (p - 1) / (v m + p - 1) interleaved (NARAYANAN's bubble over the ideal time, as a fraction of the whole).
double pipeline_bubble_fraction(const ParallelStrategy& strategy);

/// Model flops of one iteration over `sequences` sequences (NARAYANAN's count, per weight of the blocks' matrices so
/// that grouped-query attention and SwiGLU count theirs): with `recomputation`, the full-recompute count (what the
/// GPUs execute); without, the model's own (what model flops utilisation divides by).
double transformer_iteration_flop(const TransformerShape& shape, double sequences, bool recomputation);

/// Bytes one GPU of a tensor group sends per layer per micro-batch of b sequences, forward and backward (two
/// allreduces of b s h elements each way, each a ring's 2 (t - 1) / t of it); `element_bytes` per element.
double tensor_parallel_bytes_per_layer(const TransformerShape& shape, int micro_batch_size, int tensor,
                                       double element_bytes);

/// Bytes one data-parallel rank sends per optimizer step for gradients of `parameters` elements of `element_bytes`:
/// a ring allreduce's 2 (d - 1) / d of them for ZeRO stages 0-2, 1.5 times that for stage 3: one micro-batch per step
/// (ZERO's count). With m micro-batches stages 2 and 3 reduce-scatter each one's gradients and stage 3 gathers the
/// weights 2m times: (m + 1) / 2 and 3m / 2 times a plain allreduce (as sim/ runs them).
double data_parallel_bytes(double parameters, double element_bytes, int data, int zero_stage);

/// Strategies over `gpus` GPUs (`gpus_per_host` per host: tensor groups stay inside a host) that fit `capacity_bytes`
/// per GPU at micro-batch `micro_batch_size`, the simplest first (fewest of: ZeRO stage, recomputation, tensor
/// parallelism, pipeline parallelism); at most `limit`. Empty for a workload that is not a transformer.
std::vector<std::pair<ParallelStrategy, MemoryFootprint>> strategies_that_fit(const Workload& workload, int gpus,
                                                                             int gpus_per_host, int micro_batch_size,
                                                                             Precision precision,
                                                                             double capacity_bytes,
                                                                             std::size_t limit);

/// One configuration a planner considers: a strategy, its memory per GPU, and whether that fits.
struct PlanCandidate {
  ParallelStrategy strategy;
  MemoryFootprint memory;
  bool fits = false;
};

/// Every configuration of a transformer over `gpus` GPUs that trains `global_batch` sequences per step: tensor t
/// dividing `host_group` (the job's GPUs on each of its hosts: tensor groups stay inside a host) and the heads,
/// pipeline p dividing the rest and the layers, data d = gpus / (t p) dividing the global batch; micro-batch sizes the
/// powers of two up to `max_micro_batch` that divide a replica's share; ZeRO 0-3 when d > 1; no, selective and full
/// recomputation; sequence parallelism whenever t > 1; the 1F1B schedule. Each with its memory against
/// `capacity_bytes`. Empty for a workload that is not a transformer.
std::vector<PlanCandidate> plan_candidates(const Workload& workload, int gpus, int host_group, int global_batch,
                                           int max_micro_batch, Precision precision, double capacity_bytes);

/// Whether fitting candidate `a` costs no more time than `b` by construction: the same split and micro-batch, no more
/// recomputation (none < selective < full: each only adds compute) and a ZeRO stage that adds no communication over
/// b's (stages 0 and 1 move the same bytes; 2 adds a reduce-scatter per micro-batch; 3 adds the weight gathers).
bool no_slower_by_construction(const ParallelStrategy& a, const ParallelStrategy& b);

/// The indices of the candidates worth simulating: those that fit and that no other fitting candidate is
/// no_slower_by_construction than (an equal one excepted), in the order given.
std::vector<std::size_t> undominated_candidates(const std::vector<PlanCandidate>& candidates);

}  // namespace vtsim
