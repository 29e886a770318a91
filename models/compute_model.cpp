#include "models/compute_model.hpp"

#include <algorithm>
#include <cassert>
#include <optional>

namespace vtsim {
namespace {

// Memory is split in eighths among MIG instances (NVIDIA MIG user guide, "Supported MIG Profiles").
constexpr double kMigMemorySlices = 8.0;

bool is_mixed_precision(Precision precision) {
  return precision == Precision::fp16 || precision == Precision::bf16;
}

// Bytes of one weight as a kernel reads it: AMP runs forward and backward on the 16-bit copy of the weights.
double weight_bytes(Precision precision) { return is_mixed_precision(precision) ? 2.0 : 4.0; }

double peak_or_die(const GpuSpec& gpu, Precision precision) {
  const std::optional<double> peak = gpu.peak_flops(precision);
  assert(peak.has_value() && "REQUIRES: the GPU supports the precision");
  return peak.value_or(0.0);
}

std::string describe(const GpuSpec& gpu, Precision precision) {
  return gpu.name + ", " + std::string(to_string(precision));
}

// Roofline of one kernel on the device at the given efficiencies.
class Roofline {
 public:
  Roofline(const DeviceCompute& device, const ComputeEfficiency& efficiency)
      : flops_(device.peak_flops * efficiency.flop_efficiency),
        bandwidth_Bps_(device.memory_bandwidth_Bps * efficiency.memory_efficiency) {}

  /// Seconds for a kernel of `flop` flop that moves `bytes` bytes.
  double time_s(double flop, double bytes) const { return std::max(flop / flops_, bytes / bandwidth_Bps_); }
  /// Seconds for a purely memory-bound pass over `bytes` bytes.
  double memory_time_s(double bytes) const { return bytes / bandwidth_Bps_; }

 private:
  double flops_;
  double bandwidth_Bps_;
};

}  // namespace

DeviceCompute whole_gpu(const GpuSpec& gpu, Precision precision, double memory_bytes) {
  return {.description = describe(gpu, precision),
          .peak_flops = peak_or_die(gpu, precision),
          .memory_bandwidth_Bps = gpu.memory_bandwidth_Bps,
          .memory_bytes = memory_bytes};
}

DeviceCompute mig_instance(const GpuSpec& gpu, const MigProfile& profile, Precision precision) {
  assert(profile.gpu_id == gpu.id && gpu.mig_sm_count > 0 && gpu.sm_count > 0);
  // With MIG on, only mig_sm_count SMs are usable (A100: 98 of 108, MIG user guide `-lgip` 7g.40gb); an instance
  // gets its own SMs' share of those. Bandwidth follows the memory slices.
  const double mig_gpu_peak = peak_or_die(gpu, precision) * gpu.mig_sm_count / gpu.sm_count;
  return {.description = describe(gpu, precision) + ", MIG " + profile.id,
          .peak_flops = mig_gpu_peak * profile.sm_count / gpu.mig_sm_count,
          .memory_bandwidth_Bps = gpu.memory_bandwidth_Bps * profile.memory_slices / kMigMemorySlices,
          .memory_bytes = profile.memory_bytes};
}

double KernelTimes::total_s() const {
  double total = optimizer_s;
  for (double t : forward_s) total += t;
  for (double t : backward_s) total += t;
  return total;
}

// One optimizer step reads and writes, per trainable parameter (fp32 state, as Apex's fused multi-tensor optimizers
// and torch.optim keep it; one fused pass, so each tensor is read once and written once):
//   SGD with momentum: read param 4 + grad 4 + momentum 4, write param 4 + momentum 4              = 20 B
//   Adam (and LAMB):   read param 4 + grad 4 + m 4 + v 4,   write param 4 + m 4 + v 4              = 28 B
//   under AMP both also write the 16-bit copy of the updated weights the next forward reads:      +  2 B
// LAMB's extra pass for the per-layer trust ratio (norms of weights and update) is not counted.
double optimizer_bytes_per_parameter(Optimizer optimizer, Precision precision) {
  const double fp32_pass = optimizer == Optimizer::adam ? 28.0 : 20.0;
  return fp32_pass + (is_mixed_precision(precision) ? 2.0 : 0.0);
}

KernelTimes kernel_times(const Workload& workload, int batch, Precision precision, const DeviceCompute& device,
                         const ComputeEfficiency& efficiency) {
  assert(batch >= 1);
  assert(efficiency.flop_efficiency > 0.0 && efficiency.flop_efficiency <= 1.0);
  assert(efficiency.memory_efficiency > 0.0 && efficiency.memory_efficiency <= 1.0);
  const Roofline roofline(device, efficiency);
  const double samples = batch;
  KernelTimes times;
  times.forward_s.reserve(workload.layers.size());
  times.backward_s.reserve(workload.layers.size());
  for (const Layer& layer : workload.layers) {
    const double forward_bytes = samples * layer.activation_elements * activation_bytes(precision) +
                                 layer.parameters * weight_bytes(precision);
    times.forward_s.push_back(roofline.time_s(samples * layer.forward_flop, forward_bytes));
    // Backward reads what forward read plus the output gradient and writes the input and weight gradients: 2x.
    times.backward_s.push_back(
        layer.backward_flop > 0.0 ? roofline.time_s(samples * layer.backward_flop, 2.0 * forward_bytes) : 0.0);
  }
  times.optimizer_s = roofline.memory_time_s(workload.trainable_parameters() *
                                             optimizer_bytes_per_parameter(workload.optimizer, precision));
  return times;
}

double modelled_samples_per_s(const Workload& workload, const ThroughputPoint& point, const DeviceCompute& device,
                              const ComputeEfficiency& efficiency) {
  assert(point.accumulation_steps >= 1);
  const KernelTimes times = kernel_times(workload, point.batch, point.precision, device, efficiency);
  // With gradient accumulation, one optimizer step serves accumulation_steps micro-batches.
  const double micro_batch_s = times.total_s() - times.optimizer_s + times.optimizer_s / point.accumulation_steps;
  return point.batch / micro_batch_s;
}

double calibrate_flop_efficiency(const Workload& workload, const ThroughputPoint& point, const DeviceCompute& device,
                                 double memory_efficiency) {
  assert(point.samples_per_s > 0.0);
  const auto samples_per_s = [&](double flop_efficiency) {
    ComputeEfficiency efficiency;
    efficiency.flop_efficiency = flop_efficiency;
    efficiency.memory_efficiency = memory_efficiency;
    return modelled_samples_per_s(workload, point, device, efficiency);
  };
  if (samples_per_s(1.0) <= point.samples_per_s) return 1.0;  // unreachable (or exactly reached) at full peak
  // Throughput rises monotonically with the flop efficiency: find a lower bound that is too slow, then bisect.
  double low = 0.5;
  while (samples_per_s(low) > point.samples_per_s && low > 1e-12) low /= 2.0;
  double high = 1.0;
  for (int i = 0; i < 200 && high - low > 1e-15; ++i) {
    const double middle = 0.5 * (low + high);
    if (samples_per_s(middle) > point.samples_per_s) {
      high = middle;
    } else {
      low = middle;
    }
  }
  return high;
}

}  // namespace vtsim
