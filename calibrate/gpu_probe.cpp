#include "calibrate/gpu_probe.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "calibrate/probe_support.hpp"
#include "calibrate/topology_importer.hpp"
#include "models/catalog/gpu_name_match.hpp"
#include "models/core/units.hpp"

namespace vtsim::calibrate {
namespace {

using units::kBytesPerSecondPerGBps;
using units::kSecondsPerUs;

double element_bytes(Precision precision) {
  return precision == Precision::fp16 || precision == Precision::bf16 ? 2 : 4;
}

// Time of one operation: the median batch over its size.
double per_operation_s(const std::vector<double>& batches_s, int batch) {
  if (batches_s.empty()) throw ProbeFailed("a timing returned no batches");
  return median(batches_s) / batch;
}

std::string device_summary(const std::vector<GpuDeviceInfo>& devices) {
  std::set<std::string> names;
  for (const GpuDeviceInfo& device : devices) names.insert(device.name);
  if (names.size() == 1) {
    return devices.size() == 1 ? devices.front().name : std::to_string(devices.size()) + "x " + devices.front().name;
  }
  std::string text;
  for (const GpuDeviceInfo& device : devices) text += (text.empty() ? "" : ", ") + device.name;
  return text;
}

void measure_gemms(GpuBackend& backend, const GpuDeviceInfo& device, const GpuProbeOptions& options,
                   GpuProbeResult& result) {
  for (Precision precision : options.precisions) {
    if (!supports(device.compute_major, precision)) {
      result.notes.push_back("gemm " + std::string(to_string(precision)) + ": not supported by compute capability " +
                             std::to_string(device.compute_major) + "." + std::to_string(device.compute_minor));
      continue;
    }
    for (std::int64_t n : options.gemm_sizes) {
      const double bytes = 3.0 * static_cast<double>(n) * static_cast<double>(n) * element_bytes(precision);
      if (bytes > device.memory_bytes / 2) {
        result.notes.push_back("gemm " + std::string(to_string(precision)) + " n=" + std::to_string(n) +
                               ": skipped, needs more than half the device memory");
        continue;
      }
      const double time_s = per_operation_s(
          backend.time_gemms(device.index, precision, n, options.gemm_batch, options.repetitions), options.gemm_batch);
      const double flop = 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
      result.gpu.gemm.push_back({precision, n, n, n, flop / time_s / units::kFlopsPerTflops});
    }
  }
}

void measure_copies(GpuBackend& backend, const std::vector<GpuDeviceInfo>& devices, const GpuProbeOptions& options,
                    GpuProbeResult& result) {
  const int first = devices.front().index;
  const double bytes = static_cast<double>(options.copy_bytes);
  const auto copy_s = [&](CopyKind kind, int device, int peer, std::int64_t size, int batch) {
    return per_operation_s(backend.time_copies(kind, device, peer, size, batch, options.repetitions), batch);
  };
  const auto large_copy_gBps = [&](CopyKind kind, int device, int peer) {
    return bytes / copy_s(kind, device, peer, options.copy_bytes, options.copy_batch) / kBytesPerSecondPerGBps;
  };
  result.gpu.memory_bandwidth_gBps = 2 * large_copy_gBps(CopyKind::device_to_device, first, first);  // read + write
  result.gpu.h2d_gBps = large_copy_gBps(CopyKind::host_to_device, first, first);
  result.gpu.d2h_gBps = large_copy_gBps(CopyKind::device_to_host, first, first);
  for (const GpuDeviceInfo& src : devices) {
    for (const GpuDeviceInfo& dst : devices) {
      if (src.index == dst.index) continue;
      P2pMeasurement pair;
      pair.src = src.index;
      pair.dst = dst.index;
      pair.bandwidth_gBps = large_copy_gBps(CopyKind::peer, src.index, dst.index);
      const double latency_s =
          copy_s(CopyKind::peer, src.index, dst.index, options.small_copy_bytes, options.small_copy_batch);
      pair.latency_us = latency_s / kSecondsPerUs;
      result.gpu.p2p.push_back(pair);
    }
  }
}

void measure_sharing(GpuBackend& backend, const GpuProbeOptions& options, GpuProbeResult& result) {
  double fp32_flops = 0;
  for (const GemmMeasurement& gemm : result.gpu.gemm) {
    if (gemm.precision == Precision::fp32) fp32_flops = std::max(fp32_flops, units::tflops_to_flops(gemm.tflops));
  }
  if (fp32_flops <= 0) {
    result.notes.push_back("context switch: not measured, it needs the fp32 GEMM throughput to size its kernels");
    return;
  }
  SharingPlan plan = plan_sharing(fp32_flops, options.sharing_kernel_s, options.sharing_loop_s);
  const std::optional<SharingSample> sample = backend.share_gpu(plan);
  if (!sample) {
    result.notes.push_back("context switch: not measured, two processes could not share the GPU here");
    return;
  }
  const std::optional<double> cost = context_switch_s(*sample);
  if (!cost) {
    result.notes.push_back("context switch: not measured, the two processes did not interrupt each other "
                           "(MPS, or a GPU that runs both at once)");
    return;
  }
  result.gpu.context_switch_us = *cost / kSecondsPerUs;
}

}  // namespace

bool supports(int compute_major, Precision precision) {
  if (precision == Precision::tf32 || precision == Precision::bf16) return compute_major >= 8;
  return true;
}

SharingPlan plan_sharing(double fp32_flops, double kernel_s, double loop_s) {
  SharingPlan plan;
  const double n = std::cbrt(kernel_s * fp32_flops / 2);
  plan.n = std::clamp<std::int64_t>(std::llround(n / 256) * 256, 256, 8192);
  const double size = static_cast<double>(plan.n);
  const double one_kernel_s = 2 * size * size * size / fp32_flops;
  plan.kernels = std::max(10, static_cast<int>(std::ceil(loop_s / one_kernel_s)));
  return plan;
}

std::optional<double> context_switch_s(const SharingSample& sample) {
  if (sample.alone.intervals_s.empty() || sample.together.size() != 2) return std::nullopt;
  const double alone_interval_s = median(sample.alone.intervals_s);
  const double alone_s = sample.alone.end_s - sample.alone.start_s;
  double start_s = sample.together.front().start_s;
  double end_s = sample.together.front().end_s;
  int interruptions = 0;
  const auto interrupted = [&](double interval_s) { return interval_s > 1.5 * alone_interval_s; };
  for (const SharingProcess& process : sample.together) {
    start_s = std::min(start_s, process.start_s);
    end_s = std::max(end_s, process.end_s);
    interruptions +=
        static_cast<int>(std::count_if(process.intervals_s.begin(), process.intervals_s.end(), interrupted));
  }
  const double extra_s = (end_s - start_s) - 2 * alone_s;
  if (interruptions == 0 || extra_s <= 0) return std::nullopt;
  return extra_s / interruptions;
}

GpuProbeResult probe_gpu(GpuBackend& backend, const GpuProbeOptions& options) {
  const std::vector<GpuDeviceInfo> devices = backend.devices();
  if (devices.empty()) throw DeviceNotFound("no CUDA device found");
  GpuProbeResult result;
  const GpuDeviceInfo& first = devices.front();
  result.gpu.provenance = probe_provenance("vtsim calibrate probe gpu", device_summary(devices),
                                           backend.driver_version());
  result.gpu.name = first.name;
  result.gpu.catalog_gpu = catalog_gpu_for(first.name);
  if (result.gpu.catalog_gpu.empty()) {
    result.notes.push_back("catalog_gpu: no catalog GPU matches '" + first.name + "': set gpu.catalog_gpu by hand "
                           "for GEMM efficiency against the datasheet peak");
  }
  measure_gemms(backend, first, options, result);
  measure_copies(backend, devices, options, result);
  result.gpu.kernel_launch_us =
      per_operation_s(backend.time_launches(first.index, options.launch_batch, options.repetitions),
                      options.launch_batch) / kSecondsPerUs;
  if (options.sharing) measure_sharing(backend, options, result);
  const std::string topology = backend.topology_text();
  if (!topology.empty()) {
    try {
      result.topology = import_topology(topology, "nvidia-smi topo -m");
      result.topology->provenance = result.gpu.provenance;
      result.topology->provenance.tool = "nvidia-smi topo -m (run by vtsim calibrate probe gpu)";
    } catch (const InputError& error) {
      result.notes.push_back(std::string("topology: not recorded: ") + error.what());
    }
  } else {
    result.notes.push_back("topology: nvidia-smi not found: import `nvidia-smi topo -m` output to classify P2P pairs");
  }
  return result;
}

}  // namespace vtsim::calibrate
