#include "models/calibration/calibration_profile.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "models/core/json_reader.hpp"

// The strict reader of calibration profiles. Every object is read key by key through JsonObject, so an unknown or
// misspelt key is an error naming the nearest valid one; every number states its range.

namespace vtsim {
namespace {

constexpr std::int64_t kMaxInt = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kMaxBytes = std::int64_t{1} << 50;  // 1 PiB: bounds typos, not hardware

// Physical bounds of what a profile may hold, wide enough for any device these tools measure and narrow enough that a
// unit slip or a corrupted value (1e-310 GB/s, 1e308 us) is refused before it reaches SimGrid, where a vanishing rate
// never ends a transfer and a huge latency never ends a run (issue 11, item 6).
// Bandwidths: 1 MB/s (far below any PCIe, NVLink, HBM or NIC path) to 100 TB/s (20x an H200's 4.8 TB/s HBM, the
// fastest catalogued memory, models/catalog/gpu_catalog.cpp).
constexpr double kMinBandwidth_gBps = 1e-3;
constexpr double kMaxBandwidth_gBps = 1e5;
// Latencies and per-call times: 1 ns to 1,000 s (a nccl-tests call of 1 TiB at 1 GB/s).
constexpr double kMinTime_us = 1e-3;
constexpr double kMaxTime_us = 1e9;
// Throughput: 1 GFLOP/s to 10 PFLOP/s (an H200's dense fp16 is 989 TFLOP/s, FP8 with sparsity ~4 PFLOP/s).
constexpr double kMinTflops = 1e-3;
constexpr double kMaxTflops = 1e4;
// A GEMM curve's efficiency over the catalog peak: up to 2.25, the most Winograd's fewer multiplies can show
// (models/compute/compute_model.hpp ComputeParameters).
constexpr double kMaxEfficiency = 2.25;
constexpr double kMinEfficiency = 1e-3;
// Memory: 1 MiB to 100 TiB.
constexpr double kMinMemory_gib = 1.0 / 1024;
constexpr double kMaxMemory_gib = 1e5;
// A step of a training log: 1 us to one day.
constexpr double kMaxStep_s = 86400;

double bandwidth_gBps(const JsonValue& value) { return value.as_number(kMinBandwidth_gBps, kMaxBandwidth_gBps); }
double time_us(const JsonValue& value) { return value.as_number(kMinTime_us, kMaxTime_us); }
double tflops(const JsonValue& value) { return value.as_number(kMinTflops, kMaxTflops); }

std::optional<double> optional_bandwidth(JsonObject& object, std::string_view key) {
  const std::optional<JsonValue> value = object.get(key);
  if (!value) return std::nullopt;
  return bandwidth_gBps(*value);
}

std::optional<double> optional_time(JsonObject& object, std::string_view key) {
  const std::optional<JsonValue> value = object.get(key);
  if (!value) return std::nullopt;
  return time_us(*value);
}

std::string optional_string(JsonObject& object, std::string_view key) {
  const std::optional<JsonValue> value = object.get(key);
  return value ? value->as_string() : std::string();
}

int read_int(const JsonValue& value, std::int64_t min, std::int64_t max = kMaxInt) {
  return static_cast<int>(value.as_int(min, max));
}

Precision read_precision(const JsonValue& value) {
  std::vector<std::string> names;
  for (Precision precision : kAllPrecisions) names.emplace_back(to_string(precision));
  return *parse_precision(value.as_choice(names));
}

template <typename Element, typename Reader>
std::vector<Element> read_list(const JsonValue& value, Reader read) {
  std::vector<Element> elements;
  for (const JsonValue& element : value.as_array()) elements.push_back(read(element));
  return elements;
}

Provenance read_provenance(const JsonValue& value) {
  JsonObject object = value.as_object();
  Provenance provenance;
  provenance.tool = object.require("tool").as_string();
  provenance.device = optional_string(object, "device");
  provenance.driver = optional_string(object, "driver");
  provenance.date = optional_string(object, "date");
  provenance.host = optional_string(object, "host");
  provenance.notes = optional_string(object, "notes");
  object.finish();
  return provenance;
}

// ---- gpu ----------------------------------------------------------------------------------------------------------

GemmMeasurement read_gemm(const JsonValue& value) {
  JsonObject object = value.as_object();
  GemmMeasurement gemm;
  gemm.precision = read_precision(object.require("precision"));
  gemm.m = object.require("m").as_int(1);
  gemm.n = object.require("n").as_int(1);
  gemm.k = object.require("k").as_int(1);
  gemm.tflops = tflops(object.require("tflops"));
  object.finish();
  return gemm;
}

P2pMeasurement read_p2p(const JsonValue& value) {
  JsonObject object = value.as_object();
  P2pMeasurement p2p;
  p2p.src = read_int(object.require("src"), 0);
  p2p.dst = read_int(object.require("dst"), 0);
  p2p.bandwidth_gBps = bandwidth_gBps(object.require("bandwidth_gBps"));
  p2p.latency_us = optional_time(object, "latency_us");
  object.finish();
  if (p2p.src == p2p.dst) value.fail("src and dst are the same GPU (" + std::to_string(p2p.src) + ")");
  return p2p;
}

GpuSection read_gpu(const JsonValue& value) {
  JsonObject object = value.as_object();
  GpuSection gpu;
  gpu.provenance = read_provenance(object.require("provenance"));
  gpu.name = object.require("name").as_string();
  gpu.catalog_gpu = optional_string(object, "catalog_gpu");
  if (auto gemm = object.get("gemm")) gpu.gemm = read_list<GemmMeasurement>(*gemm, read_gemm);
  gpu.memory_bandwidth_gBps = optional_bandwidth(object, "memory_bandwidth_gBps");
  gpu.h2d_gBps = optional_bandwidth(object, "h2d_gBps");
  gpu.d2h_gBps = optional_bandwidth(object, "d2h_gBps");
  if (auto p2p = object.get("p2p")) gpu.p2p = read_list<P2pMeasurement>(*p2p, read_p2p);
  gpu.kernel_launch_us = optional_time(object, "kernel_launch_us");
  gpu.context_switch_us = optional_time(object, "context_switch_us");
  if (auto share = object.get("collective_sm_share")) gpu.collective_sm_share = share->as_number(0, 0.999);
  object.finish();
  return gpu;
}

// ---- collectives and rdma -------------------------------------------------------------------------------------------

CollectivePoint read_collective_point(const JsonValue& value) {
  JsonObject object = value.as_object();
  CollectivePoint point;
  point.bytes = object.require("bytes").as_int(1, kMaxBytes);
  point.time_us = time_us(object.require("time_us"));
  point.algbw_gBps = object.require("algbw_gBps").as_number(0, kMaxBandwidth_gBps);
  point.busbw_gBps = object.require("busbw_gBps").as_number(0, kMaxBandwidth_gBps);
  point.in_place_time_us = optional_time(object, "in_place_time_us");
  object.finish();
  return point;
}

CollectiveSeries read_collective(const JsonValue& value) {
  JsonObject object = value.as_object();
  CollectiveSeries series;
  series.provenance = read_provenance(object.require("provenance"));
  series.op = object.require("op").as_string();
  series.ranks = read_int(object.require("ranks"), 1);
  if (auto hosts = object.get("hosts")) series.hosts = read_int(*hosts, 1);
  if (auto gpus = object.get("gpus")) {
    series.gpus = read_list<int>(*gpus, [](const JsonValue& gpu) { return read_int(gpu, 0); });
    if (static_cast<int>(series.gpus.size()) != series.ranks) {
      gpus->fail("expected one GPU per rank (" + std::to_string(series.ranks) + "), got " +
                 std::to_string(series.gpus.size()));
    }
  }
  series.points = read_list<CollectivePoint>(object.require("points"), read_collective_point);
  object.finish();
  return series;
}

RdmaPoint read_rdma_point(const JsonValue& value) {
  JsonObject object = value.as_object();
  RdmaPoint point;
  point.bytes = object.require("bytes").as_int(1, kMaxBytes);
  point.latency_us = optional_time(object, "latency_us");
  point.bandwidth_gBps = optional_bandwidth(object, "bandwidth_gBps");
  object.finish();
  if (!point.latency_us && !point.bandwidth_gBps) value.fail("expected 'latency_us' or 'bandwidth_gBps'");
  return point;
}

RdmaSeries read_rdma(const JsonValue& value) {
  static const std::vector<std::string> kOps = {"write", "send", "read"};
  static const std::vector<std::string> kTests = {"latency", "bandwidth"};
  JsonObject object = value.as_object();
  RdmaSeries series;
  series.provenance = read_provenance(object.require("provenance"));
  series.transport = object.require("transport").as_choice(rdma_transport_names());
  series.op = object.require("op").as_choice(kOps);
  series.test = object.require("test").as_choice(kTests);
  series.points = read_list<RdmaPoint>(object.require("points"), read_rdma_point);
  object.finish();
  return series;
}

// ---- topology and MIG -----------------------------------------------------------------------------------------------

TopologyDevice read_topology_device(const JsonValue& value) {
  JsonObject object = value.as_object();
  TopologyDevice device;
  device.name = object.require("name").as_string();
  device.cpu_affinity = optional_string(object, "cpu_affinity");
  device.numa_affinity = optional_string(object, "numa_affinity");
  device.nic_name = optional_string(object, "nic_name");
  object.finish();
  return device;
}

TopologyLink read_topology_link(const JsonValue& value) {
  JsonObject object = value.as_object();
  TopologyLink link;
  link.a = object.require("a").as_string();
  link.b = object.require("b").as_string();
  const JsonValue connection = object.require("connection");
  link.connection = connection.as_string();
  object.finish();
  if (!is_topology_connection(link.connection) || link.connection == "X") {
    connection.fail("expected NV#, PIX, PXB, PHB, NODE or SYS, got '" + link.connection + "'");
  }
  return link;
}

TopologySection read_topology(const JsonValue& value) {
  JsonObject object = value.as_object();
  TopologySection topology;
  topology.provenance = read_provenance(object.require("provenance"));
  const JsonValue devices = object.require("devices");
  topology.devices = read_list<TopologyDevice>(devices, read_topology_device);
  const JsonValue links = object.require("links");
  topology.links = read_list<TopologyLink>(links, read_topology_link);
  object.finish();
  const auto known = [&](const std::string& name) {
    return std::any_of(topology.devices.begin(), topology.devices.end(),
                       [&](const TopologyDevice& device) { return device.name == name; });
  };
  const std::vector<JsonValue> link_values = links.as_array();
  for (std::size_t i = 0; i < topology.links.size(); ++i) {
    for (const std::string& end : {topology.links[i].a, topology.links[i].b}) {
      if (!known(end)) link_values[i].fail("'" + end + "' is not one of the devices");
    }
  }
  return topology;
}

MigProfileRow read_mig_row(const JsonValue& value) {
  JsonObject object = value.as_object();
  MigProfileRow row;
  row.gpu = read_int(object.require("gpu"), 0);
  row.name = object.require("name").as_string();
  row.id = read_int(object.require("id"), 0);
  row.instances_free = read_int(object.require("instances_free"), 0);
  row.instances_total = read_int(object.require("instances_total"), 0);
  row.memory_gib = object.require("memory_gib").as_number(kMinMemory_gib, kMaxMemory_gib);
  row.p2p = object.require("p2p").as_bool();
  row.sms = read_int(object.require("sms"), 1);
  row.dec = read_int(object.require("dec"), 0);
  row.enc = read_int(object.require("enc"), 0);
  row.ce = read_int(object.require("ce"), 0);
  row.jpeg = read_int(object.require("jpeg"), 0);
  row.ofa = read_int(object.require("ofa"), 0);
  object.finish();
  return row;
}

MigSection read_mig(const JsonValue& value) {
  JsonObject object = value.as_object();
  MigSection mig;
  mig.provenance = read_provenance(object.require("provenance"));
  mig.profiles = read_list<MigProfileRow>(object.require("profiles"), read_mig_row);
  object.finish();
  return mig;
}

// ---- fits -----------------------------------------------------------------------------------------------------------

FitSegment read_segment(const JsonValue& value) {
  JsonObject object = value.as_object();
  FitSegment segment;
  segment.from_bytes = object.require("from_bytes").as_int(0, kMaxBytes);
  segment.alpha_us = object.require("alpha_us").as_number(0, kMaxTime_us);
  segment.beta_gBps = bandwidth_gBps(object.require("beta_gBps"));
  segment.residual = object.require("residual").as_number(0);
  segment.points = read_int(object.require("points"), 1);
  object.finish();
  return segment;
}

AlphaBetaFit read_alpha_beta(const JsonValue& value) {
  static const std::vector<std::string> kClasses = {"nvlink", "pcie", "host_memory", "nic"};
  JsonObject object = value.as_object();
  AlphaBetaFit fit;
  fit.subject = object.require("subject").as_string();
  if (auto link_class = object.get("link_class")) fit.link_class = link_class->as_choice(kClasses);
  if (auto transport = object.get("transport")) fit.transport = transport->as_choice(rdma_transport_names());
  fit.alpha_us = object.require("alpha_us").as_number(0, kMaxTime_us);
  fit.beta_gBps = bandwidth_gBps(object.require("beta_gBps"));
  fit.residual = object.require("residual").as_number(0);
  fit.points = read_int(object.require("points"), 1);
  if (auto segments = object.get("segments")) fit.segments = read_list<FitSegment>(*segments, read_segment);
  object.finish();
  return fit;
}

FitsSection read_fits(const JsonValue& value) {
  JsonObject object = value.as_object();
  FitsSection fits;
  fits.provenance = read_provenance(object.require("provenance"));
  fits.alpha_beta = read_list<AlphaBetaFit>(object.require("alpha_beta"), read_alpha_beta);
  object.finish();
  return fits;
}

GemmEfficiencyCurve read_curve(const JsonValue& value) {
  JsonObject object = value.as_object();
  GemmEfficiencyCurve curve;
  curve.precision = read_precision(object.require("precision"));
  curve.asymptotic_tflops = tflops(object.require("asymptotic_tflops"));
  curve.half_rate_gflop = object.require("half_rate_gflop").as_number(0, 1e9);  // up to 1 EFLOP per kernel
  curve.residual = object.require("residual").as_number(0);
  curve.points = read_int(object.require("points"), 1);
  if (auto peak = object.get("catalog_peak_tflops")) curve.catalog_peak_tflops = tflops(*peak);
  if (auto efficiency = object.get("max_efficiency")) {
    curve.max_efficiency = efficiency->as_number(kMinEfficiency, kMaxEfficiency);
  }
  object.finish();
  return curve;
}

GemmEfficiencySection read_gemm_efficiency(const JsonValue& value) {
  JsonObject object = value.as_object();
  GemmEfficiencySection section;
  section.provenance = read_provenance(object.require("provenance"));
  section.curves = read_list<GemmEfficiencyCurve>(object.require("curves"), read_curve);
  object.finish();
  return section;
}

}  // namespace

std::optional<std::string> TopologySection::connection(std::string_view a, std::string_view b) const {
  for (const TopologyLink& link : links) {
    if ((link.a == a && link.b == b) || (link.a == b && link.b == a)) return link.connection;
  }
  return std::nullopt;
}

bool is_topology_connection(std::string_view text) {
  static constexpr std::string_view kNames[] = {"X", "PIX", "PXB", "PHB", "NODE", "SYS"};
  if (std::find(std::begin(kNames), std::end(kNames), text) != std::end(kNames)) return true;
  return nvlink_count(text).has_value();
}

std::optional<int> nvlink_count(std::string_view connection) {
  if (connection.size() < 3 || connection.substr(0, 2) != "NV") return std::nullopt;
  int links = 0;
  const char* end = connection.data() + connection.size();
  const auto [rest, error] = std::from_chars(connection.data() + 2, end, links);
  if (error != std::errc() || rest != end || links < 1) return std::nullopt;
  return links;
}

namespace {

StepTimeSeries read_step_times(const JsonValue& value) {
  JsonObject object = value.as_object();
  StepTimeSeries series;
  series.provenance = read_provenance(object.require("provenance"));
  static const std::vector<std::string> kFormats = {"csv", "json-lines", "dllogger"};
  series.log_format = object.require("log_format").as_choice(kFormats);
  series.field = object.require("field").as_string();
  const JsonValue times = object.require("times_s");
  series.times_s = read_list<double>(times, [](const JsonValue& t) { return t.as_number(1e-6, kMaxStep_s); });
  if (series.times_s.size() < 2) times.fail("expected at least two step times");
  object.finish();
  return series;
}

HorovodTimelineSeries read_horovod_timeline(const JsonValue& value) {
  JsonObject object = value.as_object();
  HorovodTimelineSeries series;
  series.provenance = read_provenance(object.require("provenance"));
  series.ranks = static_cast<int>(object.require("ranks").as_int(2, 1 << 24));
  const JsonValue negotiations = object.require("negotiation_us");
  // A tick's own cost, from 0 (the decision in the same microsecond) to a second.
  series.negotiation_us = read_list<double>(negotiations, [](const JsonValue& t) { return t.as_number(0, 1e6); });
  if (series.negotiation_us.empty()) negotiations.fail("expected at least one negotiation");
  if (auto cycles = object.get("cycle_ms")) {
    series.cycle_ms = read_list<double>(*cycles, [](const JsonValue& t) { return t.as_number(1e-3, 1e6); });
  }
  const JsonValue tensors = object.require("response_tensors");
  series.response_tensors =
      read_list<int>(tensors, [](const JsonValue& t) { return static_cast<int>(t.as_int(1, 1 << 24)); });
  const JsonValue bytes = object.require("response_bytes");
  series.response_bytes = read_list<double>(bytes, [](const JsonValue& t) { return t.as_number(0, 1e15); });
  if (series.response_bytes.size() != series.response_tensors.size()) {
    bytes.fail("expected one entry per response_tensors entry (" + std::to_string(series.response_tensors.size()) +
               "), got " + std::to_string(series.response_bytes.size()));
  }
  object.finish();
  return series;
}

HostSection read_host(const JsonValue& value) {
  JsonObject object = value.as_object();
  HostSection host;
  host.provenance = read_provenance(object.require("provenance"));
  host.cpu_model = optional_string(object, "cpu_model");
  host.framework = object.require("framework").as_enum(framework_names());
  host.framework_version = optional_string(object, "framework_version");
  // From a fast host's fraction of a microsecond to a second per launch.
  host.eager_us_per_launch = object.require("eager_us_per_launch").as_number(0.1, 1e6);
  host.eager_launches = static_cast<int>(object.require("eager_launches").as_int(1, 1 << 30));
  if (auto graph = object.get("graph_us_per_node")) host.graph_us_per_node = graph->as_number(0, 1e6);
  if (auto launch = object.get("launch_call_us")) {
    host.launch_call_us = launch->as_number(0.01, 1e6);
    host.launch_calls = static_cast<int>(object.require("launch_calls").as_int(1, 1 << 30));
  }
  object.finish();
  return host;
}

}  // namespace

const std::vector<std::string>& rdma_transport_names() {
  static const std::vector<std::string> kNames = {"roce", "roce_v1", "roce_v2", "infiniband", "pvrdma", "tcp"};
  return kNames;
}

CalibrationProfile parse_calibration_profile(const nlohmann::json& json, const std::string& file) {
  JsonObject object = JsonValue(json, file, "").as_object();
  const JsonValue format = object.require("format");
  if (format.as_string() != kCalibrationProfileFormat) {
    format.fail("expected '" + std::string(kCalibrationProfileFormat) + "', got " + describe_json(format.json()));
  }
  object.require("version").as_int(kCalibrationProfileVersion, kCalibrationProfileVersion);
  CalibrationProfile profile;
  profile.file = file;
  if (auto gpu = object.get("gpu")) profile.gpu = read_gpu(*gpu);
  if (auto collectives = object.get("collectives")) {
    profile.collectives = read_list<CollectiveSeries>(*collectives, read_collective);
  }
  if (auto rdma = object.get("rdma")) profile.rdma = read_list<RdmaSeries>(*rdma, read_rdma);
  if (auto topology = object.get("topology")) profile.topology = read_topology(*topology);
  if (auto mig = object.get("mig_profiles")) profile.mig_profiles = read_mig(*mig);
  if (auto fits = object.get("fits")) profile.fits = read_fits(*fits);
  if (auto gemm = object.get("gemm_efficiency")) profile.gemm_efficiency = read_gemm_efficiency(*gemm);
  if (auto steps = object.get("step_times")) profile.step_times = read_list<StepTimeSeries>(*steps, read_step_times);
  if (auto timelines = object.get("horovod_timelines")) {
    profile.horovod_timelines = read_list<HorovodTimelineSeries>(*timelines, read_horovod_timeline);
  }
  if (auto host = object.get("host")) profile.host = read_host(*host);
  object.finish();
  return profile;
}

CalibrationProfile load_calibration_profile(const std::string& file) {
  return parse_calibration_profile(read_json_file(file), file);
}

}  // namespace vtsim
