#pragma once
// A scenario: the cluster, how its GPUs are virtualized, the training jobs on it, and how to simulate them.
//
// These structs are the parsed, validated, fully defaulted form of a scenario JSON file (scenarios/README.md documents
// the JSON). Every field states its default. Values are SI (seconds, bytes); the JSON keys carry their unit.

// The engine (sim/) and the network model (models/network/) take what resolve() made of a scenario, never the
// scenario: their targets define VTSIM_NO_SCENARIO, so no header of theirs can bring this one in (tests/tools/
// check_layering.sh holds their direct includes).
#ifdef VTSIM_NO_SCENARIO
#error "models/scenario/scenario.hpp in sim/ or models/network/, which take a resolved run (docs/design.md, Layout)"
#endif

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/calibration/calibrated_parameters.hpp"
#include "models/catalog/nic_catalog.hpp"
#include "models/collectives/nccl_tuning.hpp"
#include "models/compute/variability.hpp"
#include "models/core/param.hpp"
#include "models/core/precision.hpp"
#include "models/parallel/parallel_strategy.hpp"
#include "models/scenario/data_parallel.hpp"
#include "models/scenario/fidelity.hpp"
#include "models/scenario/framework.hpp"
#include "models/scenario/job_config.hpp"
#include "models/scenario/operations.hpp"
#include "models/scenario/scheduler_policy.hpp"
#include "models/scenario/simulation_config.hpp"
#include "models/scenario/virtualization_mode.hpp"
#include "models/traces/traced_iteration.hpp"
#include "models/workload/workload_catalog.hpp"

namespace vtsim {

/// Leaf-spine fabric joining the racks: one leaf (top-of-rack) switch per rack (per rack and NIC with rail_optimized),
/// `spines` spine switches, each leaf with one uplink port of `uplink_bandwidth_Bps` to each spine. Every flow between
/// racks is hashed to one spine (ECMP, seeded by simulation.seed). The three figures are tied by
///   oversubscription = hosts_per_rack x nics x NIC line rate / (spines x uplink line rate),
/// (hosts_per_rack x NIC line rate / (spines x uplink line rate) per rail leaf with rail_optimized), so a scenario
/// gives at most two of them and the loader derives the rest (scenarios/README.md, "Fabric").
struct FabricConfig {
  /// Hosts' NIC bandwidth into a leaf divided by the leaf's uplink bandwidth; 2.0 means 2:1. Default: derived from
  /// spines and uplink speed, or 1.0 (non-blocking) when neither is given.
  double oversubscription = 1.0;
  /// Number of spine switches; each leaf has one uplink to each spine. Default: derived (enough uplinks for the
  /// oversubscription at the uplink speed, rounded up).
  int spines = 1;
  /// Line rate of one leaf uplink port, bytes/s; 0 means the hosts' NIC line rate (leaf and spine ports alike), the
  /// default.
  double uplink_bandwidth_Bps = 0;
  /// Whether the scenario set the uplink's line rate (uplink_gbps, or oversubscription with spines); false when it
  /// takes the NIC's.
  bool uplink_stated = false;
  /// Port-to-port latency of one switch. Default 300 ns, uncalibrated: the order of the cut-through latency Mellanox
  /// Spectrum SN2000-series product briefs state; calibrate it for your fabric.
  double switch_latency_s = 300e-9;
  bool switch_latency_stated = false;  ///< the scenario gave switch_latency_us (else the default above)
  /// InfiniBand adaptive routing: the switches spread every flow's packets over the spines by load instead of hashing
  /// the flow onto one, so flows between racks never collide on an uplink; modelled as each leaf's uplinks joined into
  /// one of their summed rate. Default: on with the infiniband transport (opensm and NCCL enable it there), off (and
  /// not available) on Ethernet.
  bool adaptive_routing = false;
  /// Rail-optimized cabling, as NVIDIA's DGX SuperPOD reference architectures lay it out: NIC r of every host of a
  /// rack (a scalable unit) on a leaf of its own (rail r), each rail leaf with one uplink port per spine. A flow
  /// between hosts takes the rail of the NIC beside its destination GPU and stays on it, its sender reaching that NIC
  /// through the host (NCCL's PXN, docs/cluster-model.md). The oversubscription is then per rail leaf:
  /// hosts_per_rack x NIC line rate / (spines x uplink line rate). Default false: one leaf per rack for every NIC.
  bool rail_optimized = false;
};

/// Physical CPU cores of a generic host (no `model`, no `cpu_cores` given): 24, the seed study's VM size, not any
/// server's; uncalibrated, and reported as such where it matters (bare metal).
inline constexpr int kGenericHostCpuCores = 24;

/// One server; every host of the cluster is alike.
struct HostConfig {
  /// Server model id from `vtsim catalog hosts`; it sets the defaults below (its GPUs, NICs and CPU cores) and refuses
  /// values it does not have. Default "": a generic host described by the fields below.
  std::string model;
  /// GPUs per host. Default: the host model's, else 1.
  int gpus = 1;
  /// GPU model id from `vtsim catalog gpus`. Default: the host model's first, else "a100-40gb-sxm4".
  std::string gpu_model = "a100-40gb-sxm4";
  // The three fields below default to what the GPU model has (apply_gpu_model_defaults); their initialisers are the
  // default GPU's (an A100 SXM4: NVLink 3, PCIe Gen4), so that a scenario built by hand starts as a loaded one does.
  /// Whether the GPUs are joined by NVLink (or an NVLink bridge). Default: whether the GPU model has NVLink.
  bool nvlink_present = true;
  /// Whether NVLink may be used (turning it off models "no P2P" setups). Default: nvlink_present.
  bool nvlink_enabled = true;
  /// PCIe generation of the GPUs' slots. Default: the GPU model's.
  int pcie_gen = 4;
  /// GPUs behind each PCIe switch: GPUs k x s to k x s + k - 1 on switch s, whose one x16 uplink to the CPU (at
  /// pcie_gen) they share for what they send to or receive from host memory and the NICs of other switches; NIC n on
  /// switch floor(n x switches / nics). 0: every GPU and NIC on the root complex. Default: the host model's where its
  /// source gives one, else 0.
  int pcie_switch_gpus = 0;
  /// NICs per host. Default: the host model's compute NICs (at most those), else 1.
  int nics = 1;
  /// NIC model id from `vtsim catalog nics`. Default: the host model's, else "connectx-5-100gbe".
  std::string nic_model = "connectx-5-100gbe";
  /// Physical CPU cores of the host, all sockets: on bare metal the jobs' training loops, data loaders and socket
  /// threads share them (a VM has virtualization.vm_cpu_cores instead). Default: the host model's; nullopt for a
  /// generic host, which then has kGenericHostCpuCores, uncalibrated.
  std::optional<int> cpu_cores;
};

struct GpuSpec;

/// Sets the fields of `host` whose defaults come from its GPU model (`gpu`, the catalog entry of host.gpu_model):
/// NVLink present and enabled where the GPU has NVLink links, and the GPU's PCIe generation. The loader applies them
/// before the scenario's own values; code that builds a scenario by hand for another GPU than the default calls it
/// after setting gpu_model.
void apply_gpu_model_defaults(HostConfig& host, const GpuSpec& gpu);

/// The physical cluster.
struct ClusterConfig {
  /// Racks, each with one leaf switch. Default 1.
  int racks = 1;
  /// Hosts in each rack. Default 1.
  int hosts_per_rack = 1;
  /// The servers.
  HostConfig host;
  /// Transport between hosts. Default RoCE v2.
  Transport transport = Transport::roce_v2;
  /// The fabric between hosts and racks.
  FabricConfig fabric;

  /// Hosts in the whole cluster.
  int total_hosts() const { return racks * hosts_per_rack; }
  /// GPUs in the whole cluster; GPU g sits in host g / host.gpus.
  int total_gpus() const { return total_hosts() * host.gpus; }
};

/// Time-sliced vGPU scheduler of each physical GPU (used in vgpu mode).
struct SchedulerConfig {
  /// Default best effort (the vGPU default).
  SchedulerPolicy policy = SchedulerPolicy::best_effort;
  /// Time slice. Default: the vGPU profile's (2 ms when it allows <= 8 per GPU, else 1 ms). Allowed 1-30 ms.
  double time_slice_s = 2e-3;
  /// Cost of one switch between vGPUs, as the scenario states it, else 100 us. A run takes the calibration
  /// profile's measurement over the 100 us (context_switch()); the default is uncalibrated: no primary source gives
  /// it (docs/hardware-facts.md); measure it with `vtsim calibrate probe gpu`.
  double context_switch_s = 100e-6;
  bool context_switch_stated = false;  ///< the scenario gives context_switch_us (over the profile's measurement)
};

/// The cost of one switch between vGPUs a run takes: the scenario's where it states one (it replaces the profile's),
/// else the calibration profile's measurement, else the uncalibrated default; with its source.
Param<double> context_switch(const SchedulerConfig& scheduler, const CalibratedParameters& calibration);

/// How the GPUs are virtualized.
struct VirtualizationConfig {
  /// Default bare metal.
  VirtualizationMode mode = VirtualizationMode::bare_metal;
  /// vgpu mode: the profile every job uses unless it names its own. Default: the GPU model's full-framebuffer profile.
  std::string vgpu_profile;
  /// mig mode: the MIG profile every job uses unless it names its own. Required in mig mode (no default).
  std::string mig_profile;
  /// The vGPU scheduler.
  SchedulerConfig scheduler;
  /// vCPUs of each VM (not on bare metal: processes there have the host's cores, cluster.host.cpu_cores). At most
  /// the host model's logical processors (vSphere gives a VM no more vCPUs than the host has threads). Default 24, as
  /// in the seed study's VM (VMware performance blog, May 2022).
  int vm_cpu_cores = 24;
  /// Fraction by which running in a VM slows the host-side work the compute model fits on bare metal (issuing
  /// kernels, loading data): CPU virtualization's exits and nested page walks. Default: 0 on bare metal, else 0.02,
  /// uncalibrated: published end-to-end results put VMs with vGPU or passthrough GPUs within 0-6% of bare metal
  /// (VMware MLPerf Inference on vSphere, 2021: 94.4-100%; Dell's vGPU training white paper: under 5%), which bounds
  /// it but does not measure it.
  std::optional<double> vm_cpu_overhead;
  /// TCP between hosts: what one vCPU moves through the guest's network stack per direction, bytes/s (JSON
  /// tcp_gbps_per_core, Gbit/s; measure it with one iperf3 stream between two VMs). Default: the TCP transport's,
  /// 15 Gb/s, uncalibrated (models/catalog/nic_catalog.cpp).
  std::optional<double> tcp_core_Bps;
  /// vgpu mode: allow time-sliced vGPUs of different sizes on one GPU (NVIDIA vGPU 17 "mixed-size mode"; fixed share is
  /// then not supported). Default false: one profile size per GPU.
  bool mixed_sizes = false;
};

/// A whole scenario, validated, with every default filled in.
struct Scenario {
  /// Short name. Default: the file name without extension.
  std::string name;
  /// What the scenario shows. Default "".
  std::string description;
  ClusterConfig cluster;
  VirtualizationConfig virtualization;
  /// At least one job.
  std::vector<JobConfig> jobs;
  /// Path of a calibration profile, resolved against the scenario's folder; "" = catalog defaults.
  std::string calibration_profile;
  /// Whether the profile may have measured another box than the cluster's (calibration_mismatches()): its values are
  /// then used and every result lists the differences. Default false: such a profile is refused. The profile itself
  /// is read and applied by resolve() (models/resolve/scenario_calibration.hpp), not kept here.
  bool calibration_allow_mismatch = false;
  SimulationConfig simulation;
  /// vSphere's figures for the events. Defaults in models/scenario/operations.hpp.
  OperationsConfig operations;
  /// vMotions, host failures and maintenance during training, in the file's order. Default none.
  std::vector<OperationEvent> events;
  /// The file the scenario came from, for error messages (not part of the format).
  std::string file;
};

/// The CPU cores one job's ranks on one host share, and what they are.
struct JobCpuCores {
  int cores = 1;        ///< >= 1
  std::string what;     ///< e.g. "24 vCPUs in the VM", "128 cores of the host (dgx-a100)"
  bool uncalibrated = false;  ///< a generic bare-metal host's default count
};

/// The cores of one host's VM in the scenario's mode: a VM's vCPUs, or on bare metal all of the host's cores.
int whole_host_cpu_cores(const Scenario& scenario);

/// The cores `job`'s ranks on host `host` share: in a VM its vCPUs; on bare metal the host's cores, split between
/// the jobs with ranks on that host in proportion to their ranks (at least one). REQUIRES: job has a rank on `host`.
JobCpuCores job_cpu_cores(const Scenario& scenario, const JobConfig& job, int host);

}  // namespace vtsim
