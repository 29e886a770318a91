#pragma once
// What the simulator takes from a calibration profile instead of its catalog defaults.
//
// calibrated_parameters() derives each value from the profile's fits and measurements by a documented rule (listed in
// calibrated_parameters.cpp and calibrate/README.md). Each value is optional: a profile calibrates what it measured,
// and the catalog default stays for the rest. Each value carries its provenance, a one-line string naming the profile,
// the profile path it came from and the tool, device and date that measured it, so a result can say where every
// number came from. Values are SI, with the same meaning as the LinkDefault they replace
// (models/catalog/link_defaults.hpp).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/calibration/calibration_profile.hpp"
#include "models/catalog/nic_spec.hpp"
#include "models/core/precision.hpp"
#include "models/scenario/framework.hpp"

namespace vtsim {

/// One calibrated number and where it came from.
struct CalibratedValue {
  double value = 0;        ///< SI: bytes/s, s, flop/s or a fraction
  std::string provenance;  ///< e.g. "p.json: fits.alpha_beta[0] (collectives[0]: nccl-tests all_reduce_perf, ...)"

  bool operator==(const CalibratedValue&) const = default;
};

/// Calibrated figures of one link class; each replaces the LinkDefault figure of the same meaning.
struct CalibratedLink {
  std::optional<CalibratedValue> bandwidth_Bps;  ///< per direction, after protocol efficiency, bytes/s
  std::optional<CalibratedValue> latency_s;      ///< as LinkDefault::latency_s for this class, s

  bool operator==(const CalibratedLink&) const = default;
};

/// The host's measured cost per kernel for one framework (the profile's `host` section).
struct CalibratedDispatch {
  Framework framework = Framework::pytorch;
  CalibratedValue eager_s;                    ///< per kernel launched eagerly, s
  std::optional<CalibratedValue> graph_node_s;  ///< per node of a replayed CUDA graph, s
  /// Per CUDA launch call (a library's own launch inside a framework's call), s.
  std::optional<CalibratedValue> launch_call_s = {};

  bool operator==(const CalibratedDispatch&) const = default;
};

/// Everything a profile calibrates. Absent values mean "keep the catalog default".
struct CalibratedParameters {
  CalibratedLink nvlink;       ///< latency: one GPU-to-GPU step
  CalibratedLink pcie;         ///< latency: one of the two PCIe links of a GPU-to-GPU step (half a step)
  CalibratedLink host_memory;  ///< latency: what staging through host memory adds beyond the two PCIe links
  std::map<std::string, CalibratedLink> nic;  ///< per transport spelling of the profile ("roce", "pvrdma", ...)
  std::optional<CalibratedValue> memory_bandwidth_Bps;        ///< achieved device memory bandwidth
  std::map<Precision, CalibratedValue> gemm_flops;            ///< achieved large-GEMM throughput, flop/s
  std::map<Precision, CalibratedValue> gemm_flop_efficiency;  ///< that throughput / the catalog GPU's peak
  std::optional<CalibratedValue> kernel_launch_s;             ///< per kernel launch
  std::optional<CalibratedValue> context_switch_s;            ///< per switch between two contexts on one GPU
  std::optional<CalibratedValue> collective_sm_share;         ///< fraction of compute a running allreduce takes
  std::optional<CalibratedValue> step_time_cv;  ///< per-iteration spread of single-GPU step times (a fraction)
  /// Horovod's negotiation: one message of the coordinator's tree per tick, s (a tick costs 2 ceil(log2 N) of them,
  /// models/resolve/resolve.cpp horovod_negotiation_s).
  std::optional<CalibratedValue> horovod_negotiation_message_s;
  std::optional<CalibratedDispatch> host_dispatch;  ///< the host's cost per kernel, measured for one framework
  std::vector<std::string> notes;  ///< measurements present but not used, and why (one line each)
  /// calibration_mismatches() of the scenario's box, when the scenario allows them (calibration_allow_mismatch): the
  /// values are used and every result says so.
  std::vector<std::string> mismatches;

  /// The NIC figures for a scenario transport: its own spelling, else "roce" for RoCE v1/v2; nullptr when none.
  const CalibratedLink* nic_for(Transport transport) const;

  bool operator==(const CalibratedParameters&) const = default;
};

/// The link class a measurement between the GPUs of one host exercised, from the topology's worst connection on the
/// best ring through them: every hop NV# -> "nvlink"; PIX or PXB at worst -> "pcie" (NCCL uses PCIe peer-to-peer up
/// to PXB by default); PHB, NODE or SYS -> "host_memory". "" when the topology lacks one of the GPUs.
std::string ring_link_class(const TopologySection& topology, const std::vector<int>& gpus);

/// Derives the calibrated parameters from the profile's fits and measurements (rules in calibrated_parameters.cpp).
CalibratedParameters calibrated_parameters(const CalibrationProfile& profile);

/// The box a scenario simulates, as far as a profile's measurements depend on it.
struct CalibratedBox {
  std::string gpu_model;       ///< catalog id of the hosts' GPUs
  int gpus_per_host = 1;
  bool nvlink_present = false;  ///< the hosts' GPUs are joined by NVLink
};

/// Where the profile measured another box than `box`, one line each naming both: its GPU section on another catalog
/// GPU; a ring collective that calibrates a link class (rule 1 of calibrated_parameters.cpp) run on GPUs whose names
/// match another catalog GPU (catalog_gpu_for) or over another number of one host's GPUs than the box's hosts have;
/// an NVLink fit for hosts without NVLink. Empty when the profile fits the box.
std::vector<std::string> calibration_mismatches(const CalibrationProfile& profile, const CalibratedBox& box);

}  // namespace vtsim
