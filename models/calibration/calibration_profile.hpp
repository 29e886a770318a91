#pragma once
// A calibration profile: what was measured on real hardware, with units and provenance (docs/design.md, "Calibration").
//
// A profile is a JSON document (calibrate/README.md documents every key). These structs mirror the document: each
// number keeps the unit of its JSON key in its name (bandwidth_gBps, latency_us, tflops), so that reading and writing a
// profile is exact; models/calibration/calibrated_parameters converts to SI once, where the simulator takes the values.
//
// Every section is optional. The single-measurement sections (gpu, topology, mig_profiles, fits, gemm_efficiency)
// carry one provenance; the list sections (collectives, rdma) hold series, one per measured run, each with its own
// provenance, so that logs from different tools, days and hosts can sit in one profile and still say where each
// number came from.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/core/precision.hpp"
#include "models/scenario/framework.hpp"

namespace vtsim {

/// Where a set of measurements came from. Only `tool` is required; an unknown field is "".
struct Provenance {
  std::string tool;    ///< the program that measured, e.g. "nccl-tests all_reduce_perf", "vtsim calibrate probe gpu"
  std::string device;  ///< the measured device, e.g. "NVIDIA A100-SXM4-40GB", "mlx5_0"
  std::string driver;  ///< driver and library versions, e.g. "NVIDIA driver 535.104.05; NCCL 2.18.3"
  std::string date;    ///< when it was measured, ISO 8601 (importers use the log file's modification time)
  std::string host;    ///< the machine's host name
  std::string notes;   ///< anything else worth knowing (how it was imported, options used)

  bool operator==(const Provenance&) const = default;
};

/// One GEMM throughput measurement: C(m x n) = A(m x k) B(k x n), 2mnk flop.
struct GemmMeasurement {
  Precision precision = Precision::fp32;  ///< fp32 (CUDA cores), tf32, fp16 or bf16 (tensor cores, fp32 accumulate)
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  double tflops = 0;  ///< achieved, 1e12 flop/s

  bool operator==(const GemmMeasurement&) const = default;
};

/// One peer-to-peer copy measurement from GPU `src` to GPU `dst` (CUDA device indices).
struct P2pMeasurement {
  int src = 0;
  int dst = 0;
  double bandwidth_gBps = 0;          ///< large copies, 1e9 B/s
  std::optional<double> latency_us;   ///< one small copy, us

  bool operator==(const P2pMeasurement&) const = default;
};

/// What the GPU probe measured on one host.
struct GpuSection {
  Provenance provenance;
  std::string name;                               ///< device name as CUDA reports it
  std::string catalog_gpu;                        ///< the gpu_catalog() id it corresponds to; "" when unknown
  std::vector<GemmMeasurement> gemm;              ///< throughput per precision and size
  std::optional<double> memory_bandwidth_gBps;    ///< device-to-device copy, bytes read + written per second
  std::optional<double> h2d_gBps;                 ///< pinned host-to-device copy
  std::optional<double> d2h_gBps;                 ///< pinned device-to-host copy
  std::vector<P2pMeasurement> p2p;                ///< every ordered pair of visible GPUs
  std::optional<double> kernel_launch_us;         ///< per launch, back-to-back tiny launches
  std::optional<double> context_switch_us;        ///< per switch between two processes sharing one GPU
  std::optional<double> collective_sm_share;      ///< fraction of compute a running allreduce takes, [0, 1)

  bool operator==(const GpuSection&) const = default;
};

/// One row of an nccl-tests (or probe) table.
struct CollectivePoint {
  std::int64_t bytes = 0;                    ///< nccl-tests "size": total bytes of the operation
  double time_us = 0;                        ///< out-of-place time per operation
  double algbw_gBps = 0;                     ///< bytes / time
  double busbw_gBps = 0;                     ///< algbw x the operation's bus factor (nccl-tests doc/PERFORMANCE.md)
  std::optional<double> in_place_time_us;    ///< in-place time, when reported

  bool operator==(const CollectivePoint&) const = default;
};

/// One run of a collective over a range of sizes.
struct CollectiveSeries {
  Provenance provenance;
  std::string op;                  ///< "all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", ...
  int ranks = 1;                   ///< GPUs taking part
  std::optional<int> hosts;        ///< distinct hosts the ranks ran on, when known
  std::vector<int> gpus;           ///< CUDA device index of each rank on a single host, when known
  std::vector<CollectivePoint> points;

  bool operator==(const CollectiveSeries&) const = default;
};

/// One row of a perftest (or probe) table.
struct RdmaPoint {
  std::int64_t bytes = 0;               ///< message size
  std::optional<double> latency_us;     ///< latency tests: typical (median) one-way latency, half a round trip
  std::optional<double> bandwidth_gBps; ///< bandwidth tests: average bandwidth, 1e9 B/s

  bool operator==(const RdmaPoint&) const = default;
};

/// One run of an RDMA latency or bandwidth test.
struct RdmaSeries {
  Provenance provenance;
  std::string transport;  ///< "roce", "roce_v1", "roce_v2", "infiniband", "pvrdma" or "tcp"
  std::string op;         ///< "write", "send" or "read"
  std::string test;       ///< "latency" or "bandwidth"
  std::vector<RdmaPoint> points;

  bool operator==(const RdmaSeries&) const = default;
};

/// One device (row and column) of `nvidia-smi topo -m`.
struct TopologyDevice {
  std::string name;           ///< "GPU0", "NIC1", or an older driver's NIC name ("mlx5_0")
  std::string cpu_affinity;   ///< e.g. "0-31,64-95"; "" when not given
  std::string numa_affinity;  ///< e.g. "0"; "" when not given
  std::string nic_name;       ///< from the NIC legend ("NIC0: mlx5_0"); "" otherwise

  bool operator==(const TopologyDevice&) const = default;
};

/// The connection between two devices: X, NV#, PIX, PXB, PHB, NODE or SYS.
struct TopologyLink {
  std::string a;
  std::string b;
  std::string connection;

  bool operator==(const TopologyLink&) const = default;
};

/// The host's topology as `nvidia-smi topo -m` prints it.
struct TopologySection {
  Provenance provenance;
  std::vector<TopologyDevice> devices;
  std::vector<TopologyLink> links;  ///< every unordered pair once, a before b in device order

  /// The connection between devices `a` and `b` in either order; nullopt when either is unknown.
  std::optional<std::string> connection(std::string_view a, std::string_view b) const;

  bool operator==(const TopologySection&) const = default;
};

/// One GPU instance profile of `nvidia-smi mig -lgip`.
struct MigProfileRow {
  int gpu = 0;               ///< GPU index
  std::string name;          ///< e.g. "1g.5gb", "1g.5gb+me" (without the "MIG " prefix)
  int id = 0;                ///< profile id
  int instances_free = 0;
  int instances_total = 0;
  double memory_gib = 0;
  bool p2p = false;
  int sms = 0;
  int dec = 0;
  int enc = 0;
  int ce = 0;
  int jpeg = 0;
  int ofa = 0;

  bool operator==(const MigProfileRow&) const = default;
};

/// The MIG profile table of one host.
struct MigSection {
  Provenance provenance;
  std::vector<MigProfileRow> profiles;

  bool operator==(const MigSection&) const = default;
};

/// One piece of a piecewise alpha-beta fit: applies to messages of at least `from_bytes`, up to the next piece.
struct FitSegment {
  std::int64_t from_bytes = 0;
  double alpha_us = 0;    ///< fixed cost
  double beta_gBps = 0;   ///< bandwidth
  double residual = 0;    ///< root-mean-square relative error of the points in this piece
  int points = 0;

  bool operator==(const FitSegment&) const = default;
};

/// time = alpha + bytes / beta, least squares on relative error, fitted to one series.
struct AlphaBetaFit {
  std::string subject;     ///< the series fitted, as a profile path: "collectives[0]", "rdma[2]"
  std::string link_class;  ///< "nvlink", "pcie", "host_memory" or "nic" when known; "" otherwise
  std::string transport;   ///< for nic fits, the series' transport; "" otherwise
  double alpha_us = 0;
  double beta_gBps = 0;    ///< collectives: bus bandwidth (bytes scaled by the bus factor)
  double residual = 0;     ///< root-mean-square relative error over all points
  int points = 0;
  std::vector<FitSegment> segments;  ///< two pieces when one line fits badly (small vs large messages); else empty

  bool operator==(const AlphaBetaFit&) const = default;
};

/// All alpha-beta fits of a profile.
struct FitsSection {
  Provenance provenance;
  std::vector<AlphaBetaFit> alpha_beta;

  bool operator==(const FitsSection&) const = default;
};

/// GEMM throughput against size in one precision: achieved(w) = asymptotic x w / (w + w_half), w = 2mnk flop.
struct GemmEfficiencyCurve {
  Precision precision = Precision::fp32;
  double asymptotic_tflops = 0;             ///< throughput of very large GEMMs
  double half_rate_gflop = 0;               ///< the GEMM size (2mnk, 1e9 flop) that reaches half of it
  double residual = 0;                      ///< root-mean-square relative error of the times
  int points = 0;
  std::optional<double> catalog_peak_tflops;  ///< the datasheet peak of the profile's catalog GPU
  std::optional<double> max_efficiency;       ///< asymptotic / catalog peak

  bool operator==(const GemmEfficiencyCurve&) const = default;
};

/// GEMM efficiency curves per precision.
struct GemmEfficiencySection {
  Provenance provenance;
  std::vector<GemmEfficiencyCurve> curves;

  bool operator==(const GemmEfficiencySection&) const = default;
};

/// Per-iteration times of one single-GPU training run, as its log recorded them: only their spread is used.
struct StepTimeSeries {
  Provenance provenance;
  std::string log_format;        ///< "csv", "json-lines" or "dllogger"
  std::string field;             ///< the log's field they came from, e.g. "train.total_ips"
  std::vector<double> times_s;   ///< step times, or seconds per sample where the log gave throughput; at least two

  bool operator==(const StepTimeSeries&) const = default;
};

/// What one Horovod timeline (HOROVOD_TIMELINE, written by rank 0's coordinator) shows of a data-parallel run.
struct HorovodTimelineSeries {
  Provenance provenance;
  int ranks = 2;  ///< ranks that reported tensors ready (the highest rank named, plus one); at least two
  /// Per negotiated tensor: from the last rank's ready report to the coordinator's decision, us. The coordinator's
  /// own time per tick, without the wait for the slowest rank.
  std::vector<double> negotiation_us;
  /// Between consecutive CYCLE_START markers, ms (HOROVOD_TIMELINE_MARK_CYCLES=1; empty without them).
  std::vector<double> cycle_ms;
  /// Per fused response (tensors whose collective started together): its tensors and its bytes.
  std::vector<int> response_tensors;
  std::vector<double> response_bytes;

  bool operator==(const HorovodTimelineSeries&) const = default;
};

/// What the host costs per kernel a framework launches, measured in host-bound training steps
/// (calibrate/gpu_harness/host_dispatch.py; `vtsim calibrate import host-dispatch`): steps so small that the GPU idles
/// while the host issues the next kernel, so that a phase's wall time is the host's.
struct HostSection {
  Provenance provenance;
  std::string cpu_model;                     ///< as /proc/cpuinfo names it; "" when unknown
  Framework framework = Framework::pytorch;  ///< the framework measured
  std::string framework_version;             ///< e.g. "2.11.0+cu130"; "" when unknown
  double eager_us_per_launch = 0;            ///< eager forward and backward phases: wall time / launches, pooled
  int eager_launches = 0;                    ///< the launches that figure pools
  std::optional<double> graph_us_per_node;   ///< a replayed CUDA graph: (wall - GPU busy) / nodes
  /// The median duration of the CUDA runtime or driver call that launched each kernel of the profiled eager phases
  /// (cudaLaunchKernel, cuLaunchKernel and their forms), us: what a library's own launch inside a framework's call
  /// costs the host; nullopt when the logs did not record it.
  std::optional<double> launch_call_us = {};
  int launch_calls = 0;  ///< the launch calls that median is over

  bool operator==(const HostSection&) const = default;
};

/// A whole profile. `file` is where it was read from (for messages), not part of the format.
struct CalibrationProfile {
  std::optional<GpuSection> gpu;
  std::vector<CollectiveSeries> collectives;
  std::vector<RdmaSeries> rdma;
  std::optional<TopologySection> topology;
  std::optional<MigSection> mig_profiles;
  std::optional<FitsSection> fits;
  std::optional<GemmEfficiencySection> gemm_efficiency;
  std::vector<StepTimeSeries> step_times;
  std::vector<HorovodTimelineSeries> horovod_timelines;
  std::optional<HostSection> host;
  std::string file;

  bool operator==(const CalibrationProfile&) const = default;
};

/// The value of the profile's "format" key.
inline constexpr std::string_view kCalibrationProfileFormat = "vtsim-calibration-profile";
/// The format version this build reads and writes.
inline constexpr int kCalibrationProfileVersion = 1;

/// Connection spellings `nvidia-smi topo -m` uses (NV# stands for NV1, NV2, ...).
bool is_topology_connection(std::string_view text);
/// The NVLink count of "NV#"; nullopt for any other connection.
std::optional<int> nvlink_count(std::string_view connection);
/// Transport spellings accepted in rdma series.
const std::vector<std::string>& rdma_transport_names();

/// Parses a profile document; every error is InputError "FILE: PATH: ..." (unknown keys suggest the nearest).
CalibrationProfile parse_calibration_profile(const nlohmann::json& json, const std::string& file);
/// Reads and parses a profile file.
CalibrationProfile load_calibration_profile(const std::string& file);
/// The profile as a JSON document; parse_calibration_profile(calibration_profile_json(p)) equals p (but `file`).
nlohmann::json calibration_profile_json(const CalibrationProfile& profile);
/// The profile as indented JSON text, checked to load (parse_calibration_profile) as `file`: an InputError naming the
/// value the loader would refuse otherwise.
std::string checked_calibration_profile_text(const CalibrationProfile& profile, const std::string& file);
/// Writes checked_calibration_profile_text atomically (a temporary file, synced, renamed over `file`): a failure leaves
/// the old profile as it was. A value the loader would refuse, or a file that cannot be written, is an InputError.
void save_calibration_profile(const CalibrationProfile& profile, const std::string& file);

}  // namespace vtsim
