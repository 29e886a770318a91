#include "models/scenario/scenario_writer.hpp"

#include "models/core/units.hpp"

namespace vtsim {
namespace {

nlohmann::json host_to_json(const HostConfig& host) {
  nlohmann::json json = {{"gpus", host.gpus},
                         {"gpu_model", host.gpu_model},
                         {"nvlink", {{"present", host.nvlink_present}, {"enabled", host.nvlink_enabled}}},
                         {"pcie_gen", host.pcie_gen},
                         {"pcie_switch_gpus", host.pcie_switch_gpus},
                         {"nics", host.nics},
                         {"nic_model", host.nic_model}};
  if (!host.model.empty()) json["model"] = host.model;
  if (host.cpu_cores) json["cpu_cores"] = *host.cpu_cores;
  return json;
}

nlohmann::json cluster_to_json(const ClusterConfig& cluster) {
  nlohmann::json json = {
      {"racks", cluster.racks},
      {"hosts_per_rack", cluster.hosts_per_rack},
      {"host", host_to_json(cluster.host)},
      {"transport", std::string(to_string(cluster.transport))},
      {"fabric",
       // Two of the three tied figures (models/scenario/scenario.hpp FabricConfig); the oversubscription follows from
       // them. An uplink at the NIC's line rate is the default, and stays one: the spines alone give the same fabric.
       {{"spines", cluster.fabric.spines},
        {"adaptive_routing", cluster.fabric.adaptive_routing},
        {"rail_optimized", cluster.fabric.rail_optimized}}},
  };
  if (cluster.fabric.uplink_stated) {
    json["fabric"]["uplink_gbps"] = cluster.fabric.uplink_bandwidth_Bps / units::kBytesPerSecondPerGbps;
  }
  if (cluster.fabric.switch_latency_stated) {  // the default stays one, reported as uncalibrated
    json["fabric"]["switch_latency_us"] = cluster.fabric.switch_latency_s / units::kSecondsPerUs;
  }
  return json;
}

nlohmann::json virtualization_to_json(const VirtualizationConfig& virtualization) {
  nlohmann::json json = {
      {"mode", std::string(to_string(virtualization.mode))},
      {"scheduler",
       {{"policy", std::string(to_string(virtualization.scheduler.policy))},
        {"time_slice_ms", virtualization.scheduler.time_slice_s / units::kSecondsPerMs}}},
  };
  // Only a stated switch: the default stays the profile's measurement, else 100 us reported as uncalibrated.
  if (virtualization.scheduler.context_switch_stated) {
    json["scheduler"]["context_switch_us"] = virtualization.scheduler.context_switch_s / units::kSecondsPerUs;
  }
  if (virtualization.mode != VirtualizationMode::bare_metal) json["vm_cpu_cores"] = virtualization.vm_cpu_cores;
  if (virtualization.vm_cpu_overhead) json["vm_cpu_overhead"] = *virtualization.vm_cpu_overhead;
  if (virtualization.tcp_core_Bps) {
    json["tcp_gbps_per_core"] = *virtualization.tcp_core_Bps / units::kBytesPerSecondPerGbps;
  }
  if (!virtualization.vgpu_profile.empty()) json["vgpu_profile"] = virtualization.vgpu_profile;
  if (virtualization.mode == VirtualizationMode::vgpu) json["mixed_sizes"] = virtualization.mixed_sizes;
  if (!virtualization.mig_profile.empty()) json["mig_profile"] = virtualization.mig_profile;
  return json;
}

nlohmann::json job_to_json(const JobConfig& job) {
  nlohmann::json json = {{"name", job.name}};
  if (job.idle) {
    json["idle"] = true;
    json["gpus"] = job.gpu_ids;
    if (!job.vgpu_profile.empty()) json["vgpu_profile"] = job.vgpu_profile;
    if (!job.mig_profile.empty()) json["mig_profile"] = job.mig_profile;
    return json;
  }
  if (job.trace) {
    json["workload"] = {{"trace", job.trace->path}, {"measured_on", job.trace->measured_on}, {"step", job.trace->step}};
  } else if (job.transformer) {
    const TransformerConfig& t = *job.transformer;
    nlohmann::json transformer = {{"layers", t.layers},
                                  {"hidden_size", t.hidden_size},
                                  {"heads", t.heads},
                                  {"sequence_length", t.sequence_length},
                                  {"vocab_size", t.vocab_size}};
    if (t.ffn_size > 0) transformer["ffn_size"] = t.ffn_size;
    if (t.fused_attention) transformer["attention"] = "fused";
    if (t.fused_softmax && !t.fused_attention) transformer["attention"] = "fused_softmax";
    if (t.kv_heads > 0) transformer["kv_heads"] = t.kv_heads;
    if (t.swiglu) transformer["mlp"] = "swiglu";
    if (!t.learned_positions) transformer["positions"] = "rotary";
    if (!t.tied_embeddings) transformer["tied_embeddings"] = false;
    if (!t.bias) transformer["bias"] = false;
    if (!t.dropout) transformer["dropout"] = false;
    json["workload"] = {{"transformer", transformer}};
  } else {
    json["workload"] = job.workload_id;
  }
  json["precision"] = std::string(to_string(job.precision));
  json["framework"] = std::string(to_string(job.framework));
  if (job.execution != Execution::eager) json["execution"] = std::string(to_string(job.execution));
  if (job.memory_format) json["memory_format"] = std::string(to_string(*job.memory_format));
  if (job.optimizer) json["optimizer"] = std::string(to_string(*job.optimizer));
  if (job.optimizer_implementation) {
    json["optimizer_implementation"] = std::string(to_string(*job.optimizer_implementation));
  }
  if (job.host_dispatch_s) json["host_dispatch_us"] = *job.host_dispatch_s / units::kSecondsPerUs;
  if (job.data_loader != DataLoader::cpu) json["data_loader"] = std::string(to_string(job.data_loader));
  if (job.data_loader_images_per_s) json["data_loader_images_per_s"] = *job.data_loader_images_per_s;
  if (job.data_loading_cpu_s_per_sample) {
    json["data_loading_cpu_ms_per_sample"] = *job.data_loading_cpu_s_per_sample / units::kSecondsPerMs;
  }
  json["batch_per_gpu"] = job.batch_per_gpu;
  json["gpus"] = job.gpu_ids;
  json["iterations"] = job.iterations;
  json["warmup_iterations"] = job.warmup_iterations;
  json["data_parallel"] = std::string(to_string(job.data_parallel));
  if (job.data_parallel == DataParallel::horovod) {
    json["horovod"] = {{"fusion_threshold_mib", job.horovod.fusion_threshold_bytes / units::kBytesPerMiB},
                       {"cycle_time_ms", job.horovod.cycle_time_s / units::kSecondsPerMs},
                       {"allreduce", std::string(to_string(job.horovod.allreduce))}};
  } else {
    json["ddp"] = {{"bucket_cap_mb", job.ddp.bucket_cap_bytes / units::kBytesPerMiB},
                   {"first_bucket_mb", job.ddp.first_bucket_bytes / units::kBytesPerMiB}};
  }
  if (job.nccl_algorithm || job.nccl_protocol || job.nccl_channels) {
    json["nccl"] = nlohmann::json::object();
    if (job.nccl_algorithm) json["nccl"]["algorithm"] = std::string(to_string(*job.nccl_algorithm));
    if (job.nccl_protocol) json["nccl"]["protocol"] = std::string(to_string(*job.nccl_protocol));
    if (job.nccl_channels) json["nccl"]["channels"] = *job.nccl_channels;
  }
  if (job.parallelism) {
    const ParallelStrategy& strategy = *job.parallelism;
    json["parallelism"] = {{"tensor", strategy.tensor},
                           {"pipeline", strategy.pipeline},
                           {"zero_stage", strategy.zero_stage},
                           {"micro_batch_size", strategy.micro_batch_size},
                           {"schedule", std::string(to_string(strategy.schedule))},
                           {"virtual_stages", strategy.virtual_stages},
                           {"recompute", std::string(to_string(strategy.recompute))},
                           {"sequence_parallel", strategy.sequence_parallel}};
    if (!strategy.stage_layers.empty()) json["parallelism"]["stage_layers"] = strategy.stage_layers;
    if (!strategy.scatter_gather) json["parallelism"]["scatter_gather"] = false;
  } else {
    json["gradient_accumulation"] = job.gradient_accumulation;
  }
  if (job.step_time_cv) json["step_time_cv"] = *job.step_time_cv;
  if (job.checkpoint.interval_iterations > 0) {
    json["checkpoint"] = {{"interval_iterations", job.checkpoint.interval_iterations}};
    if (job.checkpoint.storage_stated) {  // the default stays one, reported as uncalibrated
      json["checkpoint"]["storage_bandwidth_gbps"] = job.checkpoint.storage_Bps / units::kBytesPerSecondPerGbps;
    }
    if (job.checkpoint.size_bytes) json["checkpoint"]["size_gb"] = *job.checkpoint.size_bytes / 1e9;
  }
  if (!job.vgpu_profile.empty()) json["vgpu_profile"] = job.vgpu_profile;
  if (!job.mig_profile.empty()) json["mig_profile"] = job.mig_profile;
  return json;
}

}  // namespace

nlohmann::json scenario_to_json(const Scenario& scenario) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const JobConfig& job : scenario.jobs) jobs.push_back(job_to_json(job));
  nlohmann::json json = {
      {"name", scenario.name},
      {"description", scenario.description},
      {"cluster", cluster_to_json(scenario.cluster)},
      {"virtualization", virtualization_to_json(scenario.virtualization)},
      {"jobs", jobs},
      {"simulation",
       {{"fidelity", std::string(to_string(scenario.simulation.fidelity))},
        {"seed", scenario.simulation.seed},
        {"seeds", scenario.simulation.seeds},
        {"variability", scenario.simulation.variability},
        {"gpu_speed_cv", scenario.simulation.gpu_speed_cv},
        {"reduce_ranks", scenario.simulation.reduce_ranks},
        {"reduce_flows", scenario.simulation.reduce_flows},
        {"stalls",
         {{"per_iteration_probability", scenario.simulation.stalls.probability},
          {"duration_ms", scenario.simulation.stalls.duration_s / units::kSecondsPerMs}}}}},
  };
  if (!scenario.calibration_profile.empty()) json["calibration_profile"] = scenario.calibration_profile;
  if (scenario.calibration_allow_mismatch) json["calibration_allow_mismatch"] = true;
  const OperationsConfig& operations = scenario.operations;
  // The uncalibrated defaults are written only when stated, so that they stay defaults (and reported so) when read.
  json["operations"] = {{"stun_fixed_s", operations.stun_fixed_s},
                        {"stun_limit_s", operations.stun_limit_s},
                        {"ha_detection_s", operations.ha_detection_s}};
  if (operations.stun_s_per_framebuffer_gib) {
    json["operations"]["stun_s_per_framebuffer_gib"] = *operations.stun_s_per_framebuffer_gib;
  }
  if (operations.vm_memory_stated) {
    json["operations"]["vm_memory_gib"] = operations.vm_memory_bytes / units::kBytesPerGiB;
  }
  if (operations.vmotion_vmknics) json["operations"]["vmotion_vmknics"] = *operations.vmotion_vmknics;
  if (operations.vm_boot_stated) json["operations"]["vm_boot_s"] = operations.vm_boot_s;
  if (operations.job_restart_stated) json["operations"]["job_restart_s"] = operations.job_restart_s;
  if (!scenario.events.empty()) {
    nlohmann::json events = nlohmann::json::array();
    for (const OperationEvent& event : scenario.events) {
      nlohmann::json entry = {{"type", std::string(to_string(event.type))}, {"host", event.host}};
      if (event.at_s) entry["at_s"] = *event.at_s;
      if (event.at_iteration) entry["at_iteration"] = *event.at_iteration;
      if (event.job >= 0) entry["job"] = scenario.jobs[static_cast<std::size_t>(event.job)].name;
      events.push_back(entry);
    }
    json["events"] = events;
  }
  return json;
}

}  // namespace vtsim
