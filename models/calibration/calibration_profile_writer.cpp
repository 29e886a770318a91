// Writing a calibration profile as JSON: the inverse of calibration_profile.cpp's reader. Optional values that are
// absent are left out, so that reading the result gives back an equal profile.

#include <fstream>

#include "models/calibration/calibration_profile.hpp"

#include "models/core/atomic_file.hpp"
#include "models/core/error.hpp"

namespace vtsim {
namespace {

using nlohmann::json;

void put_string(json& object, const char* key, const std::string& value) {
  if (!value.empty()) object[key] = value;
}

void put_optional(json& object, const char* key, const std::optional<double>& value) {
  if (value) object[key] = *value;
}

json provenance_json(const Provenance& provenance) {
  json object = {{"tool", provenance.tool}};
  put_string(object, "device", provenance.device);
  put_string(object, "driver", provenance.driver);
  put_string(object, "date", provenance.date);
  put_string(object, "host", provenance.host);
  put_string(object, "notes", provenance.notes);
  return object;
}

json gpu_json(const GpuSection& gpu) {
  json object = {{"provenance", provenance_json(gpu.provenance)}, {"name", gpu.name}};
  put_string(object, "catalog_gpu", gpu.catalog_gpu);
  if (!gpu.gemm.empty()) {
    json& gemm = object["gemm"] = json::array();
    for (const GemmMeasurement& point : gpu.gemm) {
      gemm.push_back({{"precision", std::string(to_string(point.precision))},
                      {"m", point.m}, {"n", point.n}, {"k", point.k}, {"tflops", point.tflops}});
    }
  }
  put_optional(object, "memory_bandwidth_gBps", gpu.memory_bandwidth_gBps);
  put_optional(object, "h2d_gBps", gpu.h2d_gBps);
  put_optional(object, "d2h_gBps", gpu.d2h_gBps);
  if (!gpu.p2p.empty()) {
    json& p2p = object["p2p"] = json::array();
    for (const P2pMeasurement& pair : gpu.p2p) {
      json entry = {{"src", pair.src}, {"dst", pair.dst}, {"bandwidth_gBps", pair.bandwidth_gBps}};
      put_optional(entry, "latency_us", pair.latency_us);
      p2p.push_back(std::move(entry));
    }
  }
  put_optional(object, "kernel_launch_us", gpu.kernel_launch_us);
  put_optional(object, "context_switch_us", gpu.context_switch_us);
  put_optional(object, "collective_sm_share", gpu.collective_sm_share);
  return object;
}

json collective_json(const CollectiveSeries& series) {
  json object = {{"provenance", provenance_json(series.provenance)}, {"op", series.op}, {"ranks", series.ranks}};
  if (series.hosts) object["hosts"] = *series.hosts;
  if (!series.gpus.empty()) object["gpus"] = series.gpus;
  json& points = object["points"] = json::array();
  for (const CollectivePoint& point : series.points) {
    json entry = {{"bytes", point.bytes}, {"time_us", point.time_us}, {"algbw_gBps", point.algbw_gBps},
                  {"busbw_gBps", point.busbw_gBps}};
    put_optional(entry, "in_place_time_us", point.in_place_time_us);
    points.push_back(std::move(entry));
  }
  return object;
}

json rdma_json(const RdmaSeries& series) {
  json object = {{"provenance", provenance_json(series.provenance)}, {"transport", series.transport},
                 {"op", series.op}, {"test", series.test}};
  json& points = object["points"] = json::array();
  for (const RdmaPoint& point : series.points) {
    json entry = {{"bytes", point.bytes}};
    put_optional(entry, "latency_us", point.latency_us);
    put_optional(entry, "bandwidth_gBps", point.bandwidth_gBps);
    points.push_back(std::move(entry));
  }
  return object;
}

json topology_json(const TopologySection& topology) {
  json object = {{"provenance", provenance_json(topology.provenance)}};
  json& devices = object["devices"] = json::array();
  for (const TopologyDevice& device : topology.devices) {
    json entry = {{"name", device.name}};
    put_string(entry, "cpu_affinity", device.cpu_affinity);
    put_string(entry, "numa_affinity", device.numa_affinity);
    put_string(entry, "nic_name", device.nic_name);
    devices.push_back(std::move(entry));
  }
  json& links = object["links"] = json::array();
  for (const TopologyLink& link : topology.links) {
    links.push_back({{"a", link.a}, {"b", link.b}, {"connection", link.connection}});
  }
  return object;
}

json mig_json(const MigSection& mig) {
  json object = {{"provenance", provenance_json(mig.provenance)}};
  json& profiles = object["profiles"] = json::array();
  for (const MigProfileRow& row : mig.profiles) {
    profiles.push_back({{"gpu", row.gpu}, {"name", row.name}, {"id", row.id},
                        {"instances_free", row.instances_free}, {"instances_total", row.instances_total},
                        {"memory_gib", row.memory_gib}, {"p2p", row.p2p}, {"sms", row.sms}, {"dec", row.dec},
                        {"enc", row.enc}, {"ce", row.ce}, {"jpeg", row.jpeg}, {"ofa", row.ofa}});
  }
  return object;
}

json fits_json(const FitsSection& fits) {
  json object = {{"provenance", provenance_json(fits.provenance)}};
  json& list = object["alpha_beta"] = json::array();
  for (const AlphaBetaFit& fit : fits.alpha_beta) {
    json entry = {{"subject", fit.subject}, {"alpha_us", fit.alpha_us}, {"beta_gBps", fit.beta_gBps},
                  {"residual", fit.residual}, {"points", fit.points}};
    put_string(entry, "link_class", fit.link_class);
    put_string(entry, "transport", fit.transport);
    if (!fit.segments.empty()) {
      json& segments = entry["segments"] = json::array();
      for (const FitSegment& segment : fit.segments) {
        segments.push_back({{"from_bytes", segment.from_bytes}, {"alpha_us", segment.alpha_us},
                            {"beta_gBps", segment.beta_gBps}, {"residual", segment.residual},
                            {"points", segment.points}});
      }
    }
    list.push_back(std::move(entry));
  }
  return object;
}

json gemm_efficiency_json(const GemmEfficiencySection& section) {
  json object = {{"provenance", provenance_json(section.provenance)}};
  json& curves = object["curves"] = json::array();
  for (const GemmEfficiencyCurve& curve : section.curves) {
    json entry = {{"precision", std::string(to_string(curve.precision))},
                  {"asymptotic_tflops", curve.asymptotic_tflops}, {"half_rate_gflop", curve.half_rate_gflop},
                  {"residual", curve.residual}, {"points", curve.points}};
    put_optional(entry, "catalog_peak_tflops", curve.catalog_peak_tflops);
    put_optional(entry, "max_efficiency", curve.max_efficiency);
    curves.push_back(std::move(entry));
  }
  return object;
}

}  // namespace

nlohmann::json calibration_profile_json(const CalibrationProfile& profile) {
  json document = {{"format", std::string(kCalibrationProfileFormat)}, {"version", kCalibrationProfileVersion}};
  if (profile.gpu) document["gpu"] = gpu_json(*profile.gpu);
  if (!profile.collectives.empty()) {
    json& list = document["collectives"] = json::array();
    for (const CollectiveSeries& series : profile.collectives) list.push_back(collective_json(series));
  }
  if (!profile.rdma.empty()) {
    json& list = document["rdma"] = json::array();
    for (const RdmaSeries& series : profile.rdma) list.push_back(rdma_json(series));
  }
  if (profile.topology) document["topology"] = topology_json(*profile.topology);
  if (profile.mig_profiles) document["mig_profiles"] = mig_json(*profile.mig_profiles);
  if (profile.fits) document["fits"] = fits_json(*profile.fits);
  if (profile.gemm_efficiency) document["gemm_efficiency"] = gemm_efficiency_json(*profile.gemm_efficiency);
  if (!profile.step_times.empty()) {
    json& list = document["step_times"] = json::array();
    for (const StepTimeSeries& series : profile.step_times) {
      list.push_back({{"provenance", provenance_json(series.provenance)},
                      {"log_format", series.log_format},
                      {"field", series.field},
                      {"times_s", series.times_s}});
    }
  }
  if (!profile.horovod_timelines.empty()) {
    json& list = document["horovod_timelines"] = json::array();
    for (const HorovodTimelineSeries& series : profile.horovod_timelines) {
      json entry = {{"provenance", provenance_json(series.provenance)},
                    {"ranks", series.ranks},
                    {"negotiation_us", series.negotiation_us}};
      if (!series.cycle_ms.empty()) entry["cycle_ms"] = series.cycle_ms;
      entry["response_tensors"] = series.response_tensors;
      entry["response_bytes"] = series.response_bytes;
      list.push_back(std::move(entry));
    }
  }
  if (profile.host) {
    const HostSection& host = *profile.host;
    json& entry = document["host"] = {{"provenance", provenance_json(host.provenance)}};
    if (!host.cpu_model.empty()) entry["cpu_model"] = host.cpu_model;
    entry["framework"] = std::string(to_string(host.framework));
    if (!host.framework_version.empty()) entry["framework_version"] = host.framework_version;
    entry["eager_us_per_launch"] = host.eager_us_per_launch;
    entry["eager_launches"] = host.eager_launches;
    if (host.graph_us_per_node) entry["graph_us_per_node"] = *host.graph_us_per_node;
    if (host.launch_call_us) {
      entry["launch_call_us"] = *host.launch_call_us;
      entry["launch_calls"] = host.launch_calls;
    }
  }
  return document;
}

std::string checked_calibration_profile_text(const CalibrationProfile& profile, const std::string& file) {
  const nlohmann::json document = calibration_profile_json(profile);
  // What an importer or a fit produced must be what the loader reads: a value outside the loader's bounds (an
  // in-place time of 0, a bandwidth of 1e308) would leave a profile no command can use.
  try {
    parse_calibration_profile(document, file);
  } catch (const InputError& error) {
    throw InputError(std::string(error.what()) + " (not written: the profile would not load)");
  }
  return document.dump(2) + "\n";
}

void save_calibration_profile(const CalibrationProfile& profile, const std::string& file) {
  write_file_atomically(file, checked_calibration_profile_text(profile, file));
}

}  // namespace vtsim
