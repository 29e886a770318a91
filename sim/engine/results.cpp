#include "sim/engine/results.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

#include "models/core/units.hpp"

namespace vtsim::sim {
namespace {

// A text value, or JSON null where it is empty (not given).
nlohmann::json text_or_null(const std::string& text) { return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text); }

double nearest_rank(const std::vector<double>& sorted, double quantile) {
  const auto rank = static_cast<std::size_t>(std::ceil(quantile * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

nlohmann::json memory_json(const MemoryFootprint& memory, double capacity_bytes) {
  const double gib = units::kBytesPerGiB;
  return {{"weights_gib", memory.weights_bytes / gib},         {"gradients_gib", memory.gradients_bytes / gib},
          {"optimizer_gib", memory.optimizer_bytes / gib},     {"activations_gib", memory.activations_bytes / gib},
          {"workspace_gib", memory.workspace_bytes / gib},     {"total_gib", memory.total_bytes() / gib},
          {"device_capacity_gib", capacity_bytes / gib}};
}

// Device time per class of kernel, ms per micro-batch and optimizer step, with the kernels (launches) of each;
// classes without kernels (and an iteration read from a trace, which has none) left out.
nlohmann::json device_time_json(const std::array<ClassTime, kKernelClasses>& by_class) {
  nlohmann::json json = nlohmann::json::object();
  for (std::size_t i = 0; i < by_class.size(); ++i) {
    if (by_class[i].kernels == 0) continue;
    json[std::string(to_string(static_cast<KernelClass>(i)))] = {{"ms", by_class[i].gpu_s * 1e3},
                                                                  {"kernels", by_class[i].kernels}};
  }
  return json;
}

}  // namespace

StepStatistics step_statistics(std::vector<double> samples) {
  assert(!samples.empty());
  std::sort(samples.begin(), samples.end());
  StepStatistics stats;
  stats.mean_s = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(samples.size());
  stats.p50_s = nearest_rank(samples, 0.50);
  stats.p99_s = nearest_rank(samples, 0.99);
  return stats;
}

nlohmann::json to_json(const SimulationResult& result) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const JobResult& job : result.jobs) {
    nlohmann::json parallel;  // null for plain data parallelism
    if (job.parallel) {
      const ParallelResult& p = *job.parallel;
      const ParallelStrategy& s = p.strategy;
      parallel = {{"strategy", describe(s)},
                  {"tensor", s.tensor},
                  {"pipeline", s.pipeline},
                  {"data", s.data},
                  {"zero_stage", s.zero_stage},
                  {"micro_batch_size", s.micro_batch_size},
                  {"micro_batches", s.micro_batches},
                  {"virtual_stages", s.virtual_stages},
                  {"schedule", std::string(to_string(s.schedule))},
                  {"recompute", std::string(to_string(s.recompute))},
                  {"sequence_parallel", s.sequence_parallel},
                  {"global_batch", p.global_batch},
                  {"bubble_fraction_closed_form", p.bubble_fraction_closed_form},
                  {"model_tflops_per_gpu", p.model_tflops_per_gpu},
                  {"hardware_tflops_per_gpu", p.hardware_tflops_per_gpu},
                  {"model_flops_utilization", p.model_flops_utilization},
                  {"hardware_flops_utilization", p.hardware_flops_utilization},
                  {"data_parallel_sent_bytes_per_step", p.data_parallel_sent_bytes},
                  {"communication_s",
                   {{"tensor_parallel", p.tensor_parallel_s},
                    {"pipeline_wait", p.pipeline_wait_s},
                    {"data_parallel_wait", p.data_parallel_wait_s}}}};
    }
    jobs.push_back({
        {"name", job.name},
        {"workload", job.workload},
        {"precision", job.precision},
        {"device", job.device},
        {"ranks", job.ranks},
        {"simulated_ranks", job.not_reduced.empty() ? nlohmann::json{{"ranks", job.simulated_ranks},
                                                                     {"communication_actors", job.communication_actors}}
                                                    : nlohmann::json{{"ranks", job.simulated_ranks},
                                                                     {"communication_actors", job.communication_actors},
                                                                     {"not_reduced", job.not_reduced}}},
        {"batch_per_gpu", job.batch_per_gpu},
        {"step_time_s", {{"mean", job.step.mean_s}, {"p50", job.step.p50_s}, {"p99", job.step.p99_s}}},
        {"step_times_s", job.step_times_s},
        {"samples_per_s", job.samples_per_s},
        {"single_gpu", {{"step_time_s", job.single_gpu_step_s}, {"samples_per_s", job.single_gpu_samples_per_s}}},
        {"scaling_efficiency", job.scaling_efficiency},
        {"scaling_efficiency_standard_error", job.scaling_efficiency_standard_error},
        {"speedup_over_one_gpu", job.speedup_over_one_gpu},
        {"scaling_reference",
         {{"description", job.single_gpu_reference},
          {"gpus", 1},
          {"step_time_s", job.single_gpu_step_s},
          {"samples_per_s", job.single_gpu_samples_per_s}}},
        {"breakdown_s",
         {{"compute", job.compute_s},
          {"of_which_interference", job.interference_s},
          {"scheduler_wait", job.scheduler_wait_s},
          {"data_wait", job.data_wait_s},
          {"straggler_wait", job.straggler_wait_s},
          {"exposed_communication", job.exposed_communication_s}}},
        {"compute_spread", {{"step_time_cv", job.step_time_cv}}},
        {"allreduce",
         {{"bytes_per_step", job.allreduce_bytes_per_step},
          {"calls_per_step", job.allreduces_per_step},
          {"nccl_choices_per_step", job.nccl_choices_per_step},
          {"nccl_forced",
           {{"algorithm", text_or_null(job.nccl_forced_algorithm)},
            {"protocol", text_or_null(job.nccl_forced_protocol)},
            {"channels", job.nccl_forced_channels > 0 ? nlohmann::json(job.nccl_forced_channels) : nlohmann::json()},
            {"collnet", job.nccl_collnet}}}}},
        {"memory_per_gpu", memory_json(job.memory, job.device_memory_bytes)},
        {"compute_model",
         {{"gemm_efficiency", job.compute_parameters.gemm_efficiency},
          {"convolution_efficiency", job.compute_parameters.convolution_efficiency},
          {"memory_efficiency", job.compute_parameters.memory_efficiency},
          {"kernel_fixed_us", job.compute_parameters.kernel_fixed_s * 1e6},
          {"host_dispatch_us", job.compute_parameters.host_dispatch_s * 1e6},
          {"data_loading_ms", job.compute_parameters.data_loading_s * 1e3},
          {"kernels_per_step", job.kernels_per_step},
          {"gpu_busy_fraction_alone", job.gpu_busy_fraction_alone},
          {"device_ms_by_class", device_time_json(job.device_time_by_class)},
          {"sources", job.compute_sources}}},
        {"operations",
         {{"time_to_train_s", job.operations.time_to_train_s},
          {"time_to_train_without_events_s", job.operations.time_to_train_without_events_s},
          {"checkpoints", job.operations.checkpoints},
          {"checkpoint_write_s", job.operations.checkpoint_write_s},
          {"lost_iterations", job.operations.lost_iterations},
          {"iterations_run", job.operations.iterations_run}}},
        {"parallelism", parallel},
    });
  }
  nlohmann::json events = nlohmann::json::array();
  for (const EventResult& event : result.events) {
    nlohmann::json costs = nlohmann::json::array();
    for (const EventCost& cost : event.jobs) {
      nlohmann::json entry = {{"job", cost.job}, {"cost_s", cost.cost_s}, {"completed", cost.completed}};
      if (event.type == "host_failure") {
        entry["extended_earlier_restart"] = cost.extended;
        entry["checkpoint_end_s"] = cost.checkpoint_end_s;
        entry["lost_since_s"] = cost.lost_since_s;
        entry["resumed_s"] = cost.resumed_s;
        entry["lost_iterations"] = cost.lost_iterations;
      } else {
        entry["precopy_s"] = cost.precopy_s;
        entry["precopy_gib"] = cost.precopy_bytes / units::kBytesPerGiB;
        entry["precopy_slowdown_s"] = cost.precopy_slowdown_s;
        entry["framebuffer_gib"] = cost.framebuffer_bytes / units::kBytesPerGiB;
        entry["stun_s"] = cost.stun_s;
        entry["over_stun_limit"] = cost.over_stun_limit;
      }
      costs.push_back(entry);
    }
    events.push_back({{"type", event.type}, {"host", event.host}, {"reached", event.reached}, {"at_s", event.at_s},
                      {"jobs", costs}});
  }
  nlohmann::json links = nlohmann::json::array();
  for (const LinkClassResult& link : result.link_classes) {
    links.push_back({{"class", link.link_class},
                     {"links_used", link.links},
                     {"bytes_per_s", link.bytes_per_s},
                     {"busiest_utilisation", link.busiest_utilisation}});
  }
  nlohmann::json gpus = nlohmann::json::array();
  for (const GpuResult& gpu : result.gpus) {
    gpus.push_back({{"gpu", gpu.gpu},
                    {"vgpus", gpu.vgpus},
                    {"busy_fraction", gpu.busy_fraction},
                    {"switch_time_s", gpu.switch_time_s},
                    {"switches", gpu.switches}});
  }
  return {{"scenario", result.scenario},
          {"fidelity", result.fidelity},
          {"simulated_time_s", result.simulated_time_s},
          {"communications", result.communications},
          {"transfers_alone", result.transfers_alone},
          {"jobs", jobs},
          {"link_classes", links},
          {"time_sliced_gpus", gpus},
          {"events", events},
          {"uncalibrated_defaults", result.uncalibrated},
          {"calibration", {{"profile", result.calibration_profile}, {"values", result.calibrated}}}};
}

}  // namespace vtsim::sim
