#pragma once
// One data-parallel training job running on the platform: a compute actor and a communication actor per rank (fewer
// where ranks run as classes, below), and for Horovod a coordinator that fuses ready gradients and launches the
// allreduces.
//
// Each iteration, every rank runs its forward kernels, then its backward kernels layer by layer (last layer first),
// once per micro-batch (gradient accumulation); a layer's gradient is ready when its backward kernel of the last
// micro-batch ends. The gradients are then reduced the framework's way:
// - Horovod: the coordinator ticks every cycle time; at each tick it pays the negotiation (the ranks agreeing on
//   which tensors are ready), takes the gradients that are ready on every rank, in the order they became so, packs
//   them into fusion buffers of at most the fusion threshold (a tensor larger than the threshold goes alone) and
//   queues one allreduce per buffer on every communication actor (each rank's, or each host's where one actor
//   communicates for a host's ranks: JobPlan::communication_groups).
// - PyTorch DDP: each rank queues a bucket's allreduce as soon as all of the bucket's gradients are ready on it,
//   buckets in order (models/parallel/ddp_buckets.hpp); the ranks meet in the collective itself.
// A rank's communication actor runs its queue in order, so the allreduces overlap the rest of backward. When all of
// an iteration's gradients are reduced the rank runs its optimizer step, which ends the iteration.
//
// Overlap is not free, both ways (models/compute/interference.hpp). While a rank has an allreduce in flight, its
// kernels lose the SMs the collective's channels hold, and the two share the GPU's memory bandwidth: the kernels run at
// the lesser of (1 - SM share) and their memory share over their demand; the collective's flows cross the GPU's memory
// link, narrowed to the collective's share while kernels run (Platform::set_collective_memory). Both are re-rated
// whenever a stretch of kernels or a collective starts or ends.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/compute/compute_model.hpp"
#include "models/compute/variability.hpp"
#include "models/parallel/model_partition.hpp"
#include "models/scenario/data_parallel.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/sync.hpp"
#include "sim/engine/trace.hpp"
#include "sim/sharing/vgpu_scheduler.hpp"

namespace vtsim::sim {

/// The time of one rank's iteration, split the way results report it.
struct IterationRecord {
  double start_s = 0;
  double end_s = 0;
  double compute_s = 0;       ///< kernels, as run (slowed kernels included)
  double interference_s = 0;  ///< part of compute_s due to collectives running at the same time
  double scheduler_wait_s = 0;  ///< time-sliced vGPU: waiting for the GPU while other vGPUs had it
  double data_wait_s = 0;       ///< waiting for the loader's batch before the iteration
  double operations_s = 0;      ///< paused before the iteration by a vSphere operation (vMotion stun, HA restart)
  double checkpoint_s = 0;      ///< writing a checkpoint after the iteration
  // Jobs with tensor, pipeline or sharded parallelism (ModelParallelPlan): where the rest of the iteration went.
  double tensor_parallel_s = 0;      ///< in the tensor group's collectives (on the critical path: compute waits)
  double pipeline_wait_s = 0;        ///< waiting for a neighbouring stage's activations or gradients (the bubble)
  double data_parallel_wait_s = 0;   ///< waiting for the data-parallel collectives: gradients, sharded weights
  /// A rank standing for a class of several (JobPlan::rank_classes): its members' compute_s summed, each with its own
  /// draws (sim/training/rank_classes.hpp); 0 otherwise.
  double class_compute_s = 0;
  bool lost = false;            ///< undone by a host failure: the job ran it again from its last checkpoint
};

/// A pause the job's ranks take as they start an iteration: a vMotion's stun (for the VM's ranks) or the wait for
/// vSphere HA to restart the job (every rank), which then resumes from its last checkpoint.
struct OperationsPause {
  int iteration = 0;          ///< the ranks take it as they start this iteration (one none of them has started)
  std::vector<char> ranks;    ///< per rank: whether it pauses
  double seconds = 0;         ///< a stun: pause this long
  double until_s = -1;        ///< a restart: pause until this time (when later than the rank's arrival)
  bool restart = false;       ///< resume from the checkpoint below: the iterations since it are lost
  int resume_progress = 0;    ///< restart: iterations the checkpoint holds
  int lost_from = 0;          ///< restart: the first iteration after the checkpoint
  std::string label;          ///< for the trace
};

/// The last checkpoint a job wrote (none: the start of the job).
struct CheckpointMark {
  int first_iteration_after = 0;  ///< the iteration the job would resume with
  int progress = 0;               ///< iterations that count towards training, held by the checkpoint
  double end_s = 0;               ///< when it was written
};

/// A gradient tensor: one layer's parameters, in backward order.
struct GradientTensor {
  int layer;
  double bytes;
};

/// One virtual pipeline stage as a rank runs it: its kernels per micro-batch and the tensor-group collectives around
/// each layer (models/parallel/model_partition.hpp).
struct StageKernels {
  KernelTimes kernels;                     ///< one micro-batch; recomputation included in backward
  std::vector<LayerCalls> calls;           ///< per layer; bytes already per micro-batch
  /// Per layer: full recomputation reruns its forward, collectives included, in backward (transformer blocks only).
  std::vector<char> rerun_forward_calls;
  std::vector<double> gather_bytes;        ///< ZeRO-3: per layer, its sharded weights gathered before each pass
  double boundary_bytes = 0;               ///< activations sent to the next virtual stage per micro-batch
  double received_gather_bytes = 0;        ///< per micro-batch, allgathered over the tensor group after a receive
};

/// The two SimGrid hosts a point-to-point transfer runs between.
using TransferEnds = std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*>;

/// A message between pipeline stages: the receiver moves its bytes from the sender's GPU when it asks for it, between
/// the hosts the sender's route to it runs between (ModelParallelPlan::rank_to_next; the receiver knows its sender).
struct PipeMessage {
  double bytes = 0;
  double extra_latency_s = 0;  ///< NCCL's per-step latency of the hop (Simple), beyond the route's
};

/// Under model parallelism a GradientTensor's `layer` is chunk x kLayersPerChunk + the layer's index in the chunk.
constexpr int kLayersPerChunk = 1 << 20;

/// Tensor, pipeline and sharded data parallelism: who each rank is in each dimension, and its groups' collectives.
struct ModelParallelPlan {
  ParallelStrategy strategy;
  std::vector<StageKernels> stages;  ///< per virtual stage, p x v
  std::vector<int> rank_stage;       ///< per rank: its pipeline stage (0 .. p - 1)
  std::vector<int> rank_tensor_group, rank_tensor_position;
  std::vector<int> rank_data_group, rank_data_position;
  /// Per rank: the rank holding the same slice of the next (and previous) pipeline stage, wrapping round from the last
  /// stage to the first (interleaved chunks continue there); -1 when p = 1.
  std::vector<int> rank_next_stage, rank_previous_stage;
  /// Per rank: the SimGrid hosts its point-to-point sends to rank_next_stage (and rank_previous_stage) run between,
  /// one flow each (connection kPipelineFlow): the GPUs' own hosts within a rack, the ports of the spine ECMP hashes
  /// the flow onto between racks (flow_hosts); empty when p = 1.
  std::vector<TransferEnds> rank_to_next, rank_to_previous;
  /// Per rank, per model chunk: the gradient tensors the rank's data group reduces, in the order backward makes them.
  std::vector<std::vector<GradientTensor>> rank_tensors;
  std::vector<std::vector<std::vector<int>>> rank_buckets;  ///< per rank: DDP buckets over rank_tensors
  /// Per tensor group: all_reduce, all_gather and reduce_scatter over its ranks (positions: rank_tensor_position).
  std::vector<std::unique_ptr<SimulatedCollective>> tensor_all_reduce, tensor_all_gather, tensor_reduce_scatter;
  /// Per data group: the gradient reduction (allreduce; reduce-scatter under ZeRO) and, under ZeRO, the allgather of
  /// the weights (after the optimizer for stages 1-2, before each layer's passes for stage 3).
  std::vector<std::unique_ptr<SimulatedCollective>> data_reduce, data_gather;
  std::vector<double> rank_weight_bytes;  ///< per rank: its chunks' 16-bit weights (ZeRO-1/2 gather them per step)
  double p2p_extra_latency_s = 0;    ///< NCCL's per-step latency of a point-to-point transfer (Simple, per hop)
  std::vector<int> rank_gpu;         ///< per rank: its global GPU
};

/// Everything a job needs to run, prepared before the simulation starts.
struct JobPlan {
  std::string name;
  std::vector<simgrid::s4u::Host*> rank_hosts;  ///< one per rank, in ring order
  /// Per rank: the scheduler of its GPU when that GPU is time-sliced between vGPUs (else null), and its vGPU there.
  std::vector<TimeSliceScheduler*> rank_schedulers;
  std::vector<int> rank_vgpus;
  KernelTimes kernels;                          ///< per-layer kernel times on one rank's device
  double data_loading_s = 0;                    ///< a rank's loader workers' time per batch, beside the device
  /// Whether the kernels' host waits are a trace's (models/traces/traced_iteration.hpp): the trace says when the host
  /// released the optimizer's work after the gradients were reduced, so the host does not get ahead meanwhile.
  bool host_times_traced = false;
  std::vector<GradientTensor> tensors;          ///< gradients in the order backward produces them
  DataParallel data_parallel = DataParallel::horovod;
  double fusion_threshold_bytes = 0;  ///< Horovod
  double cycle_time_s = 0;            ///< Horovod
  double negotiation_s = 0;           ///< Horovod: the coordinator's cost per tick with tensors to dispatch
  std::vector<std::vector<int>> buckets;  ///< DDP: indices into `tensors`, in the order the buckets are reduced
  int micro_batches = 1;              ///< forward and backward passes per iteration (gradient accumulation)
  /// Variability: each rank's kernels of one micro-batch are scaled by a draw of its ComputeNoise (seeded by
  /// `seed` and the rank's stream) times its GPU's fixed speed factor; a stall may precede an iteration.
  double step_time_cv = 0;
  StallConfig stalls;
  std::uint64_t seed = 1;
  std::vector<std::uint64_t> rank_streams;  ///< per rank
  std::vector<double> rank_speed;           ///< per rank: its GPU's time factor (1 when all GPUs are alike)
  /// Ranks that run as classes (sim/training/rank_classes.hpp): per class its positions, the first of which runs for
  /// all. Empty: every rank runs.
  std::vector<std::vector<int>> rank_classes;
  /// The classes reduce compute only: the first member computes for its class, and every member keeps its
  /// communication actor and its own flows (flow and step fidelity, where each rank's flows meet others' on links),
  /// unless a host's ranks communicate as one (communication_groups).
  bool every_rank_communicates = false;
  /// Ranks whose communication one actor runs (a host's ranks under make_host_allreduce): per group its positions;
  /// the first runs the group's communication actor, on its host, and calls `allreduce` at the group's index. Empty:
  /// every rank that communicates runs its own. REQUIRES, when not empty: Horovod, no model parallelism, and every
  /// rank communicates.
  std::vector<std::vector<int>> communication_groups;
  int iterations = 1;
  int warmup_iterations = 0;
  /// Checkpoints: every `checkpoint_interval` iterations that count (0: none), all ranks wait `checkpoint_write_s`.
  int checkpoint_interval = 0;
  double checkpoint_write_s = 0;
  double collective_sm_share = 0;  ///< fraction of a GPU's compute the collective kernels take while they run
  /// Device memory shared by kernels and collectives: per rank, the GPU whose memory link is the rank's alone, or -1
  /// where the memory is shared with other jobs or not modelled (MIG, time-sliced vGPU); the memory's achievable
  /// bandwidth and what the job's collective asks of it per rank, bytes/s.
  const Platform* platform = nullptr;
  std::vector<int> rank_memory_gpu;
  double memory_Bps = 0;
  double collective_memory_demand_Bps = 0;
  std::unique_ptr<SimulatedCollective> allreduce;
  /// Trace tracks (thread ids under process `links_trace_pid`) of the link classes the job's collectives use.
  std::vector<int> link_class_tracks;
  int links_trace_pid = -1;
  std::vector<int> rank_host_index;  ///< per rank: the index of its host in the cluster (for operations)
  /// Tensor, pipeline or sharded parallelism; null for plain data parallelism (`allreduce` over every rank).
  std::unique_ptr<ModelParallelPlan> model_parallel;
};

/// A job being simulated. Create it, call start() before the engine runs, read records() after.
class TrainingJob {
 public:
  /// Takes the plan; `trace` (may be null) receives the job's spans under process id `trace_pid`.
  TrainingJob(JobPlan plan, TraceRecorder* trace, int trace_pid);
  ~TrainingJob();
  TrainingJob(const TrainingJob&) = delete;
  TrainingJob& operator=(const TrainingJob&) = delete;

  /// Creates the job's actors.
  void start();
  /// How many actors start() creates.
  std::size_t actor_count() const;
  /// Per rank that ran (every rank, or one per class), per iteration (warm-up included), what happened.
  std::vector<std::vector<IterationRecord>> records() const;
  /// Per entry of records(), how many ranks it stands for (1 each when every rank ran).
  std::vector<int> record_weights() const;
  /// The communication actors start() created: one per rank that communicates, or one per group of
  /// JobPlan::communication_groups.
  int communication_actors() const;
  /// Bytes each rank allreduced per iteration.
  double allreduce_bytes_per_iteration() const;
  /// Iterations run after warm-up (iterations run again after a failure included).
  int measured_iterations_run() const;
  /// Model parallelism: bytes rank 0 sent per iteration in its data group's collectives (gradients, ZeRO's weights).
  double data_parallel_sent_bytes_per_iteration() const;
  /// Allreduce calls (fusion buffers) per iteration, measured after warm-up.
  double allreduces_per_iteration() const;

  // vSphere operations (sim/operations/operations.hpp) act on a running job through these.
  /// The first iteration no rank has started yet.
  int next_unstarted_iteration() const;
  /// Counts the iterations rank 0 has started: wait_for(i + 1) returns once it starts iteration i.
  Counter& rank0_iteration_starts();
  /// Adds a pause and returns its index. REQUIRES: pause.iteration >= next_unstarted_iteration(), one flag per rank.
  std::size_t add_pause(OperationsPause pause);
  /// Whether some rank has taken pause `index` (a job that ended first never does).
  bool pause_taken(std::size_t index) const;
  /// The iteration pause `index` comes before.
  int pause_iteration(std::size_t index) const;
  /// The restart the job is waiting for or will take (a host failure's), if its end is after `now_s`.
  std::optional<std::size_t> restart_in_progress(double now_s) const;
  /// Moves the end of restart `index` to `until_s` if later (another failure while the job waits). REQUIRES: a
  /// restart.
  void extend_restart(std::size_t index, double until_s);
  /// When restart `index` ends. REQUIRES: a restart.
  double restart_end_s(std::size_t index) const;
  /// The latest restart added (an earlier failure's), if any.
  std::optional<std::size_t> last_restart() const;
  /// The last checkpoint written.
  CheckpointMark last_checkpoint() const;
  /// Each rank's host index, in rank order.
  const std::vector<int>& rank_host_indices() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace vtsim::sim
