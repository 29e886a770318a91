#include "models/resolve/job_compute_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "models/catalog/gpu_catalog.hpp"
#include "models/catalog/mig_catalog.hpp"
#include "models/catalog/nic_catalog.hpp"
#include "models/catalog/vgpu_catalog.hpp"
#include "models/compute/compute_fit.hpp"
#include "models/core/error.hpp"
#include "models/core/number_text.hpp"
#include "models/core/units.hpp"
#include "models/parallel/parallel_strategy.hpp"
#include "models/parallel/zero_sharding.hpp"
#include "models/scenario/scenario.hpp"
#include "models/traces/traced_iteration.hpp"
#include "models/workload/workload.hpp"
#include "models/workload/workload_catalog.hpp"

namespace vtsim {

Workload job_workload(const JobConfig& job) {
  if (job.trace) return traced_workload(*job.trace->iteration);
  Workload workload = job.transformer ? make_transformer(*job.transformer, "transformer", "GPT-style transformer")
                                      : *make_workload(job.workload_id);
  if (job.optimizer) workload.optimizer = *job.optimizer;
  use_framework(workload, job.framework);
  if (job.memory_format) {
    workload.layout = *job.memory_format;
    workload.layout_stated = true;
  }
  if (job.optimizer_implementation) {
    // The loader refused the implementations that are not counted (optimizer_kernels_for's reason).
    workload.optimizer_kernels =
        optimizer_kernels_for(*job.optimizer_implementation, job.framework, workload.optimizer).kernels;
  }
  return workload;
}

namespace {

// The host where the job has most ranks (the first of them), and those ranks: they share one VM's cores (a VM is a
// job's rank group on one host), the VM with the least spare cores.
std::pair<int, int> busiest_host(const Scenario& scenario, const JobConfig& job) {
  std::pair<int, int> busiest{0, 0};
  for (const auto& [host, ranks] : ranks_per_host(job, scenario.cluster.host.gpus)) {
    if (ranks > busiest.second) busiest = {host, ranks};
  }
  return busiest;
}

// The host-side slowdown of a VM (models/scenario/scenario.hpp VirtualizationConfig::vm_cpu_overhead).
double vm_cpu_overhead(const VirtualizationConfig& virtualization) {
  constexpr double kDefaultVmCpuOverhead = 0.02;  // uncalibrated; bounded by published VM results, see scenario.hpp
  if (virtualization.vm_cpu_overhead) return *virtualization.vm_cpu_overhead;
  return virtualization.mode == VirtualizationMode::bare_metal ? 0.0 : kDefaultVmCpuOverhead;
}

// For a transformer that does not fit: the simplest parallel strategies over the job's GPUs that would
// (models/parallel/parallel_strategy.hpp), or that none would; "" for other workloads.
std::string strategies_note(const Workload& workload, const JobConfig& job, int gpus_per_host, double capacity_bytes) {
  if (workload.transformer.layers <= 0) return "";
  const int gpus = static_cast<int>(job.gpu_ids.size());
  const auto fitting = strategies_that_fit(workload, gpus, gpus_per_host, job.batch_per_gpu, job.precision,
                                           capacity_bytes, 3);
  if (fitting.empty()) {
    return "; no split of its " + std::to_string(gpus) + " GPUs (tensor, pipeline, ZeRO, recomputation) fits it "
           "either at micro-batch " + std::to_string(job.batch_per_gpu) + ": use more GPUs or larger ones";
  }
  std::string note = "; it would fit as";
  for (std::size_t k = 0; k < fitting.size(); ++k) {
    char gib[32];
    std::snprintf(gib, sizeof gib, " (%.1f GiB)", fitting[k].second.total_bytes() / units::kBytesPerGiB);
    note += (k == 0 ? " " : "; or ") + describe(fitting[k].first) + gib;
  }
  return note + " (jobs[i].parallelism, docs/large-models.md)";
}

// The kernels of one virtual stage at one micro-batch: recomputation reruns forward work in backward (all of it
// under full recomputation, attention's core under selective, KORTHIKANTI in parallel_strategy.hpp), and under ZeRO
// each data-parallel rank steps the optimizer over 1/d of the weights.
KernelTimes stage_kernels(const StagePart& part, const ParallelStrategy& strategy, Precision precision,
                          const DeviceCompute& device, const ComputeParameters& parameters) {
  KernelTimes times = kernel_times(part.workload, strategy.micro_batch_size, precision, device, parameters);
  for (std::size_t l = 0; l < part.workload.layers.size(); ++l) {
    // Megatron-LM recomputes the transformer layers, not the embedding, LM head and loss around them.
    const Layer& layer = part.workload.layers[l];
    const bool rerun = (strategy.recompute == Recompute::full && is_block_layer(layer)) ||
                       (strategy.recompute == Recompute::selective && layer.name.ends_with(".attn.core"));
    if (!rerun) continue;
    times.backward_s[l] += times.forward_s[l];
    times.backward_gpu_s[l] += times.forward_gpu_s[l];
    times.backward_bytes[l] += times.forward_bytes[l];
    times.gpu_busy_s += times.forward_gpu_s[l];
  }
  if (const ZeroSharding zero = ZeroSharding::of(strategy); zero.shards_optimizer()) {
    const double share = zero.optimizer_share();
    times.gpu_busy_s -= times.optimizer_gpu_s * (1 - share);
    times.optimizer_s *= share;
    times.optimizer_gpu_s *= share;
    times.optimizer_bytes *= share;
  }
  return times;
}

// Host-side lines of a resolved computation, which a traced workload does not use: its trace holds the host's time.
bool host_side_line(const std::string& line) {
  return line.starts_with("host dispatch") || line.starts_with("data loading") || line.starts_with("VM CPU overhead");
}

// A traced job's kernels on its device (models/traces/traced_iteration.hpp): each class of kernel scaled by the ratio
// of the traced GPU's rate to the device's, with the compute model's constants for both; the trace's host time kept.
void plan_traced_compute(const Scenario& scenario, std::size_t index, const CalibratedParameters& calibration,
                         const HostSide& host, JobCompute& compute) {
  const JobConfig& job = scenario.jobs[index];
  const TraceWorkloadConfig& trace = *job.trace;
  const GpuSpec& traced_gpu = *find_gpu(trace.measured_on);
  const DeviceCompute traced_device = whole_gpu(traced_gpu, job.precision, traced_gpu.memory_bytes);
  const bool same_gpu = traced_gpu.id == scenario.cluster.host.gpu_model;
  const ResolvedCompute traced =
      resolve_compute(traced_gpu, job.precision, compute.workload, job.batch_per_gpu, host, published_compute_fit(),
                      same_gpu ? calibration : CalibratedParameters{});
  const ComputeParameters& from = traced.parameters;
  ComputeParameters& to = compute.resolved.parameters;
  const DeviceCompute& device = compute.device;
  const KernelClassScale scale{
      .matrix = traced_device.peak_flops * from.gemm_efficiency / (device.peak_flops * to.gemm_efficiency),
      .convolution =
          traced_device.peak_flops * from.convolution_efficiency / (device.peak_flops * to.convolution_efficiency),
      .memory = traced_device.memory_bandwidth_Bps * from.memory_efficiency /
                (device.memory_bandwidth_Bps * to.memory_efficiency),
      .from_kernel_fixed_s = from.kernel_fixed_s,
      .to_kernel_fixed_s = to.kernel_fixed_s};
  compute.kernels = traced_kernel_times(*trace.iteration, scale, device.memory_bandwidth_Bps * to.memory_efficiency);
  // The trace's gaps are the host's time: dispatch and data loading are in them.
  to.host_dispatch_s = 0;
  to.library_launch_host_s = 0;
  to.data_loading_s = 0;
  compute.single_gpu_step_s = compute.kernels.total_s();
  compute.single_gpu_busy_s = compute.kernels.gpu_busy_s;
  compute.single_gpu_reference = "one GPU, the traced iteration, alone (closed form)";
  std::erase_if(compute.resolved.notes, [](const SourcedNote& note) { return host_side_line(note.text); });
  const TracedIteration& cut = *trace.iteration;
  // The trace's notes come first, before the fitted constants it is rescaled by.
  auto& notes = compute.resolved.notes;
  notes.insert(notes.begin(),
               SourcedNote{.source = Source::scenario,
                           .text = "kernel and host times: traced in " + trace.path + ", ProfilerStep#" +
                                   std::to_string(trace.step) + ", measured on the " + traced_gpu.id + " (" +
                                   std::to_string(cut.kernels) + " kernels; iteration " +
                                   format_number(cut.iteration_s * 1e3, "%.4g") + " ms as traced on " +
                                   std::to_string(cut.traced_ranks) + " rank(s), of which " +
                                   format_number(cut.exposed_communication_s * 1e3, "%.4g") +
                                   " ms waiting for allreduces after backward" +
                                   (cut.skipped_collectives > 0 ? "; " + std::to_string(cut.skipped_collectives) +
                                                                      " broadcasts and barriers not replayed"
                                                                : "") +
                                   ")"});
  const bool rescaled = scale.matrix != 1 || scale.convolution != 1 || scale.memory != 1 ||
                        scale.from_kernel_fixed_s != scale.to_kernel_fixed_s;
  if (rescaled) {
    notes.insert(
        notes.begin() + 1,
        SourcedNote{.source = Source::fitted,
                    .text = "traced kernels rescaled from the " + traced_gpu.id +
                            " by the compute model (docs/traces.md): GEMM x " + format_number(scale.matrix, "%.4g") +
                            ", convolution x " + format_number(scale.convolution, "%.4g") + ", memory-bound x " +
                            format_number(scale.memory, "%.4g") + " above a fixed cost of " +
                            format_number(scale.from_kernel_fixed_s * 1e6) + " us (" +
                            format_number(scale.to_kernel_fixed_s * 1e6) + " us here)"});
    // The traced GPU's constants that the target does not share (an identical default is listed once).
    const std::vector<std::string> target_uncalibrated = compute.resolved.uncalibrated();
    for (const std::string& note : traced.uncalibrated()) {
      if (host_side_line(note) || std::ranges::find(target_uncalibrated, note) != target_uncalibrated.end()) continue;
      compute.resolved.add(Source::uncalibrated, "on the traced " + traced_gpu.id + ": " + note);
    }
  }
}

// Whether the job's ranks exchange data with other hosts through the guest's TCP stack.
bool tcp_between_hosts(const Scenario& scenario, const JobConfig& job) {
  if (transport_spec(scenario.cluster.transport).stack_core_Bps <= 0) return false;
  return ranks_per_host(job, scenario.cluster.host.gpus).size() > 1;
}

}  // namespace

std::pair<DeviceCompute, std::string> job_device(const Scenario& scenario, std::size_t index) {
  const JobConfig& job = scenario.jobs[index];
  const GpuSpec& gpu = *find_gpu(scenario.cluster.host.gpu_model);
  switch (scenario.virtualization.mode) {
    case VirtualizationMode::mig: {
      const MigProfile& profile = *find_mig_profile(gpu.id, job.mig_profile);
      return {mig_instance(gpu, profile, job.precision), "MIG " + profile.id + " on " + gpu.name};
    }
    case VirtualizationMode::vgpu: {
      const VgpuProfile& profile = *find_vgpu_profile(job.vgpu_profile);
      return {whole_gpu(gpu, job.precision, profile.memory_bytes), "vGPU " + profile.id + " on " + gpu.name};
    }
    case VirtualizationMode::bare_metal:
    case VirtualizationMode::passthrough: break;
  }
  return {whole_gpu(gpu, job.precision, gpu.memory_bytes), gpu.name};
}

JobCompute plan_job_compute(const Scenario& scenario, std::size_t index, const CalibratedParameters& calibration) {
  const JobConfig& job = scenario.jobs[index];
  const GpuSpec& gpu = *find_gpu(scenario.cluster.host.gpu_model);
  JobCompute compute{job_workload(job), gpu.name, {}, {}, {}, {}, 0.0, 0.0, {}, {}, {}};
  std::tie(compute.device, compute.device_name) = job_device(scenario, index);
  const std::string where = scenario.file + ": jobs[" + std::to_string(index) + "]";
  const int batch = job.parallelism ? job.parallelism->micro_batch_size : job.batch_per_gpu;
  if (job.parallelism) {
    const ParallelStrategy& strategy = *job.parallelism;
    if (const std::string problem = partition_problem(compute.workload, strategy); !problem.empty()) {
      throw InputError(where + ".parallelism: " + problem);
    }
    compute.memory = strategy_memory(compute.workload, strategy, job.precision);
    const std::string shortfall = memory_shortfall(compute.memory, compute.device.memory_bytes, compute.device_name);
    if (!shortfall.empty()) {
      JobConfig micro = job;
      micro.batch_per_gpu = strategy.micro_batch_size;
      throw InputError(where + ".parallelism: " + compute.workload.name + " as " + describe(strategy) + " " +
                       shortfall +
                       strategies_note(compute.workload, micro, scenario.cluster.host.gpus,
                                       compute.device.memory_bytes));
    }
  } else {
    compute.memory = memory_footprint(compute.workload, job.batch_per_gpu, job.precision);
  }
  if (const std::string shortfall =
          memory_shortfall(compute.memory, compute.device.memory_bytes, compute.device_name);
      !shortfall.empty()) {
    throw InputError(scenario.file + ": jobs[" + std::to_string(index) + "]: " + compute.workload.name + " at batch " +
                     std::to_string(job.batch_per_gpu) + " " + shortfall +
                     strategies_note(compute.workload, job, scenario.cluster.host.gpus, compute.device.memory_bytes));
  }
  const auto [busiest, ranks_there] = busiest_host(scenario, job);
  const JobCpuCores cores = job_cpu_cores(scenario, job, busiest);
  const HostSide host{.framework = job.framework,
                      .execution = job.execution,
                      .host_dispatch_s = job.host_dispatch_s,
                      .data_loader = job.data_loader,
                      .data_loading_cpu_s_per_sample = job.data_loading_cpu_s_per_sample,
                      .data_loader_images_per_s = job.data_loader_images_per_s,
                      .cpu_cores = cores.cores,
                      .cpu_cores_what = cores.what,
                      .cpu_cores_uncalibrated = cores.uncalibrated,
                      .ranks_per_vm = ranks_there,
                      .tcp_between_hosts = tcp_between_hosts(scenario, job),
                      .vm_cpu_overhead = vm_cpu_overhead(scenario.virtualization),
                      .vm_cpu_overhead_stated = scenario.virtualization.vm_cpu_overhead.has_value()};
  compute.resolved =
      resolve_compute(gpu, job.precision, compute.workload, batch, host, published_compute_fit(), calibration);
  if (!compute.resolved.refused.empty()) {
    throw InputError(where + ".precision: " + std::string(to_string(job.precision)) + " " + compute.workload.name +
                     " on the " + gpu.id + ": " + compute.resolved.refused.front());
  }
  // Scaling efficiency's reference (issue 32): the same job on one such device alone on an otherwise idle VM or
  // host: one training loop, the loader workers on every other core, no network stack's threads. The job's own
  // ranks share their cores with each other, with other jobs' ranks and with TCP, and its step shows it; the
  // reference must not, or a loader-bound or TCP-bound job would compare with itself and read 100%.
  HostSide alone_host = host;
  alone_host.cpu_cores = whole_host_cpu_cores(scenario);
  alone_host.ranks_per_vm = 1;
  alone_host.tcp_between_hosts = false;
  ComputeParameters alone_parameters = compute.resolved.parameters;
  alone_parameters.data_loading_s = data_loading_s(gpu, compute.workload, batch, alone_host);
  const std::string alone_on =
      "alone on an otherwise idle " +
      (scenario.virtualization.mode == VirtualizationMode::bare_metal
           ? "host (" + std::to_string(alone_host.cpu_cores) + " cores"
           : "VM (" + std::to_string(alone_host.cpu_cores) + " vCPUs") +
      ", no network stack)";
  if (job.trace) {
    plan_traced_compute(scenario, index, calibration, host, compute);
  } else {
    compute.kernels = kernel_times(compute.workload, batch, job.precision, compute.device, compute.resolved.parameters,
                                   Pass::training, job.gradient_accumulation);
    // With parallelism the reference is set below.
    compute.single_gpu_step_s = alone_step_s(compute.kernels, alone_parameters, job.gradient_accumulation);
    compute.single_gpu_busy_s = alone_busy_s(compute.kernels, job.gradient_accumulation);
    compute.single_gpu_reference = "one " + compute.device_name + ", the same batch, " + alone_on + " (closed form)";
  }
  if (job.parallelism) {
    const ParallelStrategy& strategy = *job.parallelism;
    for (StagePart& part : partition_model(compute.workload, strategy, job.precision)) {
      KernelTimes times = stage_kernels(part, strategy, job.precision, compute.device, compute.resolved.parameters);
      compute.stages.push_back({std::move(part), std::move(times)});
    }
    // Like for like: the same micro-batches and recomputation on one GPU, the model whole, nothing sharded.
    ParallelStrategy one_gpu = strategy;
    one_gpu.tensor = one_gpu.pipeline = one_gpu.data = one_gpu.virtual_stages = 1;
    one_gpu.stage_layers.clear();
    one_gpu.zero_stage = 0;
    one_gpu.schedule = PipelineSchedule::one_f_one_b;
    one_gpu.sequence_parallel = false;
    const StagePart whole = partition_model(compute.workload, one_gpu, job.precision).front();
    const KernelTimes kernels = stage_kernels(whole, one_gpu, job.precision, compute.device, alone_parameters);
    compute.single_gpu_step_s = alone_step_s(kernels, alone_parameters, strategy.micro_batches);
    compute.single_gpu_busy_s = alone_busy_s(kernels, strategy.micro_batches);
    compute.single_gpu_reference =
        "one " + compute.device_name + (strategy.tensor * strategy.pipeline > 1 ? " as if it held the whole model" : "") +
        ", the same micro-batches and recomputation, " + alone_on + " (closed form)";
  }
  if (!scenario.simulation.variability) {
    compute.spread = {0.0, "variability off (simulation.variability)", false};
  } else if (job.step_time_cv) {
    compute.spread = {*job.step_time_cv, "stated in the scenario (" + job.json_path + ".step_time_cv)", false};
  } else if (calibration.step_time_cv) {
    compute.spread = {calibration.step_time_cv->value, calibration.step_time_cv->provenance, false};
  } else {
    compute.spread = default_step_time_spread(compute.workload);
  }
  return compute;
}

}  // namespace vtsim
