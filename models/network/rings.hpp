#pragma once
// The rings of a communicator laid over the topology: a job's (or a tensor or data group's) rank order, the rings
// NCCL runs at once (channels: over the pair links of a full NVLink mesh, out of each host through each NIC), for
// hierarchical allreduce its intra-host and inter-host rings; the flows they make and the bytes each carries; what
// NCCL's tuning model sees of them. No SimGrid: sim/collectives/communicators.hpp builds the engine's collectives on
// them.

#include <string>
#include <utility>
#include <vector>

#include "models/collectives/nccl_tuning.hpp"
#include "models/network/flow_analysis.hpp"
#include "models/network/topology.hpp"
#include "models/scenario/job_config.hpp"

namespace vtsim {

/// The communicator layout of a job.
struct JobRings {
  std::vector<int> ring;  ///< all the job's GPUs, topology-aware order: rank positions
  /// The distinct rings the flat allreduce runs at once, each over all of `ring`'s GPUs; the data is split equally.
  /// Channel c of a job spanning hosts leaves each host from a GPU on NIC c % nics (rails), or on rail-optimized
  /// cabling enters each host at one and so stays on rail c; on a full NVLink mesh the channels walk the hosts' GPUs
  /// in every order (Topology::host_ring_orders).
  std::vector<std::vector<int>> channels;
  std::vector<std::vector<int>> intra_host;                        ///< per host of the job, its GPUs in ring order
  std::vector<std::vector<std::vector<int>>> intra_host_channels;  ///< per host, its rings (host_ring_orders)
  std::vector<std::vector<int>> inter_host;  ///< hierarchical only: per local index, the GPUs with it on each host
};

/// A ring of GPUs together with its connection id (GpuFlow::flow).
struct FlowRing {
  std::vector<int> gpus;
  int flow = 0;
};

/// Whether `job` reduces its gradients with Horovod's hierarchical allreduce (JobRings' intra- and inter-host rings).
bool runs_hierarchical(const JobConfig& job);

/// The flat channel rings of `rings`, channel c as connection c.
std::vector<FlowRing> flat_rings(const JobRings& rings);
/// The intra-host rings of a hierarchical allreduce: per host, its channel c as connection c.
std::vector<FlowRing> intra_rings(const JobRings& rings);
/// The inter-host rings of a hierarchical allreduce: local index l's as connection l.
std::vector<FlowRing> inter_rings(const JobRings& rings);
/// One step of every ring in `rings` at once (ring_flows of each).
std::vector<GpuFlow> flows_of(const std::vector<FlowRing>& rings);

/// The class NCCL's latency table gives a ring step over `route`: NET when it leaves the host, NVLink when every hop
/// is NVLink, else PCI (NCCL times every other intra-node path as PCI).
NcclHop step_hop(const Topology& topology, const std::vector<Hop>& route);

/// The slowest step class of `flows`' routes (NET, then PCI, then NVLink): the one whose extra latency paces a ring.
NcclHop slowest_hop(const Topology& topology, const std::vector<GpuFlow>& flows);

/// The flat rings of a communicator over `gpus` (a job, or a tensor or data-parallel group of one), `nics` NICs per
/// host: topology-aware order, per host its GPUs, NCCL's channels (as JobRings::channels).
JobRings group_rings(const std::vector<int>& gpus, int nics, const Topology& topology);

/// Where the job's hosts hold unequal numbers of its GPUs in `rings` (group_rings), which a hierarchical allreduce
/// cannot run over: "host H has n, host H0 has n0" (H0 the ring's first host); "" where every host holds as many.
std::string uneven_hosts(const JobRings& rings, const Topology& topology);

/// `rings` (group_rings) with a hierarchical allreduce's rings: per host its channel rings (host_ring_orders), and
/// per local index the inter-host ring; no flat channels. REQUIRES: uneven_hosts(rings, topology) is "".
JobRings hierarchical_rings(JobRings rings, const Topology& topology);

/// Every flow of the job's collectives: the channels' edges, or for hierarchical allreduce the intra-host rings' and
/// the inter-host rings' edges, each with its connection id (GpuFlow::flow) and the fraction of an allreduce's data it
/// carries: 2(N-1)/N / rings of it per edge of N-rank rings; hierarchical rings carry the full data inside hosts and
/// 1/G of it across.
std::vector<std::pair<GpuFlow, double>> job_flows(const JobConfig& job, const JobRings& rings);

/// The port hosts (GPU, uplink port) that `flows` need between racks (flow_hosts).
std::vector<std::pair<int, int>> ports_between_racks(const std::vector<GpuFlow>& flows, const Topology& topology);

/// The port hosts (GPU, uplink port) that the job's flows between racks need (Platform::port_host).
std::vector<std::pair<int, int>> cross_rack_ports(const JobConfig& job, const JobRings& rings,
                                                  const Topology& topology);

/// The port hosts (GPU, uplink port) an alltoall over the job's ranks needs between racks.
std::vector<std::pair<int, int>> alltoall_ports(const JobRings& rings, const Topology& topology);

/// What NCCL's tuning model sees of a communicator over `rings` (models/collectives/nccl_tuning.hpp): its ranks and
/// hosts, the GPUs' compute capability, whether its rings' steps inside a host run over NVLink, and its bus bandwidth
/// on the topology split into channels of NCCL's per-channel link bandwidth (20 GB/s per NVLink link on Volta and
/// Ampere, 12 GB/s per PCIe Gen3 x16 or 100 Gb/s NIC, topo.h). NCCL counts its channels in its own topology search;
/// this is that count for the bandwidth vtsim found, not a replay of the search. Hosts are taken as Intel (NCCL's 1 us
/// network overhead); GPUDirect RDMA where the transport is RDMA to the NIC (RoCE), not for PVRDMA or TCP, which stage
/// through memory. For a hierarchical allreduce, the bandwidth and channels are those of its intra-host rings, which
/// carry all of the data through each GPU (the inter-host rings carry 1/G of it). Nothing forced
/// (models/resolve/resolve.hpp job_nccl_communicator adds what a job forces).
NcclCommunicator nccl_communicator(const NcclDevice& device, const JobRings& rings, const Topology& topology);

}  // namespace vtsim
