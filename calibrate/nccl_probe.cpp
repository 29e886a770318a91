#include "calibrate/nccl_probe.hpp"

#include <algorithm>
#include <set>

#include "calibrate/collective_bandwidth.hpp"
#include "calibrate/probe_support.hpp"
#include "models/core/units.hpp"

namespace vtsim::calibrate {

double collective_sm_share(const InterferenceSample& sample) {
  if (sample.alone_s.empty() || sample.beside_allreduce_s.empty()) throw ProbeFailed("interference: no timings");
  return std::clamp(1 - median(sample.alone_s) / median(sample.beside_allreduce_s), 0.0, 0.99);
}

NcclProbeResult probe_nccl(NcclBackend& backend, const NcclProbeOptions& options) {
  const std::vector<GpuDeviceInfo> devices = backend.devices();
  if (devices.empty()) throw DeviceNotFound("no CUDA device found");
  NcclProbeResult result;
  CollectiveSeries& series = result.series;
  std::set<std::string> names;
  for (const GpuDeviceInfo& device : devices) {
    names.insert(device.name);
    series.gpus.push_back(device.index);
  }
  std::string device_text;
  for (const std::string& name : names) device_text += (device_text.empty() ? "" : ", ") + name;
  series.provenance = probe_provenance("vtsim calibrate probe nccl", std::to_string(devices.size()) + "x " +
                                       device_text, backend.versions());
  series.provenance.notes = "out-of-place float sum allreduce, " + std::to_string(options.iterations) +
                            " per timing, median of " + std::to_string(options.repetitions);
  series.op = "all_reduce";
  series.ranks = static_cast<int>(devices.size());
  series.hosts = 1;
  const double factor = bus_factor(series.op, series.ranks);
  for (std::int64_t bytes : powers_of_two(options.min_bytes, options.max_bytes)) {
    const std::vector<double> batches = backend.time_allreduce(bytes, options.iterations, options.repetitions);
    if (batches.empty()) throw ProbeFailed("allreduce: no timings");
    const double time_s = median(batches) / options.iterations;
    CollectivePoint point;
    point.bytes = bytes;
    point.time_us = time_s / units::kSecondsPerUs;
    point.algbw_gBps = static_cast<double>(bytes) / time_s / units::kBytesPerSecondPerGBps;
    point.busbw_gBps = point.algbw_gBps * factor;
    series.points.push_back(point);
  }
  if (options.interference && devices.size() >= 2) {
    result.collective_sm_share = collective_sm_share(backend.time_gemm_beside_allreduce(
        options.interference_gemm_n, options.interference_bytes, options.interference_batch, options.repetitions));
  } else if (options.interference) {
    result.notes.push_back("collective_sm_share: not measured, it needs two GPUs or more");
  }
  return result;
}

}  // namespace vtsim::calibrate
