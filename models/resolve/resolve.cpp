#include "models/resolve/resolve.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <string>

#include "models/catalog/gpu_catalog.hpp"
#include "models/catalog/mig_catalog.hpp"
#include "models/catalog/nic_catalog.hpp"
#include "models/catalog/vgpu_catalog.hpp"
#include "models/collectives/collective_model.hpp"
#include "models/compute/interference.hpp"
#include "models/core/error.hpp"
#include "models/core/number_text.hpp"
#include "models/resolve/job_compute_plan.hpp"
#include "models/scenario/operations.hpp"
#include "models/scenario/scenario.hpp"

namespace vtsim {
namespace {

// Each job that runs, with its compute planned (its memory fit checked).
std::vector<ResolvedJob> plan_computes(const Scenario& scenario, const CalibratedParameters& calibration) {
  std::vector<ResolvedJob> jobs;
  for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
    if (scenario.jobs[j].idle) continue;
    ResolvedJob job;
    job.index = j;
    job.config = scenario.jobs[j];
    job.compute = plan_job_compute(scenario, j, calibration);
    jobs.push_back(std::move(job));
  }
  return jobs;
}

// Each job's rings over `topology`, its model-parallel layout and its NCCL communicator (a forced algorithm or protocol
// NCCL would refuse is an input error here); returns the ports whose flows leave their racks.
std::vector<std::pair<int, int>> plan_communication(const Scenario& scenario, const Topology& topology,
                                                    std::vector<ResolvedJob>& jobs) {
  std::vector<std::pair<int, int>> ports;
  const NcclDevice device = nccl_device(scenario);
  for (ResolvedJob& job : jobs) {
    const JobConfig& config = scenario.jobs[job.index];
    job.rings = job_rings(scenario, job.index, topology);
    if (config.parallelism) {
      // Ranks in Megatron-LM's order; NCCL's view is that of the group reducing gradients.
      job.layout = model_parallel_layout(config, scenario.cluster.host.nics, topology);
      job.rings.ring = job.layout->rank_gpu;
      // Every group's own communicator, each refused here as NCCL would refuse what the job forces on it: first the
      // data groups, from the one reducing gradients, then the tensor groups (from group 0, which reduces when d = 1).
      ModelParallelLayout& layout = *job.layout;
      for (const JobRings& group : layout.data_groups) {
        layout.data_nccl.push_back(job_nccl_communicator(scenario, job.index, device, group, topology));
      }
      for (const JobRings& group : layout.tensor_groups) {
        layout.tensor_nccl.push_back(job_nccl_communicator(scenario, job.index, device, group, topology));
      }
      if (job.rings.ring.size() < 2) continue;
      job.nccl = &reducing_group(layout) == &layout.data_groups.front() ? layout.data_nccl.front()
                                                                        : layout.tensor_nccl.front();
      const auto more = model_parallel_ports(config, *job.layout, topology);
      ports.insert(ports.end(), more.begin(), more.end());
      continue;
    }
    if (job.rings.ring.size() < 2) continue;
    job.nccl = job_nccl_communicator(scenario, job.index, device, job.rings, topology);
    const auto more = cross_rack_ports(config, job.rings, topology);
    ports.insert(ports.end(), more.begin(), more.end());
  }
  return ports;
}

/// Horovod's negotiation per coordinator tick: with its response cache (on by default) the ranks agree on the ready
/// tensors with one small bitwise allreduce over the controller (MPI or Gloo, horovod/common/controller.cc), which
/// vtsim times as a binary tree of 2 ceil(log2 N) messages, each at the largest latency between two of the job's ring
/// neighbours. An uncalibrated mechanism: no published figure gives the cost of a tick.
/// A calibration profile's Horovod timelines measure a message's cost instead
/// (models/calibration/calibrated_parameters.hpp). The tick's source is its message's: measured (the note is then the
/// profile's provenance) or uncalibrated.
Param<double> horovod_negotiation_s(const JobRings& rings, const Topology& topology,
                                    const CalibratedParameters& calibration) {
  Param<double> tick{.value = 0, .source = Source::uncalibrated, .note = ""};  // one message's cost, until the end
  if (calibration.horovod_negotiation_message_s) {
    tick = {.value = calibration.horovod_negotiation_message_s->value,
            .source = Source::measured,
            .note = calibration.horovod_negotiation_message_s->provenance};
  } else {
    for (const GpuFlow& flow : ring_flows(rings.ring)) {
      tick.value = std::max(tick.value, topology.latency_s(topology.route(flow.src, flow.dst)));
    }
    tick.note = "2 ceil(log2 N) messages at the ranks' largest neighbour latency, no published figure";
  }
  const double ranks = static_cast<double>(rings.ring.size());
  tick.value *= 2 * std::ceil(std::log2(ranks));
  return tick;
}

/// What a collective of `nccl`'s channels asks of each rank's GPU memory: 3 bytes per byte its channels send, at
/// the share of the communicator's bandwidth they reach.
double collective_memory_demand_Bps(const NcclCommunicator& nccl) {
  return kHbmBytesPerWireByte * nccl.channels * nccl.channel_bandwidth_GBps * 1e9 *
         nccl_channel_bandwidth_fraction(nccl);
}

/// What the job's collectives and coordinator cost besides their transfers, and what its traffic crosses.
void plan_collectives(const Scenario& scenario, const CalibratedParameters& calibration, const Topology& topology,
                      ResolvedJob& job) {
  const JobConfig& config = scenario.jobs[job.index];
  if (config.data_parallel != DataParallel::pytorch_ddp && job.rings.ring.size() > 1 && !job.layout) {
    job.negotiation_s = horovod_negotiation_s(job.rings, topology, calibration);
  }
  if (job.nccl) {
    const NcclCommunicator& nccl = *job.nccl;
    const GpuSpec& gpu = *find_gpu(scenario.cluster.host.gpu_model);
    const int device_sms = scenario.virtualization.mode == VirtualizationMode::mig
                               ? find_mig_profile(gpu.id, config.mig_profile)->sm_count
                               : gpu.sm_count;
    job.nccl_channels = nccl_running_channels(nccl);
    const auto& measured = calibration.collective_sm_share;
    job.collective_sm_share =
        measured ? Param<double>{.value = measured->value, .source = Source::measured, .note = measured->provenance}
                 : Param<double>{.value = collective_sm_share(job.nccl_channels, device_sms),
                                 .source = Source::uncalibrated,
                                 .note = std::to_string(job.nccl_channels) +
                                         " NCCL channels, one SM each, no measurement "
                                         "(models/compute/interference.hpp)"};
    // Each byte a rank sends over its channels moves kHbmBytesPerWireByte bytes through its memory.
    job.collective_memory_demand_Bps = collective_memory_demand_Bps(nccl);
    if (job.layout) {
      job.traffic = model_parallel_traffic(config, job.compute, *job.layout);
    } else {
      const std::vector<Layer>& layers = job.compute.workload.layers;
      double gradient_bytes = 0;  // summed as the engine orders the tensors: last layer first
      for (std::size_t l = layers.size(); l-- > 0;) gradient_bytes += layers[l].gradient_bytes();
      for (const auto& [flow, share] : job_flows(config, job.rings)) {
        job.traffic.push_back({flow, share * gradient_bytes});
      }
    }
  }
  for (const auto& [flow, bytes] : job.traffic) {
    for (const Hop& hop : topology.route(flow.src, flow.dst, flow.flow)) {
      job.link_classes.insert(topology.links()[static_cast<std::size_t>(hop.link)].link_class);
    }
  }
}

/// The GPUs whose vGPUs a scheduler time-slices, in vgpu mode: those with several vGPUs, or with one under fixed share
/// with a profile that allows several per GPU (a lone vGPU then still gets only its fraction). Idle jobs hold their
/// vGPUs. Each scheduler switches in `context_switch_s`.
std::vector<SlicedGpu> time_sliced_gpus(const Scenario& scenario, double context_switch_s) {
  std::vector<SlicedGpu> sliced;
  if (scenario.virtualization.mode != VirtualizationMode::vgpu) return sliced;
  std::map<int, std::vector<std::size_t>> jobs_on_gpu;
  for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
    for (int gpu : scenario.jobs[j].gpu_ids) jobs_on_gpu[gpu].push_back(j);
  }
  const SchedulerConfig& config = scenario.virtualization.scheduler;
  for (const auto& [gpu, jobs] : jobs_on_gpu) {
    const VgpuProfile& profile = *find_vgpu_profile(scenario.jobs[jobs.front()].vgpu_profile);
    const bool fixed = config.policy == SchedulerPolicy::fixed_share;
    const int vgpus = static_cast<int>(jobs.size());
    if (vgpus == 1 && !(fixed && profile.max_per_gpu > 1)) continue;  // one vGPU with the whole GPU: nothing to slice
    SlicedGpu gpu_sliced{.gpu = gpu, .setup = {}, .jobs = jobs};
    gpu_sliced.setup.policy = config.policy;
    gpu_sliced.setup.time_slice_s = config.time_slice_s;
    gpu_sliced.setup.context_switch_s = context_switch_s;
    gpu_sliced.setup.slots = fixed ? std::max(profile.max_per_gpu, vgpus) : vgpus;
    for (std::size_t j : jobs) {
      const JobConfig& job = scenario.jobs[j];
      gpu_sliced.setup.vgpu_names.push_back(job.name + (job.idle ? " (idle)" : ""));
    }
    sliced.push_back(std::move(gpu_sliced));
  }
  return sliced;
}

/// The latency of one switch, where traffic between hosts crosses a leaf (on the NIC links) or a spine: the scenario's
/// where it states one, else the default.
std::optional<Param<double>> switch_latency(const FabricConfig& fabric, const std::set<LinkClass>& crossed) {
  if (crossed.count(LinkClass::nic) == 0 && crossed.count(LinkClass::fabric) == 0) return std::nullopt;
  if (fabric.switch_latency_stated) {
    return Param<double>{
        .value = fabric.switch_latency_s, .source = Source::scenario, .note = "cluster.fabric.switch_latency_us"};
  }
  return Param<double>{.value = fabric.switch_latency_s,
                       .source = Source::uncalibrated,
                       .note =
                           "default, the order of the cut-through latency Mellanox Spectrum SN2000-series product "
                           "briefs state; measure your fabric's (models/scenario/scenario.hpp FabricConfig)"};
}

std::vector<std::string> uncalibrated_defaults(const Scenario& scenario, const ResolvedRun& run) {
  std::set<std::string> notes;
  std::map<std::string, std::string> jobs_by_note;  // identical tenants share one note
  for (const ResolvedJob& job : run.jobs) {
    for (const std::string& note : job.compute.resolved.uncalibrated()) {
      std::string& names = jobs_by_note[note];
      names += (names.empty() ? "" : ", ") + scenario.jobs[job.index].name;
    }
  }
  for (const ResolvedJob& job : run.jobs) {
    if (!job.compute.spread.uncalibrated || job.compute.kernels.kernels == 0) continue;
    std::string& names =
        jobs_by_note["step-time spread " + std::to_string(static_cast<int>(std::lround(job.compute.spread.cv * 100))) +
                     "%: " + job.compute.spread.source];
    names += (names.empty() ? "" : ", ") + scenario.jobs[job.index].name;
  }
  for (const auto& [note, names] : jobs_by_note) notes.insert("compute of " + names + ": " + note);
  std::map<int, int> vgpus_on_gpu;
  for (const JobConfig& job : scenario.jobs) {
    for (const int gpu : job.gpu_ids) ++vgpus_on_gpu[gpu];
  }
  const bool lone_vgpu =
      std::any_of(vgpus_on_gpu.begin(), vgpus_on_gpu.end(), [](const auto& gpu) { return gpu.second == 1; });
  if (scenario.virtualization.mode == VirtualizationMode::vgpu && lone_vgpu) {
    // VMware's whole-system figure cannot separate a GPU-side cost from the host side's (the VM's CPU overhead).
    notes.insert(
        "vGPU on a GPU it holds alone: no GPU-side cost (NVIDIA's default best-effort scheduler moves to "
        "another VM only when one has work, vGPU knowledge base; equal and fixed share give a lone "
        "full-framebuffer vGPU the whole GPU, NVIDIA AI Enterprise 5.0 user guide 7); the hypervisor's "
        "memory management of the framebuffer has no published figure and is not costed; measured "
        "whole-system: MLPerf Inference with 3 A100-40C at 94.4-100% of bare metal (VMware performance blog, "
        "Oct 2021)");
  }
  if (run.switch_latency_s && run.switch_latency_s->source == Source::uncalibrated) {
    notes.insert("switch latency " + format_number(run.switch_latency_s->value * 1e6) +
                 " us per leaf or spine switch: " + run.switch_latency_s->note);
  }
  if (run.context_switch_s && run.context_switch_s->source == Source::uncalibrated) {
    notes.insert("vGPU context switch " + format_number(run.context_switch_s->value * 1e6) +
                 " us: " + run.context_switch_s->note);
  }
  for (const ResolvedJob& job : run.jobs) {
    if (!job.negotiation_s || job.negotiation_s->source != Source::uncalibrated || job.negotiation_s->value <= 0) {
      continue;
    }
    notes.insert("Horovod negotiation of " + scenario.jobs[job.index].name + ": " +
                 format_number(job.negotiation_s->value * 1e6) + " us per tick, " + job.negotiation_s->note);
  }
  for (const ResolvedJob& job : run.jobs) {
    if (job.nccl_channels == 0 || job.collective_sm_share->source != Source::uncalibrated) continue;
    notes.insert("collective SM share of " + scenario.jobs[job.index].name + " " +
                 format_number(job.collective_sm_share->value) + ": " + job.collective_sm_share->note);
  }
  for (const ResolvedJob& job : run.jobs) {
    if (!job.nccl || nccl_channel_bandwidth_fraction(*job.nccl) >= 1) continue;
    NcclCommunicator own = *job.nccl;
    own.forced_channels.reset();
    notes.insert("forced NCCL channels of " + scenario.jobs[job.index].name + ": " +
                 std::to_string(nccl_running_channels(*job.nccl)) + " of NCCL's " +
                 std::to_string(nccl_running_channels(own)) + " move " +
                 format_number(nccl_channel_bandwidth_fraction(*job.nccl)) +
                 " of its bandwidth, assumed: no measured sweep (docs/nccl-model.md, \"Channels\")");
  }
  for (const ResolvedJob& job : run.jobs) {
    if (job.collective_memory_demand_Bps <= 0 || scenario.virtualization.mode == VirtualizationMode::mig) continue;
    notes.insert("memory shared by kernels and collectives: " + scenario.jobs[job.index].name + "'s collective asks " +
                 format_number(job.collective_memory_demand_Bps / 1e9) +
                 " GB/s of its GPU's memory (3 bytes per byte sent), split max-min fairly with the kernels: no "
                 "measurement of the split (models/compute/interference.hpp)");
  }
  for (const ClassDefault& entry : run.link_defaults) {
    if (!entry.value.uncalibrated || run.link_classes.count(entry.link_class) == 0) continue;
    notes.insert(std::string(to_string(entry.link_class)) + " links: " + entry.value.source);
  }
  const auto has = [&](EventType type) {
    return std::any_of(scenario.events.begin(), scenario.events.end(),
                       [type](const OperationEvent& event) { return event.type == type; });
  };
  const bool default_storage = std::any_of(run.jobs.begin(), run.jobs.end(), [&](const ResolvedJob& job) {
    const CheckpointConfig& checkpoint = scenario.jobs[job.index].checkpoint;
    return checkpoint.interval_iterations > 0 && !checkpoint.storage_stated;
  });
  for (const std::string& note :
       uncalibrated_operations(scenario.operations, has(EventType::vmotion) || has(EventType::maintenance),
                               has(EventType::host_failure), default_storage)) {
    notes.insert(note);
  }
  if (scenario.simulation.fidelity == Fidelity::analytic && run.jobs.size() > 1 && !run.link_classes.empty()) {
    notes.insert("analytic fidelity: each job's collectives are timed on its own bottleneck; contention between the " +
                 std::to_string(run.jobs.size()) + " jobs on shared links is not modelled (use flow)");
  }
  return {notes.begin(), notes.end()};
}

/// The values a calibration profile supplied to this run, each with where it was measured.
std::vector<std::string> calibrated_values(const Scenario& scenario, const CalibratedParameters& calibration,
                                           const ResolvedRun& run) {
  if (scenario.calibration_profile.empty()) return {};
  std::set<std::string> used;
  for (const ClassDefault& entry : run.link_defaults) {
    const bool measured = entry.value.bandwidth_measured || entry.value.latency_measured;
    if (run.link_classes.count(entry.link_class) > 0 && measured) {
      used.insert(std::string(to_string(entry.link_class)) + " links: " + entry.value.source);
    }
  }
  for (const ResolvedJob& job : run.jobs) {
    for (const std::string& value : job.compute.resolved.calibrated()) used.insert(value);
  }
  if (run.context_switch_s && run.context_switch_s->source == Source::measured) {
    used.insert("vGPU context switch: " + run.context_switch_s->note);
  }
  for (const std::string& mismatch : calibration.mismatches) {
    used.insert("MEASURED ON ANOTHER BOX (calibration_allow_mismatch): " + mismatch);
  }
  for (const ResolvedJob& job : run.jobs) {  // a job with a communicator runs collectives beside its kernels
    if (job.collective_sm_share && job.collective_sm_share->source == Source::measured) {
      used.insert("collective SM share: " + job.collective_sm_share->note);
      break;
    }
  }
  for (const ResolvedJob& job : run.jobs) {
    if (job.negotiation_s && job.negotiation_s->source == Source::measured && job.negotiation_s->value > 0) {
      used.insert("Horovod negotiation: " + job.negotiation_s->note);
      break;
    }
  }
  if (calibration.step_time_cv && scenario.simulation.variability) {
    for (const ResolvedJob& job : run.jobs) {
      if (!scenario.jobs[job.index].step_time_cv) {
        used.insert("step-time spread: " + calibration.step_time_cv->provenance);
        break;
      }
    }
  }
  return {used.begin(), used.end()};
}

}  // namespace

TopologySpec topology_spec(const Scenario& scenario, const ScenarioLinks& links) {
  const ClusterConfig& cluster = scenario.cluster;
  const GpuSpec* gpu = find_gpu(cluster.host.gpu_model);
  assert(gpu != nullptr && find_nic(cluster.host.nic_model) != nullptr && "a validated scenario");
  TopologySpec spec{
      .mode = scenario.virtualization.mode,
      .nvlink_usable = cluster.host.nvlink_present && cluster.host.nvlink_enabled,
      .nvlink_layout = NvlinkLayout::none,
      .gpus_per_host = cluster.host.gpus,
      .hosts_per_rack = cluster.hosts_per_rack,
      .racks = cluster.racks,
      .nics_per_host = cluster.host.nics,
      // Adaptive routing joins each leaf's uplinks into one (models/catalog/link_defaults.cpp uplink_default): one
      // path up.
      .spines = cluster.racks > 1 ? (cluster.fabric.adaptive_routing ? 1 : cluster.fabric.spines) : 0,
      .rails = cluster.fabric.rail_optimized ? std::max(1, cluster.host.nics) : 1,
      .pxn = transport_spec(cluster.transport).gpudirect_rdma,
      .pcie_switch_gpus = cluster.host.pcie_switch_gpus,
      .seed = scenario.simulation.seed,
      .switch_latency_s = cluster.fabric.switch_latency_s,
      .nvlink = links.nvlink,
      .pcie = links.pcie,
      .host_memory = links.host_memory,
      .nic = links.nic,
      .uplink = links.uplink,
      .tcp_stacks = {},
      .whole_gpu_jobs = std::vector<std::vector<int>>(static_cast<std::size_t>(cluster.total_gpus()))};
  if (spec.nvlink_usable) spec.nvlink_layout = vtsim::nvlink_layout(*gpu, cluster.host.gpus);
  for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
    const VgpuProfile* profile = find_vgpu_profile(scenario.jobs[j].vgpu_profile);
    if (profile == nullptr || profile->max_per_gpu != 1) continue;
    for (int id : scenario.jobs[j].gpu_ids) {
      spec.whole_gpu_jobs[static_cast<std::size_t>(id)].push_back(static_cast<int>(j));
    }
  }
  // Per GPU, its rank's share of the VM's TCP stack: the VM is the GPU's job's ranks on its host (the first job
  // listing the GPU; a GPU no job uses counts as in a VM of the whole host); on bare metal, the job's part of the
  // host's cores.
  const TransportSpec& transport = transport_spec(cluster.transport);
  if (transport.stack_core_Bps <= 0 || cluster.host.nics == 0 || cluster.total_hosts() < 2) return spec;
  const int gpus = cluster.host.gpus;
  // Per GPU, the ranks of its VM and their cores; 0 where no job lists the GPU.
  std::vector<std::pair<int, int>> vm(static_cast<std::size_t>(cluster.total_gpus()), {0, 0});
  for (const JobConfig& job : scenario.jobs) {
    std::map<int, std::pair<int, int>> on_host;  // host -> (the job's ranks there, their cores)
    for (const auto& [host, ranks] : ranks_per_host(job, gpus)) {
      on_host[host] = {ranks, job_cpu_cores(scenario, job, host).cores};
    }
    for (int g : job.gpu_ids) {
      std::pair<int, int>& entry = vm[static_cast<std::size_t>(g)];
      if (entry.first == 0) entry = on_host[g / gpus];
    }
  }
  for (const auto& [listed, cores] : vm) {
    spec.tcp_stacks.push_back(listed > 0 ? tcp_stack_default(scenario, cores, listed)
                                         : tcp_stack_default(scenario, whole_host_cpu_cores(scenario), gpus));
  }
  return spec;
}

Topology scenario_topology(const Scenario& scenario, const CalibratedParameters& calibration,
                           const P2pRuleTable& rules) {
  return Topology(topology_spec(scenario, scenario_links(scenario, calibration)), rules);
}

NcclDevice nccl_device(const Scenario& scenario) {
  const GpuSpec& gpu = *find_gpu(scenario.cluster.host.gpu_model);
  return {.compute_capability = gpu.compute_capability,
          .nvlink_links = gpu.nvlink_links,
          .gpudirect_rdma = transport_spec(scenario.cluster.transport).gpudirect_rdma};
}

JobRings job_rings(const Scenario& scenario, std::size_t index, const Topology& topology) {
  const JobConfig& job = scenario.jobs[index];
  JobRings rings = group_rings(job.gpu_ids, scenario.cluster.host.nics, topology);
  if (job.horovod.allreduce != AllreduceAlgorithm::hierarchical) return rings;
  if (const std::string uneven = uneven_hosts(rings, topology); !uneven.empty()) {
    throw InputError(scenario.file + ": jobs[" + std::to_string(index) +
                     "].horovod.allreduce: 'hierarchical' needs the same number of the job's GPUs on every host; " +
                     uneven);
  }
  return hierarchical_rings(std::move(rings), topology);
}

NcclCommunicator job_nccl_communicator(const Scenario& scenario, std::size_t index, const NcclDevice& device,
                                       const JobRings& rings, const Topology& topology) {
  const JobConfig& job = scenario.jobs.at(index);
  NcclCommunicator comm = nccl_communicator(device, rings, topology);
  comm.forced_algorithm = job.nccl_algorithm;
  comm.forced_protocol = job.nccl_protocol;
  comm.forced_channels = job.nccl_channels;
  comm.collnet = job.nccl_collnet;
  if (comm.ranks < 2) return comm;
  for (NcclCollective collective :
       {NcclCollective::all_reduce, NcclCollective::all_gather, NcclCollective::reduce_scatter,
        NcclCollective::broadcast, NcclCollective::reduce}) {
    const std::string problem = nccl_forced_problem(comm, collective);
    if (!problem.empty()) {
      throw InputError(scenario.file + ": jobs[" + std::to_string(index) + "].nccl: " + problem);
    }
  }
  return comm;
}

ResolvedCollective resolve_collective(const Scenario& scenario, const CalibratedParameters& calibration,
                                      const std::vector<int>& gpus) {
  assert(gpus.size() >= 2);
  Scenario tested = scenario;
  JobConfig job = scenario.jobs.front();
  job.gpu_ids = gpus;
  job.idle = false;
  job.horovod.allreduce = AllreduceAlgorithm::ring;
  tested.jobs = {job};
  Topology topology = scenario_topology(tested, calibration);
  JobRings rings = job_rings(tested, 0, topology);
  NcclCommunicator nccl = job_nccl_communicator(tested, 0, nccl_device(tested), rings, topology);
  return {.topology = std::move(topology),
          .job = std::move(job),
          .rings = std::move(rings),
          .nccl = nccl,
          .fidelity = scenario.simulation.fidelity,
          .reduce_flows = scenario.simulation.reduce_flows};
}

std::vector<SourcedValue> sourced_values(const Scenario& scenario, const ResolvedRun& run) {
  std::vector<SourcedValue> values;
  const GpuSpec& gpu = *find_gpu(scenario.cluster.host.gpu_model);
  values.push_back({.what = "GPU", .value = gpu.name, .source = Source::published, .note = gpu.source});
  if (run.topology.has_nics()) {
    const NicSpec& nic = *find_nic(scenario.cluster.host.nic_model);
    values.push_back({.what = "NIC", .value = nic.name, .source = Source::published, .note = nic.source});
  }
  for (const ClassDefault& entry : run.link_defaults) {
    if (run.link_classes.count(entry.link_class) == 0) continue;
    // Measured when the profile measured both figures; a partly measured link takes the rest's source (its note
    // says which figure was measured).
    const bool stated = (entry.link_class == LinkClass::tcp_stack && scenario.virtualization.tcp_core_Bps) ||
                        (entry.link_class == LinkClass::fabric && scenario.cluster.fabric.uplink_stated);
    const Source source = entry.value.bandwidth_measured && entry.value.latency_measured ? Source::measured
                          : entry.value.uncalibrated                                     ? Source::uncalibrated
                          : stated                                                       ? Source::scenario
                                                                                         : Source::published;
    values.push_back({.what = std::string(to_string(entry.link_class)) + " links",
                      .value = format_number(entry.value.bandwidth_Bps / 1e9) + " GB/s per direction, " +
                               format_number(entry.value.latency_s * 1e6) + " us",
                      .source = source,
                      .note = entry.value.source});
  }
  if (run.switch_latency_s) {
    values.push_back({.what = "switch latency",
                      .value = format_number(run.switch_latency_s->value * 1e6) + " us per leaf or spine switch",
                      .source = run.switch_latency_s->source,
                      .note = run.switch_latency_s->note});
  }
  if (run.context_switch_s) {
    values.push_back({.what = "vGPU context switch",
                      .value = format_number(run.context_switch_s->value * 1e6) + " us",
                      .source = run.context_switch_s->source,
                      .note = run.context_switch_s->note});
  }
  for (const ResolvedJob& job : run.jobs) {
    const JobConfig& config = scenario.jobs[job.index];
    const std::string of = " of " + config.name;
    values.push_back({.what = "device" + of,
                      .value = job.compute.device_name,
                      .source = Source::published,
                      .note = "the catalog's GPU, vGPU or MIG profile (vtsim catalog)"});
    if (job.compute.kernels.kernels > 0) {
      const StepTimeSpread& spread = job.compute.spread;
      values.push_back({.what = "step-time spread" + of,
                        .value = format_number(spread.cv * 100) + "%",
                        .source = spread.uncalibrated                                       ? Source::uncalibrated
                                  : !scenario.simulation.variability || config.step_time_cv ? Source::scenario
                                                                                            : Source::measured,
                        .note = spread.source});
    }
    if (job.nccl) {
      values.push_back({.what = "NCCL channels" + of,
                        .value = std::to_string(job.nccl_channels),
                        .source = config.nccl_channels ? Source::scenario : Source::published,
                        .note = config.nccl_channels
                                    ? "nccl.channels"
                                    : "NCCL's own count (models/collectives/nccl_tuning.hpp, from NCCL's source)"});
      values.push_back({.what = "collective SM share" + of,
                        .value = format_number(job.collective_sm_share->value),
                        .source = job.collective_sm_share->source,
                        .note = job.collective_sm_share->note});
    }
    if (job.negotiation_s) {
      values.push_back({.what = "Horovod negotiation" + of,
                        .value = format_number(job.negotiation_s->value * 1e6) + " us per tick",
                        .source = job.negotiation_s->source,
                        .note = job.negotiation_s->source == Source::measured
                                    ? "2 ceil(log2 N) messages at the measured cost of one: " + job.negotiation_s->note
                                    : job.negotiation_s->note});
    }
  }
  return values;
}

ResolvedRun resolve(const Scenario& scenario, const CalibrationProfile* profile) {
  return resolve(scenario, scenario_calibration(scenario, profile));
}

ResolvedRun resolve(const Scenario& scenario, const CalibratedParameters& calibration) {
  std::vector<ResolvedJob> jobs = plan_computes(scenario, calibration);
  // The links' figures, made once: the topology's and the lists' alike.
  const ScenarioLinks links = scenario_links(scenario, calibration);
  ResolvedRun run{.name = scenario.name,
                  .calibration_profile = scenario.calibration_profile,
                  .simulation = scenario.simulation,
                  .scenario_jobs = scenario.jobs.size(),
                  .gpus_per_host = scenario.cluster.host.gpus,
                  .events = scenario.events,
                  .operations = scenario.operations,
                  .topology = Topology(topology_spec(scenario, links)),
                  .jobs = {},
                  .cross_rack_ports = {},
                  .sliced_gpus = {},
                  .context_switch_s = std::nullopt,
                  .switch_latency_s = std::nullopt,
                  .ranks_per_gpu = {},
                  .gpu_memory_Bps = 0,
                  .memory_can_bind = false,
                  .vmotion_rate_Bps = 0,
                  .migration_Bps = 0,
                  .flows_between_gpus = true,
                  .link_classes = {},
                  .link_defaults = link_defaults_for(scenario, links),
                  .uncalibrated = {},
                  .calibrated = {}};
  run.cross_rack_ports = plan_communication(scenario, run.topology, jobs);
  run.jobs = std::move(jobs);
  for (ResolvedJob& job : run.jobs) {
    plan_collectives(scenario, calibration, run.topology, job);
    run.link_classes.insert(job.link_classes.begin(), job.link_classes.end());
  }
  // The cost of one switch between vGPUs, decided once: the schedulers run it, and the run reports it where a GPU is
  // time-sliced.
  const Param<double> switch_s = context_switch(scenario.virtualization.scheduler, calibration);
  run.sliced_gpus = time_sliced_gpus(scenario, switch_s.value);
  if (!run.sliced_gpus.empty()) run.context_switch_s = switch_s;
  run.switch_latency_s = switch_latency(scenario.cluster.fabric, run.link_classes);
  // Kernels and collectives share each GPU's memory (models/compute/interference.hpp), at its achievable bandwidth: the
  // datasheet's times the memory efficiency the compute model uses. A MIG instance has memory slices of its own,
  // which one link per GPU cannot stand for: not modelled there.
  for (const ResolvedJob& job : run.jobs) {
    for (int g : job.rings.ring) ++run.ranks_per_gpu[g];
    if (scenario.virtualization.mode == VirtualizationMode::mig) continue;
    run.gpu_memory_Bps = std::max(run.gpu_memory_Bps, job.compute.device.memory_bandwidth_Bps *
                                                          job.compute.resolved.parameters.memory_efficiency);
  }
  // The memory links only ever narrow a collective whose demand exceeds half the memory (max-min meets a smaller one
  // in full); without such a job they would only slow the simulation down, so the platform goes without them.
  for (const ResolvedJob& job : run.jobs) {
    if (job.nccl) run.memory_can_bind |= collective_memory_demand_Bps(*job.nccl) > run.gpu_memory_Bps / 2;
  }
  // vMotion's pre-copies leave through the hosts' NICs for a spare host, over TCP (vMotion's streams); a stun moves
  // the framebuffer over the host's vMotion NIC (all hosts alike: the cluster's NIC model). Before vSphere 7.0 U2 its
  // streams' peak may be below the NIC's (OperationsConfig::vmotion_vmknics): a measured throughput, taken as is.
  const double line_rate_Bps = find_nic(scenario.cluster.host.nic_model)->line_rate_Bps;
  run.vmotion_rate_Bps = vmotion_rate_Bps(scenario.operations, line_rate_Bps);
  run.migration_Bps =
      std::min(line_rate_Bps * transport_spec(Transport::tcp).bandwidth_efficiency, run.vmotion_rate_Bps);
  // Analytic collectives take their times from the topology; only pipeline transfers (model parallelism) are flows
  // between GPUs there, so without them the platform needs no routes between GPUs.
  run.flows_between_gpus =
      scenario.simulation.fidelity != Fidelity::analytic ||
      std::any_of(run.jobs.begin(), run.jobs.end(), [](const ResolvedJob& job) { return job.layout.has_value(); });
  run.uncalibrated = uncalibrated_defaults(scenario, run);
  run.calibrated = calibrated_values(scenario, calibration, run);
  return run;
}

}  // namespace vtsim
