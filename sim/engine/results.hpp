#pragma once
// What a simulation reports: per job, per link class, and which values were uncalibrated defaults.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/compute/compute_model.hpp"
#include "models/compute/memory_model.hpp"
#include "models/parallel/parallel_strategy.hpp"

namespace vtsim::sim {

/// Statistics of the measured (post-warm-up) step times.
struct StepStatistics {
  double mean_s = 0;
  double p50_s = 0;
  double p99_s = 0;
};

/// Nearest-rank percentiles and the mean of `samples`. REQUIRES: samples not empty.
StepStatistics step_statistics(std::vector<double> samples);

/// A job's time to train through checkpoints and vSphere operations (sim/operations/operations.hpp).
struct JobOperations {
  double time_to_train_s = 0;  ///< from the start to the end of the job's last iteration, as simulated
  /// time_to_train_s less what the events cost (checkpoints stay: they are part of training either way).
  double time_to_train_without_events_s = 0;
  int checkpoints = 0;           ///< written
  double checkpoint_write_s = 0;  ///< each
  int lost_iterations = 0;       ///< run again after host failures
  /// Iterations run in all, lost ones included; the step figures leave out those an operation touched.
  int iterations_run = 0;
};

/// What one event cost one job.
struct EventCost {
  std::string job;
  double cost_s = 0;  ///< the job's time to train lengthened by this much
  /// Whether the event ran its course on the job: false when the job ended before its pre-copy, stun or restart
  /// (only what it cost until then counts).
  bool completed = true;
  bool extended = false;  ///< host_failure: the job was already down; this failure kept it down longer
  // vmotion and maintenance: the VM on the event's host.
  double precopy_s = 0;
  double precopy_bytes = 0;
  double precopy_slowdown_s = 0;  ///< the job's iterations during the pre-copy, beyond their undisturbed mean
  double framebuffer_bytes = 0;
  double stun_s = 0;
  bool over_stun_limit = false;
  // host_failure.
  double checkpoint_end_s = 0;  ///< the checkpoint it resumed from (0: the job's start)
  double lost_since_s = 0;      ///< the checkpoint's end, or an earlier failure's restart the job resumed after it
  double resumed_s = 0;
  int lost_iterations = 0;
};

/// One event of the scenario.
struct EventResult {
  std::string type;
  int host = 0;
  bool reached = false;  ///< false when the jobs ended before it came
  double at_s = 0;
  std::vector<EventCost> jobs;
};

/// A job with tensor, pipeline or sharded parallelism: its split and what each dimension cost (docs/large-models.md).
struct ParallelResult {
  ParallelStrategy strategy;  ///< the job's, with its derived data degree and micro-batches
  int global_batch = 0;       ///< samples per optimizer step
  /// Idle fraction of the pipeline with equal stages and free communication, the closed form (p-1)/(m+p-1), or
  /// (p-1)/(v m+p-1) interleaved; 0 without a pipeline.
  double bubble_fraction_closed_form = 0;
  double model_tflops_per_gpu = 0;     ///< the model's flops per step (NARAYANAN, no recomputation) / step / GPUs
  double hardware_tflops_per_gpu = 0;  ///< the same with the recomputed forward work counted
  /// Model and hardware flop utilization: the two rates above over the device's dense peak for the job's precision
  /// (MFU as PaLM defines it, Chowdhery et al. 2022, App. B; HFU counting the recomputation too).
  double model_flops_utilization = 0;
  double hardware_flops_utilization = 0;
  // Per step, mean over ranks: time in each dimension's communication, where the compute waited for it.
  double tensor_parallel_s = 0;      ///< the tensor group's collectives (all on the critical path)
  double pipeline_wait_s = 0;        ///< waiting for another stage's activations or gradients: bubble + transfers
  double data_parallel_wait_s = 0;   ///< waiting for gradient buckets and ZeRO's weight gathers
  /// Bytes rank 0 sent per step in its data group's collectives, as the engine ran them: a ring's 2 (d - 1) / d of
  /// each gradient bucket (d - 1) / d under ZeRO, plus (d - 1) / d of each weight gather.
  double data_parallel_sent_bytes = 0;
};

/// One job's figures.
struct JobResult {
  std::string name;
  std::string workload;
  std::string precision;
  std::string device;              ///< what one rank runs on (GPU, vGPU profile or MIG instance)
  int ranks = 0;
  /// Ranks whose compute ran: one per class of alike ranks when the job ran reduced (sim/training/rank_classes.hpp),
  /// else `ranks`. At flow and step fidelity every rank's communication runs all the same, its own or its host's
  /// (communication_actors).
  int simulated_ranks = 0;
  std::string not_reduced;  ///< why the job's ranks did not run as classes ("" when they did)
  /// Actors that ran the ranks' communication: one per rank that reduces gradients, or one per host where a host's
  /// ranks communicate as one (make_host_allreduce); 0 for a job that reduces nothing.
  int communication_actors = 0;
  int batch_per_gpu = 0;
  std::vector<double> step_times_s;  ///< measured iterations only
  StepStatistics step;
  double samples_per_s = 0;
  double single_gpu_step_s = 0;      ///< the same job on one device of the same kind, alone on an idle VM or host
  double single_gpu_samples_per_s = 0;
  std::string single_gpu_reference;  ///< what single_gpu_step_s is (JobCompute::single_gpu_reference)
  double scaling_efficiency = 0;     ///< samples_per_s / (ranks x single_gpu_samples_per_s)
  /// The efficiency's sampling error: the mean step is the mean of step_times_s, whose spread (the compute model's
  /// step-to-step variability) leaves it that uncertain, efficiency x sd / (mean x sqrt(n)); the closed-form reference
  /// has none. A one-GPU job may come out at 100% plus or minus this. 0 with fewer than two measured iterations.
  double scaling_efficiency_standard_error = 0;
  double speedup_over_one_gpu = 0;   ///< samples_per_s / single_gpu_samples_per_s
  double compute_s = 0;              ///< per step, mean over ranks and iterations: kernels as run
  double interference_s = 0;         ///< part of compute_s lost to collectives running alongside
  double scheduler_wait_s = 0;       ///< per step: waiting for the GPU while other vGPUs had their time slices
  double data_wait_s = 0;            ///< per step: waiting for the data loader's batch
  /// Per step: the time a rank's compute falls short of the slowest rank's in the same iteration, mean over ranks:
  /// what the collectives make the faster ranks wait (compute variability, stalls, slower GPUs).
  double straggler_wait_s = 0;
  double exposed_communication_s = 0;  ///< per step: step time not covered by compute, waits and stragglers
  double step_time_cv = 0;             ///< the per-iteration compute spread the ranks drew from
  double allreduce_bytes_per_step = 0;
  double allreduces_per_step = 0;
  /// Allreduce calls per step by NCCL's choice of algorithm and protocol ("ring/Simple": 28), over all iterations.
  std::map<std::string, double> nccl_choices_per_step;
  /// What jobs[i].nccl forces (NCCL_ALGO, NCCL_PROTO): "ring", "LL128"...; empty where NCCL's model chooses.
  std::string nccl_forced_algorithm;
  std::string nccl_forced_protocol;
  bool nccl_collnet = false;     ///< jobs[i].nccl.collnet: NCCL_COLLNET_ENABLE=1 (SHARP)
  int nccl_forced_channels = 0;  ///< what jobs[i].nccl.channels forces (NCCL_MIN/MAX_NCHANNELS); 0 where NCCL counts
  MemoryFootprint memory;
  double device_memory_bytes = 0;
  ComputeParameters compute_parameters;  ///< the kernel model's constants for this job
  /// Kernels of the iteration device_time_by_class times: one micro-batch's forward and backward and the optimizer's
  /// step.
  int kernels_per_step = 0;
  std::vector<std::string> compute_sources;  ///< where the compute model's fitted or given values came from
  /// Device busy time / step time of the one-GPU reference step (the scaling reference: every micro-batch of the
  /// step, and the optimizer once; JobCompute::single_gpu_busy_s).
  double gpu_busy_fraction_alone = 0;
  /// Device time by class of kernel, alone on its device, for one micro-batch's forward and backward and the
  /// optimizer's step (KernelTimes::by_class): one rank's for a data-parallel job; for a job split by tensor or
  /// pipeline parallelism the whole model's on one GPU, the reference's kernels (without recomputation).
  std::array<ClassTime, kKernelClasses> device_time_by_class{};
  JobOperations operations;
  std::optional<ParallelResult> parallel;  ///< jobs with parallelism only
};

/// Traffic on one class of links.
struct LinkClassResult {
  std::string link_class;
  int links = 0;                     ///< links of this class that carried traffic
  double bytes_per_s = 0;            ///< all directions of all links of the class, summed
  double busiest_utilisation = 0;    ///< the busiest link direction's bytes/s over its bandwidth
};

/// One time-sliced GPU.
struct GpuResult {
  int gpu = 0;
  std::vector<std::string> vgpus;  ///< the jobs holding its vGPUs, in round-robin order
  double busy_fraction = 0;        ///< of the shared window (while every tenant runs), running some vGPU's kernels
  double switch_time_s = 0;        ///< lost to context switches in the shared window
  long switches = 0;
};

/// A whole simulation's result.
/// Where one simulation's wall-clock time went, for `vtsim bench` (not part of the deterministic JSON).
struct WallClock {
  double plan_s = 0;      ///< compute model, topology, rings and NCCL's choices
  double platform_s = 0;  ///< SimGrid's engine and platform: zones, links, routes
  double actors_s = 0;    ///< each job's collectives and actors, the operations' daemons
  double run_s = 0;       ///< the simulation itself (Engine::run)
  double results_s = 0;   ///< figures from the finished run
};

struct SimulationResult {
  std::string scenario;
  std::string fidelity;
  std::vector<JobResult> jobs;
  std::vector<LinkClassResult> link_classes;
  std::vector<GpuResult> gpus;             ///< time-sliced GPUs only
  std::vector<EventResult> events;         ///< the scenario's events, in its order
  std::vector<std::string> uncalibrated;  ///< defaults used that no measurement backs
  std::string calibration_profile;        ///< the scenario's profile; "" for none
  std::vector<std::string> calibrated;    ///< values the profile supplied, each with where it was measured
  double simulated_time_s = 0;
  long communications = 0;   ///< SimGrid communications completed (what step fidelity's cost grows with)
  long transfers_alone = 0;  ///< transfers started alone on their route, computed not simulated (route_ledger.hpp)
  WallClock wall_clock;      ///< not in to_json: it differs from run to run
};

/// The result as JSON, units in the key names. Deterministic: the same result gives the same bytes.
nlohmann::json to_json(const SimulationResult& result);

}  // namespace vtsim::sim
