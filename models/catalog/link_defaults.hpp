#pragma once
// Default bandwidth and latency of each class of physical link in a cluster, and how the GPUs of one host are wired by
// NVLink. Every number is cited in link_defaults.cpp; a default that no published figure backs says so in
// `uncalibrated`, so that a result can list the uncalibrated defaults it used.
//
// Conventions: bandwidths are per direction of a full-duplex link, after protocol efficiency, bytes/s. Latencies are
// what one message pays on the path the default describes (e.g. one GPU-to-GPU step); models/network/topology.cpp
// splits a path's latency over its links where the path has several (it says how next to each link).

#include "models/catalog/catalog_guard.hpp"  // refused in sim/ and models/network/

#include <string>
#include <string_view>
#include <vector>

#include "models/calibration/calibrated_parameters.hpp"
#include "models/catalog/gpu_catalog.hpp"
#include "models/catalog/interconnect_catalog.hpp"
#include "models/catalog/link_class.hpp"
#include "models/catalog/nic_catalog.hpp"

namespace vtsim {

struct ClusterConfig;
struct Scenario;

/// Fraction of NVLink line rate that ring collectives reach ("roughly 80%", NCCL maintainers [S],
/// docs/hardware-facts.md).
inline constexpr double kNvlinkProtocolEfficiency = 0.8;

/// The layout of `gpus_per_host` GPUs of model `gpu` when NVLink is present and enabled.
NvlinkLayout nvlink_layout(const GpuSpec& gpu, int gpus_per_host);

/// NVLink links in one connection of `layout`: a pair's links for bridges and meshes, a GPU's links for stars.
int nvlink_links_per_connection(const GpuSpec& gpu, int gpus_per_host);

/// One NVLink connection of `links` links of generation `nvlink`; latency is one GPU-to-GPU step.
LinkDefault nvlink_default(const NvlinkSpec& nvlink, int links);

/// A GPU's x16 link of PCIe generation `pcie_gen` (3, 4 or 5); latency is one of the two links of a GPU-to-GPU step.
LinkDefault pcie_default(int pcie_gen);

/// The host-memory staging path of one GPU in a host whose GPUs sit on PCIe generation `pcie_gen`; latency is what
/// the staging adds to a GPU-to-GPU step beyond the two PCIe links.
LinkDefault host_memory_default(int pcie_gen);

/// A NIC port with its transport; latency is one message between two hosts' NICs, before switches.
LinkDefault nic_default(const NicSpec& nic, const TransportSpec& transport);

/// What staging through host memory adds to one message between hosts when the transport has no GPUDirect RDMA: at
/// each end, one of NCCL's network slots crosses the GPU's PCIe link before the NIC (or the socket) can take it, and
/// after it has delivered it (the pipeline's fill). 0 for a transport with GPUDirect RDMA.
double staging_fill_s(const TransportSpec& transport, double pcie_Bps);

/// One rank's share of the TCP stack, per direction (models/compute/vm_cpu.hpp), when `ranks_per_vm` ranks share
/// `cpu_cores` (a VM's vCPUs, or on bare metal their part of the host's cores: job_cpu_cores()), at the scenario's
/// tcp_gbps_per_core or the transport's default. REQUIRES: a TCP cluster, cpu_cores >= 1, ranks_per_vm >= 1.
LinkDefault tcp_stack_default(const Scenario& scenario, int cpu_cores, int ranks_per_vm);

/// One leaf-to-spine uplink of `cluster` (at the NIC's line rate where the fabric gives none); latency is one
/// switch. Uncalibrated where the transport's efficiency is, or the switch latency is the default.
LinkDefault uplink_default(const ClusterConfig& cluster);

/// `base` with whatever `calibrated` measured in its place: those figures come from the profile, and the link is no
/// longer uncalibrated once both of its figures are measured.
LinkDefault with_calibration(LinkDefault base, const CalibratedLink& calibrated);

/// The five link defaults of `scenario`'s cluster with `calibration`'s measurements applied (the NVLink one
/// is meaningful only when NVLink is present and enabled; the NIC and uplink ones only when the hosts have NICs). The
/// NIC's latency includes staging_fill_s at both ends for a transport without GPUDirect RDMA, measured or not (a
/// perftest measures host memory to host memory).
struct ScenarioLinks {
  LinkDefault nvlink;
  LinkDefault pcie;
  LinkDefault host_memory;
  LinkDefault nic;
  LinkDefault uplink;
};
ScenarioLinks scenario_links(const Scenario& scenario, const CalibratedParameters& calibration);

/// The defaults of the link classes the scenario's topology builds (whether or not a job's traffic crosses them),
/// in LinkClass order, from `links` = scenario_links(scenario, calibration). REQUIRES: a validated scenario (known GPU
/// and NIC models, pcie_gen 3-5).
std::vector<ClassDefault> link_defaults_for(const Scenario& scenario, const ScenarioLinks& links);

}  // namespace vtsim
