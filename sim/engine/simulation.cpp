#include "sim/engine/simulation.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "models/collectives/collective_model.hpp"
#include "models/compute/job_compute.hpp"
#include "models/compute/variability.hpp"
#include "models/core/atomic_file.hpp"
#include "models/network/flow_analysis.hpp"
#include "models/network/topology.hpp"
#include "models/parallel/ddp_buckets.hpp"
#include "models/resolve/resolved_run.hpp"
#include "sim/collectives/communicators.hpp"
#include "sim/engine/engine_setup.hpp"
#include "sim/engine/platform.hpp"
#include "sim/operations/operations.hpp"
#include "sim/sharing/gpu_sharing.hpp"
#include "sim/training/model_parallel_plan.hpp"
#include "sim/training/rank_classes.hpp"
#include "sim/training/training_job.hpp"

namespace vtsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

// Trace processes: link-class tracks, time-sliced GPU tracks, then one per job.
constexpr int kLinksTracePid = 0;
constexpr int kGpusTracePid = 1;
constexpr int kFirstJobTracePid = 2;  // then one per job, then the vSphere operations

std::vector<LinkClassResult> link_class_results(const Topology& topology,
                                                const std::vector<std::vector<std::pair<GpuFlow, double>>>& traffic,
                                                const std::vector<double>& step_s) {
  std::map<std::pair<int, bool>, double> rate;  // (link, direction) -> bytes/s
  for (std::size_t j = 0; j < traffic.size(); ++j) {
    for (const auto& [flow, bytes] : traffic[j]) {
      for (const Hop& hop : topology.route(flow.src, flow.dst, flow.flow)) rate[{hop.link, hop.forward}] += bytes / step_s[j];
    }
  }
  std::map<LinkClass, LinkClassResult> by_class;
  std::map<LinkClass, std::set<int>> used;
  for (const auto& [key, bytes_per_s] : rate) {
    const Link& link = topology.links()[static_cast<std::size_t>(key.first)];
    LinkClassResult& result = by_class[link.link_class];
    result.link_class = std::string(to_string(link.link_class));
    result.bytes_per_s += bytes_per_s;
    result.busiest_utilisation = std::max(result.busiest_utilisation, bytes_per_s / link.bandwidth_Bps);
    used[link.link_class].insert(key.first);
  }
  std::vector<LinkClassResult> results;
  for (auto& [link_class, result] : by_class) {
    result.links = static_cast<int>(used[link_class].size());
    results.push_back(result);
  }
  return results;
}

/// When the job's last iteration ended (its last rank to end it).
double job_end_s(const TrainingJob& job) {
  double end = 0;
  for (const auto& rank : job.records()) end = std::max(end, rank.back().end_s);
  return end;
}

/// `value`, or 0 when it is rounding noise of a sum of simulated times: below 1e-9 of `scale` (a step time).
/// Bytes one checkpoint of the job writes: as stated, else its weights and optimizer state.
double checkpoint_bytes(const JobConfig& config, const JobCompute& compute) {
  return config.checkpoint.size_bytes.value_or(compute.memory.weights_bytes + compute.memory.optimizer_bytes);
}

double without_noise(double value, double scale) { return std::abs(value) <= 1e-9 * scale ? 0.0 : value; }

/// Per iteration of a job, all ranks together (lost ones too): from the previous one's end (after the checkpoint that
/// followed it, if any) to its own end.
struct IterationSpan {
  double begin_s = 0;
  double end_s = 0;
  bool operated = false;  ///< paused by an operation, followed by a checkpoint, or lost
};

std::vector<IterationSpan> iteration_spans(const std::vector<std::vector<IterationRecord>>& records) {
  std::vector<IterationSpan> spans;
  double previous_end = 0;
  for (std::size_t k = 0; k < records.front().size(); ++k) {
    IterationSpan span{previous_end, 0, false};
    previous_end = 0;
    for (const auto& rank : records) {
      span.end_s = std::max(span.end_s, rank[k].end_s);
      span.operated |= rank[k].operations_s > 0 || rank[k].checkpoint_s > 0 || rank[k].lost;
      previous_end = std::max(previous_end, rank[k].end_s + rank[k].checkpoint_s);
    }
    spans.push_back(span);
  }
  return spans;
}

bool overlaps(const IterationSpan& span, const std::vector<std::pair<double, double>>& windows) {
  return std::any_of(windows.begin(), windows.end(),
                     [&](const auto& window) { return span.begin_s < window.second && span.end_s > window.first; });
}

/// What a job with parallelism reports beyond the common figures, over the iterations `counted` (those whose steps
/// `result` holds).
ParallelResult parallel_result(const JobConfig& config, const JobCompute& compute,
                               const std::vector<std::vector<IterationRecord>>& records,
                               const std::vector<std::size_t>& counted, const JobResult& result) {
  const ParallelStrategy& strategy = *config.parallelism;
  ParallelResult parallel;
  parallel.strategy = strategy;
  parallel.global_batch = samples_per_step(config);
  parallel.bubble_fraction_closed_form = pipeline_bubble_fraction(strategy);
  const TransformerShape& shape = compute.workload.transformer;
  const double sequences = parallel.global_batch;
  const double per_gpu_step = result.step.mean_s * result.ranks * 1e12;
  const double model_flop = transformer_iteration_flop(shape, sequences, false);
  parallel.model_tflops_per_gpu = model_flop / per_gpu_step;
  double hardware_flop = model_flop;
  if (strategy.recompute == Recompute::full) hardware_flop = transformer_iteration_flop(shape, sequences, true);
  if (strategy.recompute == Recompute::selective) {
    // Attention's two products (Q K^T and softmax x V) again: 4 s^2 h flop per sequence and layer (NARAYANAN).
    const double s = shape.sequence;
    hardware_flop += 4.0 * sequences * s * s * shape.hidden * shape.layers;
  }
  parallel.hardware_tflops_per_gpu = hardware_flop / per_gpu_step;
  const double peak_tflops = compute.device.peak_flops / 1e12;
  parallel.model_flops_utilization = parallel.model_tflops_per_gpu / peak_tflops;
  parallel.hardware_flops_utilization = parallel.hardware_tflops_per_gpu / peak_tflops;
  double tensor_s = 0;
  double pipeline_s = 0;
  double data_s = 0;
  for (std::size_t k : counted) {
    for (const auto& rank : records) {
      tensor_s += rank[k].tensor_parallel_s;
      pipeline_s += rank[k].pipeline_wait_s;
      data_s += rank[k].data_parallel_wait_s;
    }
  }
  const double rank_iterations = static_cast<double>(counted.size() * records.size());
  if (rank_iterations > 0) {
    parallel.tensor_parallel_s = tensor_s / rank_iterations;
    parallel.pipeline_wait_s = pipeline_s / rank_iterations;
    parallel.data_parallel_wait_s = data_s / rank_iterations;
  }
  return parallel;
}

/// Figures of one job. Only iterations that end by `window_end_s` count (several tenants: while all of them still run,
/// so that no tenant's "shared" figures include time it ran alone); at least the first measured one always counts.
/// The step figures leave out iterations an operation touched (a pause, a checkpoint after it, lost to a failure,
/// running during one of `precopy_windows`), unless that leaves none.
JobResult job_result(const JobConfig& config, const JobCompute& compute, const TrainingJob& job, double window_end_s,
                     const std::vector<std::pair<double, double>>& precopy_windows) {
  const auto records = job.records();
  const std::vector<int> weights = job.record_weights();
  const std::vector<IterationSpan> spans = iteration_spans(records);
  JobResult result;
  result.name = config.name;
  result.workload = compute.workload.id;
  result.precision = std::string(to_string(config.precision));
  result.device = compute.device_name;
  result.simulated_ranks = static_cast<int>(records.size());
  result.communication_actors = job.communication_actors();
  for (int weight : weights) result.ranks += weight;
  result.batch_per_gpu = config.batch_per_gpu;
  double compute_sum = 0;
  double interference_sum = 0;
  double scheduler_wait_sum = 0;
  double data_wait_sum = 0;
  double straggler_sum = 0;
  std::vector<std::size_t> counted;  // the iterations the figures cover
  for (const bool undisturbed_only : {true, false}) {
    for (std::size_t k = static_cast<std::size_t>(config.warmup_iterations); k < spans.size(); ++k) {
      const bool in_window = spans[k].end_s <= window_end_s * (1 + 1e-12) || result.step_times_s.empty();
      if (!in_window || (undisturbed_only && (spans[k].operated || overlaps(spans[k], precopy_windows)))) continue;
      result.step_times_s.push_back(spans[k].end_s - spans[k].begin_s);
      counted.push_back(k);
      double slowest = 0;  // a rank standing for its class is its slowest member
      for (const auto& rank : records) slowest = std::max(slowest, rank[k].compute_s);
      for (std::size_t r = 0; r < records.size(); ++r) {
        const IterationRecord& record = records[r][k];
        const double members = weights[r];
        const double members_compute_s = weights[r] > 1 ? record.class_compute_s : record.compute_s;
        compute_sum += members_compute_s;
        interference_sum += members * record.interference_s;
        scheduler_wait_sum += members * record.scheduler_wait_s;
        data_wait_sum += members * record.data_wait_s;
        straggler_sum += members * slowest - members_compute_s;
      }
    }
    if (!result.step_times_s.empty()) break;
  }
  result.step = step_statistics(result.step_times_s);
  // Samples per step: every GPU's batch, or under model parallelism every model replica's.
  assert(result.ranks == static_cast<int>(config.gpu_ids.size()));
  result.samples_per_s = samples_per_step(config) / result.step.mean_s;
  result.single_gpu_step_s = compute.single_gpu_step_s;
  result.single_gpu_reference = compute.single_gpu_reference;
  // With parallelism the model replica's samples per step through one GPU; without, the GPU's own.
  result.single_gpu_samples_per_s =
      config.parallelism
          ? static_cast<double>(config.batch_per_gpu) / compute.single_gpu_step_s
          : static_cast<double>(config.batch_per_gpu) * config.gradient_accumulation / compute.single_gpu_step_s;
  result.scaling_efficiency = result.samples_per_s / (result.ranks * result.single_gpu_samples_per_s);
  if (const std::size_t n = result.step_times_s.size(); n >= 2) {
    result.scaling_efficiency_standard_error = result.scaling_efficiency *
                                               coefficient_of_variation(result.step_times_s) /
                                               std::sqrt(static_cast<double>(n));
  }
  result.speedup_over_one_gpu = result.samples_per_s / result.single_gpu_samples_per_s;
  const double rank_iterations = static_cast<double>(result.ranks) * static_cast<double>(result.step_times_s.size());
  const double step_s = result.step.mean_s;
  result.compute_s = compute_sum / rank_iterations;
  result.interference_s = without_noise(interference_sum / rank_iterations, step_s);
  result.scheduler_wait_s = without_noise(scheduler_wait_sum / rank_iterations, step_s);
  result.data_wait_s = without_noise(data_wait_sum / rank_iterations, step_s);
  result.straggler_wait_s = without_noise(straggler_sum / rank_iterations, step_s);
  result.exposed_communication_s = without_noise(
      std::max(0.0, step_s - result.compute_s - result.scheduler_wait_s - result.data_wait_s - result.straggler_wait_s),
      step_s);
  result.step_time_cv = compute.spread.cv;
  result.allreduce_bytes_per_step = job.allreduce_bytes_per_iteration();
  result.allreduces_per_step = job.allreduces_per_iteration();
  result.memory = compute.memory;
  result.device_memory_bytes = compute.device.memory_bytes;
  result.compute_parameters = compute.resolved.parameters;
  result.kernels_per_step = compute.kernels.kernels;
  result.compute_sources = compute.resolved.sources();
  result.gpu_busy_fraction_alone = compute.single_gpu_busy_s / compute.single_gpu_step_s;
  result.device_time_by_class = compute.kernels.by_class;
  JobOperations& operations = result.operations;
  operations.time_to_train_s = spans.back().end_s;
  operations.time_to_train_without_events_s = operations.time_to_train_s;  // less the events' costs, later
  operations.iterations_run = static_cast<int>(spans.size());
  operations.checkpoint_write_s =
      config.checkpoint.interval_iterations > 0 ? checkpoint_bytes(config, compute) / config.checkpoint.storage_Bps : 0;
  for (const IterationRecord& record : records.front()) {
    operations.checkpoints += record.checkpoint_s > 0 ? 1 : 0;
    operations.lost_iterations += record.lost ? 1 : 0;
  }
  if (config.parallelism) {
    result.parallel = parallel_result(config, compute, records, counted, result);
    result.parallel->data_parallel_sent_bytes = job.data_parallel_sent_bytes_per_iteration();
  }
  return result;
}

/// The time the job's iterations during [from_s, to_s] took beyond its undisturbed mean step (those an operation
/// paused excepted: their pause is counted apart).
double slowdown_during(const TrainingJob& job, double from_s, double to_s, double mean_step_s) {
  double extra = 0;
  for (const IterationSpan& span : iteration_spans(job.records())) {
    if (!span.operated && overlaps(span, {{from_s, to_s}})) extra += span.end_s - span.begin_s - mean_step_s;
  }
  return std::max(0.0, extra);
}

/// A job as it runs: what resolve() gave it, and what its simulation adds.
struct RunningJob {
  const ResolvedJob* resolved = nullptr;
  std::unique_ptr<TrainingJob> job;
  NcclChoiceCounts nccl_choices;  ///< NCCL's algorithm and protocol per allreduce, all iterations
  std::string not_reduced;        ///< why its ranks do not run as classes ("" when they do)
};

/// Whether `job`'s ranks communicate one actor per host (make_host_allreduce): Horovod's hierarchical allreduce at
/// flow fidelity, its ranks reduced (compute classes, every rank communicating; simulation.reduce_ranks), whole hosts
/// whose rings allow it (host_communicates_for_its_ranks), and nothing that makes one rank's communication differ
/// from its host's others' or shares the job's links: the run's only job (no vSphere event either: it keeps the ranks
/// unreduced), no GPU shared with another rank or time-sliced, and no memory links (re-rated per rank as its kernels
/// run).
bool communicates_by_host(const ResolvedRun& run, const ResolvedJob& job, const JobPlan& plan,
                          const RunningJob& running) {
  if (!running.not_reduced.empty() || !plan.every_rank_communicates) return false;
  if (run.simulation.fidelity != Fidelity::flow || run.memory_can_bind || run.jobs.size() != 1) return false;
  if (job.config.data_parallel != DataParallel::horovod || !runs_hierarchical(job.config)) return false;
  for (std::size_t position = 0; position < job.rings.ring.size(); ++position) {
    if (plan.rank_schedulers[position] != nullptr || run.ranks_per_gpu.at(job.rings.ring[position]) != 1) return false;
  }
  return host_communicates_for_its_ranks(job.rings, run.topology);
}

/// The plan of one running job: its ranks on the platform, its kernels, gradients and allreduce.
JobPlan plan_job(const ResolvedRun& run, RunningJob& running, Platform& platform, const GpuSharing& sharing,
                 bool tracing) {
  const ResolvedJob& job = *running.resolved;
  const Topology& topology = run.topology;
  const JobConfig& config = job.config;
  const JobRings& rings = job.rings;
  JobPlan plan;
  plan.name = config.name;
  plan.platform = &platform;
  plan.memory_Bps = run.gpu_memory_Bps;
  for (int g : rings.ring) {
    plan.rank_hosts.push_back(platform.gpu_host(g));
    const auto [scheduler, vgpu] = sharing.slot(g, job.index);
    plan.rank_schedulers.push_back(scheduler);
    plan.rank_vgpus.push_back(vgpu);
    // The memory link is the rank's alone when no other rank runs on its GPU.
    const bool alone = scheduler == nullptr && run.ranks_per_gpu.at(g) == 1 && plan.memory_Bps > 0;
    plan.rank_memory_gpu.push_back(alone ? g : -1);
    plan.rank_host_index.push_back(g / run.gpus_per_host);
  }
  plan.kernels = job.compute.kernels;
  plan.data_loading_s = job.compute.resolved.parameters.data_loading_s;
  plan.host_times_traced = config.trace.has_value();
  const std::vector<Layer>& layers = job.compute.workload.layers;
  for (std::size_t l = layers.size(); l-- > 0;) {
    if (layers[l].gradient_bytes() > 0) plan.tensors.push_back({static_cast<int>(l), layers[l].gradient_bytes()});
  }
  plan.data_parallel = config.data_parallel;
  plan.fusion_threshold_bytes = config.horovod.fusion_threshold_bytes;
  plan.cycle_time_s = config.horovod.cycle_time_s;
  plan.micro_batches = config.gradient_accumulation;
  plan.step_time_cv = job.compute.spread.cv;
  plan.stalls = run.simulation.variability ? run.simulation.stalls : StallConfig{};
  plan.seed = run.simulation.seed;
  for (std::size_t position = 0; position < rings.ring.size(); ++position) {
    // One stream per (job, rank) for the per-iteration draws; one per GPU for its fixed speed, shared by the jobs on it.
    plan.rank_streams.push_back((static_cast<std::uint64_t>(job.index) << 32) + position + 1);
    const auto gpu = static_cast<std::uint64_t>(rings.ring[position]);
    const double spread = run.simulation.variability ? run.simulation.gpu_speed_cv : 0.0;
    plan.rank_speed.push_back(ComputeNoise(run.simulation.seed, ~gpu, spread, {}).next_multiplier());
  }
  std::vector<bool> time_sliced;
  for (const TimeSliceScheduler* scheduler : plan.rank_schedulers) time_sliced.push_back(scheduler != nullptr);
  if (const auto blocker = reduction_blocker({.reduce_ranks = run.simulation.reduce_ranks,
                                              .model_parallel = config.parallelism.has_value(),
                                              .fidelity = run.simulation.fidelity,
                                              .events = !run.events.empty(),
                                              .tracing = tracing})) {
    running.not_reduced = *blocker;
  } else if (!job.layout) {  // model parallelism: its tensor groups, once its plan is made (below)
    plan.rank_classes = rank_classes(plan.rank_speed, time_sliced, plan.rank_memory_gpu);
    plan.every_rank_communicates = run.simulation.fidelity != Fidelity::analytic;
  }
  if (config.data_parallel == DataParallel::pytorch_ddp) {
    // DDP registers parameters in forward order; plan.tensors are in backward order.
    std::vector<double> bytes;
    for (const GradientTensor& tensor : plan.tensors) bytes.push_back(tensor.bytes);
    // A trace's NCCL allreduces are DDP's buckets as the program made them: one tensor each (a cap of 0).
    const bool traced_buckets = config.trace && config.trace->iteration->traced_buckets;
    plan.buckets = traced_buckets ? ddp_buckets_in_backward_order(bytes, 0, 0)
                                  : ddp_buckets_in_backward_order(bytes, config.ddp.first_bucket_bytes,
                                                                  config.ddp.bucket_cap_bytes);
  } else if (job.negotiation_s) {
    plan.negotiation_s = job.negotiation_s->value;
  }
  plan.iterations = config.iterations;
  plan.warmup_iterations = config.warmup_iterations;
  plan.checkpoint_interval = config.checkpoint.interval_iterations;
  plan.checkpoint_write_s = checkpoint_bytes(config, job.compute) / config.checkpoint.storage_Bps;
  if (job.nccl) {
    plan.collective_sm_share = job.collective_sm_share->value;
    plan.collective_memory_demand_Bps = job.collective_memory_demand_Bps;
    if (job.layout) {
      plan.model_parallel = make_model_parallel_plan(config, run.simulation.fidelity, job.compute, *job.layout,
                                                     topology, platform, &running.nccl_choices);
    } else if (communicates_by_host(run, job, plan, running)) {
      // One actor per host communicates for the host's ranks (docs/scale.md, "One communication actor per host").
      plan.allreduce = make_host_allreduce(rings, topology, platform);
      std::map<int, int> position_of;
      for (std::size_t p = 0; p < rings.ring.size(); ++p) position_of[rings.ring[p]] = static_cast<int>(p);
      for (const std::vector<int>& host : rings.intra_host) {
        plan.communication_groups.emplace_back();
        for (int gpu : host) plan.communication_groups.back().push_back(position_of.at(gpu));
      }
    } else {
      plan.allreduce =
          make_allreduce(config, rings, topology, platform, run.simulation.fidelity, *job.nccl, &running.nccl_choices);
    }
  } else if (job.layout) {
    plan.model_parallel = make_model_parallel_plan(config, run.simulation.fidelity, job.compute, *job.layout, topology,
                                                   platform, &running.nccl_choices);
  }
  if (plan.model_parallel && running.not_reduced.empty()) {
    const ModelParallelPlan& mp = *plan.model_parallel;
    if (auto groups = tensor_group_classes(mp.rank_tensor_group, mp.rank_tensor_position, plan.rank_speed,
                                           time_sliced, plan.rank_memory_gpu)) {
      plan.rank_classes = std::move(*groups);
    } else {
      running.not_reduced = "the ranks of a tensor group differ (speed, time slicing or memory)";
    }
  }
  for (LinkClass link_class : job.link_classes) plan.link_class_tracks.push_back(static_cast<int>(link_class));
  plan.links_trace_pid = kLinksTracePid;
  return plan;
}

/// Per time-sliced GPU, over [0, window_end_s] (while every tenant runs): its busy fraction, switch time and count.
std::vector<GpuResult> gpu_results(const GpuSharing& sharing, double window_end_s) {
  std::vector<GpuResult> results;
  for (const GpuSharing::GpuReport& report : sharing.reports(window_end_s)) {
    results.push_back({report.gpu, report.vgpus, report.statistics.busy_s / window_end_s,
                       report.statistics.switch_s, report.statistics.switches});
  }
  return results;
}

/// What each event cost each job, and each job's time to train without its events.
std::vector<EventResult> event_results(const std::vector<EventOutcome>& outcomes, const std::vector<RunningJob>& running,
                                       std::vector<JobResult>& jobs) {
  const auto job_position = [&](const std::string& name) {
    const auto found = std::find_if(jobs.begin(), jobs.end(), [&](const JobResult& job) { return job.name == name; });
    assert(found != jobs.end());
    return static_cast<std::size_t>(found - jobs.begin());
  };
  std::vector<EventResult> results;
  // Stuns of one job's VMs that come before the same iteration pause its ranks side by side: the iteration is as much
  // longer as the longest of them. Each event is charged what it adds beyond the earlier events' (scenario order).
  std::map<std::pair<std::size_t, int>, double> stunned;  // (job, iteration) -> stun charged so far
  for (const EventOutcome& outcome : outcomes) {
    EventResult event{std::string(to_string(outcome.type)), outcome.host, outcome.reached, outcome.at_s, {}};
    for (const VmMigration& migration : outcome.migrations) {
      const std::size_t j = job_position(migration.job);
      const TrainingJob& job = *running[j].job;
      EventCost cost;
      cost.job = migration.job;
      // A pre-copy the job outlived ran until its end.
      const double precopy_end_s =
          migration.precopy_end_s >= 0 ? migration.precopy_end_s : jobs[j].operations.time_to_train_s;
      cost.precopy_s = precopy_end_s - migration.precopy_start_s;
      cost.precopy_bytes = migration.precopy_bytes;
      cost.precopy_slowdown_s = slowdown_during(job, migration.precopy_start_s, precopy_end_s, jobs[j].step.mean_s);
      cost.framebuffer_bytes = migration.framebuffer_bytes;
      cost.stun_s = migration.stun_s;
      cost.over_stun_limit = migration.over_stun_limit;
      cost.completed = migration.stun && job.pause_taken(*migration.stun);
      double stun_cost_s = 0;
      if (cost.completed) {
        double& charged = stunned[{j, job.pause_iteration(*migration.stun)}];
        stun_cost_s = std::max(0.0, cost.stun_s - charged);
        charged = std::max(charged, cost.stun_s);
      }
      cost.cost_s = stun_cost_s + cost.precopy_slowdown_s;
      jobs[j].operations.time_to_train_without_events_s -= cost.cost_s;
      event.jobs.push_back(cost);
    }
    for (const FailureImpact& failure : outcome.failures) {
      const std::size_t j = job_position(failure.job);
      EventCost cost;
      cost.job = failure.job;
      cost.checkpoint_end_s = failure.checkpoint_end_s;
      cost.lost_since_s = failure.lost_since_s;
      cost.resumed_s = failure.resumed_s;
      cost.extended = failure.extended;
      cost.completed = running[j].job->pause_taken(failure.restart);
      if (cost.completed) {
        // The work since the checkpoint and the restart; for a failure while the job was already down, the time it
        // kept the job down beyond the earlier restart's end.
        cost.lost_iterations = failure.lost_iterations;
        cost.cost_s = failure.resumed_s - failure.lost_since_s;
      }
      jobs[j].operations.time_to_train_without_events_s -= cost.cost_s;
      event.jobs.push_back(cost);
    }
    results.push_back(event);
  }
  return results;
}

}  // namespace

SimulationResult simulate(const ResolvedRun& run, const SimulationOptions& options) {
  using Clock = std::chrono::steady_clock;
  const auto seconds_since = [](Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  WallClock wall_clock;
  auto phase_start = Clock::now();
  std::vector<RunningJob> running;
  for (const ResolvedJob& job : run.jobs) {
    running.push_back({.resolved = &job, .job = nullptr, .nccl_choices = {}, .not_reduced = {}});
  }

  wall_clock.plan_s = seconds_since(phase_start);
  phase_start = Clock::now();
  int argc = 1;
  char program[] = "vtsim";
  char* argv[] = {program, nullptr};
  sg4::Engine engine(&argc, argv);
  configure_engine();
  long communications = 0;
  // Every communication that completes (Debian's SimGrid 3.32 exports no Comm::on_start signal), once: a mailbox
  // rendezvous completes on both sides, and only its receiver's side has a buffer to receive into.
  sg4::Activity::on_completion_cb([&communications](const sg4::Activity& activity) {
    const auto* comm = dynamic_cast<const sg4::Comm*>(&activity);
    if (comm != nullptr && comm->get_dst_data() == nullptr) ++communications;
  });
  Platform platform(run.topology, run.cross_rack_ports, run.memory_can_bind ? run.gpu_memory_Bps : 0.0,
                    migrating_hosts(run.events), run.migration_Bps,
                    run.flows_between_gpus ? GpuRoutes::built : GpuRoutes::omitted);
  if (!run.simulation.reduce_flows) platform.route_ledger().disable();
  wall_clock.platform_s = seconds_since(phase_start);
  phase_start = Clock::now();

  TraceRecorder trace;
  TraceRecorder* tracer = options.trace_file.empty() ? nullptr : &trace;
  if (tracer != nullptr) {
    trace.name_process(kLinksTracePid, "links");
    for (LinkClass c : {LinkClass::nvlink, LinkClass::pcie, LinkClass::host_memory, LinkClass::nic, LinkClass::fabric,
                        LinkClass::tcp_stack}) {
      trace.name_thread(kLinksTracePid, static_cast<int>(c), std::string(to_string(c)));
    }
  }
  GpuSharing sharing(run.sliced_gpus, tracer, kGpusTracePid);
  // Every actor is counted before the first one is created: how their stacks are allocated depends on how many.
  std::size_t actors = sharing.actor_count() + run.events.size();
  for (std::size_t a = 0; a < running.size(); ++a) {
    JobPlan plan = plan_job(run, running[a], platform, sharing, tracer != nullptr);
    running[a].job = std::make_unique<TrainingJob>(std::move(plan), tracer, kFirstJobTracePid + static_cast<int>(a));
    actors += running[a].job->actor_count();
  }
  configure_stacks(actors);
  sharing.start(platform);
  for (RunningJob& job : running) job.job->start();
  assert(engine.get_actor_count() <= actors && "every actor counted");
  std::vector<OperatedJob> operated(run.scenario_jobs);
  for (RunningJob& job : running) {
    const ResolvedJob& resolved = *job.resolved;
    const JobConfig& config = resolved.config;
    operated[resolved.index] = {.job = job.job.get(),
                                .name = config.name,
                                .memory_per_rank_bytes = resolved.compute.memory.total_bytes(),
                                .checkpoint_bytes = checkpoint_bytes(config, resolved.compute),
                                .checkpoint_storage_Bps = config.checkpoint.storage_Bps};
  }
  OperationsRunner operations(
      {.events = run.events, .config = run.operations, .vmotion_rate_Bps = run.vmotion_rate_Bps}, platform,
      std::move(operated), tracer, kFirstJobTracePid + static_cast<int>(running.size()));
  operations.start();
  wall_clock.actors_s = seconds_since(phase_start);
  phase_start = Clock::now();
  engine.run();
  wall_clock.run_s = seconds_since(phase_start);
  phase_start = Clock::now();

  SimulationResult result;
  result.scenario = run.name;
  result.fidelity = std::string(to_string(run.simulation.fidelity));
  result.simulated_time_s = sg4::Engine::get_clock();
  result.communications = communications;
  result.transfers_alone = platform.route_ledger().transfers();
  std::vector<std::vector<std::pair<GpuFlow, double>>> traffic;
  std::vector<double> step_s;
  // With several jobs, figures cover the window in which all of them run: up to the first job's end.
  double window_end = result.simulated_time_s;
  for (const RunningJob& job : running) window_end = std::min(window_end, job_end_s(*job.job));
  std::map<std::string, std::vector<std::pair<double, double>>> precopies;  // per job
  for (const EventOutcome& outcome : operations.outcomes()) {
    for (const VmMigration& migration : outcome.migrations) {
      const double end_s = migration.precopy_end_s >= 0 ? migration.precopy_end_s
                                                         : std::numeric_limits<double>::infinity();
      precopies[migration.job].emplace_back(migration.precopy_start_s, end_s);
    }
  }
  for (const RunningJob& job : running) {
    const ResolvedJob& resolved = *job.resolved;
    const JobConfig& config = resolved.config;
    result.jobs.push_back(job_result(config, resolved.compute, *job.job, window_end, precopies[config.name]));
    result.jobs.back().not_reduced = job.not_reduced;
    if (config.nccl_algorithm) result.jobs.back().nccl_forced_algorithm = to_string(*config.nccl_algorithm);
    if (config.nccl_protocol) result.jobs.back().nccl_forced_protocol = to_string(*config.nccl_protocol);
    if (config.nccl_channels) result.jobs.back().nccl_forced_channels = *config.nccl_channels;
    result.jobs.back().nccl_collnet = config.nccl_collnet;
    for (const auto& [choice, calls] : job.nccl_choices) {
      result.jobs.back().nccl_choices_per_step[choice] =
          static_cast<double>(calls) / result.jobs.back().operations.iterations_run;
    }
    traffic.push_back(resolved.traffic);
    step_s.push_back(result.jobs.back().step.mean_s);
  }
  result.events = event_results(operations.outcomes(), running, result.jobs);
  result.link_classes = link_class_results(run.topology, traffic, step_s);
  result.gpus = gpu_results(sharing, window_end);
  assert(result.gpus.size() == run.sliced_gpus.size());
  result.uncalibrated = run.uncalibrated;
  result.calibration_profile = run.calibration_profile;
  result.calibrated = run.calibrated;
  if (tracer != nullptr) {
    std::ostringstream text;
    trace.write(text);
    write_file_atomically(options.trace_file, text.str());  // a failed write leaves no half trace behind
  }
  wall_clock.results_s = seconds_since(phase_start);
  result.wall_clock = wall_clock;
  return result;
}

}  // namespace vtsim::sim
