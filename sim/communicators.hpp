#pragma once
// A job's communicators: its rank order, the rings NCCL lays over its GPUs at once (channels: over the pair links of a
// full NVLink mesh, out of each host through each NIC), for hierarchical allreduce its intra-host and inter-host
// rings; the allreduce built on them at the scenario's fidelity; and the bytes each ring edge carries.

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/fidelity.hpp"
#include "models/job_config.hpp"
#include "sim/collective.hpp"
#include "sim/flow_analysis.hpp"
#include "sim/platform.hpp"
#include "sim/topology.hpp"

namespace vtsim::sim {

/// The communicator layout of a job.
struct JobRings {
  std::vector<int> ring;                         ///< all the job's GPUs, topology-aware order: rank positions
  /// The distinct rings the flat allreduce runs at once, each over all of `ring`'s GPUs; the data is split equally.
  /// Channel c of a job spanning hosts leaves each host from a GPU on NIC c % nics (rails), or on rail-optimized
  /// cabling enters each host at one and so stays on rail c; on a full NVLink mesh the channels walk the hosts' GPUs
  /// in every order (Topology::host_ring_orders).
  std::vector<std::vector<int>> channels;
  std::vector<std::vector<int>> intra_host;      ///< per host of the job, its GPUs in ring order
  std::vector<std::vector<std::vector<int>>> intra_host_channels;  ///< per host, its rings (host_ring_orders)
  std::vector<std::vector<int>> inter_host;      ///< hierarchical only: per local index, the GPUs with it on each host
};

/// The class NCCL's latency table gives a ring step over `route`: NET when it leaves the host, NVLink when every hop
/// is NVLink, else PCI (NCCL times every other intra-node path as PCI).
NcclHop step_hop(const Topology& topology, const std::vector<Hop>& route);

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

/// The SimGrid hosts a flow from GPU `from` to GPU `to` (connection `flow`) runs between: within a rack the GPUs' own
/// hosts, whose route is Topology::route's; between racks the port hosts of the uplink port it takes (its rail's
/// leaf to the spine ECMP hashes it onto: Topology::uplink_port, Platform::port_host), so that the flows between two
/// racks spread over the spines as Topology::route(from, to, flow) says. REQUIRES: the platform was built with
/// ports_between_racks()' ports for the flow.
std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*> flow_hosts(int from, int to, int flow, const Topology& topology,
                                                               const Platform& platform);

/// The port hosts (GPU, uplink port) that `flows` need between racks (flow_hosts).
std::vector<std::pair<int, int>> ports_between_racks(const std::vector<GpuFlow>& flows, const Topology& topology);

/// The port hosts (GPU, uplink port) that the job's flows between racks need (Platform::port_host).
std::vector<std::pair<int, int>> cross_rack_ports(const JobConfig& job, const JobRings& rings,
                                                  const Topology& topology);

/// The GPUs as NCCL's tuning model sees them.
struct NcclDevice {
  int compute_capability = 0;   ///< e.g. 80 for an A100
  int nvlink_links = 0;         ///< NVLink links per GPU (NVLS's channels on a Hopper NVSwitch)
  bool gpudirect_rdma = false;  ///< the transport moves data between the GPU and the NIC directly (RoCE, InfiniBand)
};

/// What NCCL's tuning model sees of a communicator over `rings` (models/nccl_tuning.hpp): its ranks and hosts, the
/// GPUs' compute capability, whether its rings' steps inside a host run over NVLink, and its bus bandwidth on the
/// topology split into channels of NCCL's per-channel link bandwidth (20 GB/s per NVLink link on Volta and Ampere,
/// 12 GB/s per PCIe Gen3 x16 or 100 Gb/s NIC, topo.h). NCCL counts its channels in its own topology search; this is
/// that count for the bandwidth vtsim found, not a replay of the search. Hosts are taken as Intel (NCCL's 1 us network
/// overhead); GPUDirect RDMA where the transport is RDMA to the NIC (RoCE), not for PVRDMA or TCP, which stage through
/// memory. For a hierarchical allreduce, the bandwidth and channels are those of its intra-host rings, which carry all
/// of the data through each GPU (the inter-host rings carry 1/G of it). Nothing forced (sim/resolve.hpp
/// job_nccl_communicator adds what a job forces).
NcclCommunicator nccl_communicator(const NcclDevice& device, const JobRings& rings, const Topology& topology);

/// A `collective` over the job's flat channel rings at `fidelity`, run as NCCL chooses for `nccl` (all_reduce: two
/// ring phases; all_gather, reduce_scatter: one). REQUIRES: as make_allreduce.
std::unique_ptr<SimulatedCollective> make_collective(NcclCollective collective, const JobRings& rings,
                                                     const Topology& topology, const Platform& platform,
                                                     Fidelity fidelity, const NcclCommunicator& nccl,
                                                     NcclChoiceCounts* counts);

/// nccl-tests' sendrecv over the job's ranks: each sends the whole buffer to the next rank of the ring order (over
/// every channel ring, an equal share each) while receiving from the previous one. NCCL runs point-to-point
/// operations outside its collective tuning model: Simple's per-step latency, no base latency. At `analytic`
/// fidelity it runs as `flow`. REQUIRES: as make_allreduce.
std::unique_ptr<SimulatedCollective> make_sendrecv(const JobRings& rings, const Topology& topology,
                                                   const Platform& platform, Fidelity fidelity);

/// nccl-tests' alltoall over the job's ranks: each sends 1/N of the buffer to every other rank, as N - 1 shifts at
/// once (shift k: rank p to rank p + k, connection k), each an exchange of Simple's latency. At `analytic` fidelity
/// it runs as `flow`. REQUIRES: as make_allreduce, with the ports of alltoall_ports().
std::unique_ptr<SimulatedCollective> make_alltoall(const JobRings& rings, const Topology& topology,
                                                   const Platform& platform, Fidelity fidelity);

/// The port hosts (GPU, uplink port) an alltoall over the job's ranks needs between racks.
std::vector<std::pair<int, int>> alltoall_ports(const JobRings& rings, const Topology& topology);

/// The job's allreduce at `fidelity`; a flat ring is run with NCCL's choice of algorithm and protocol for `nccl`
/// (make_nccl_allreduce, tallied in `counts`, which may be null). REQUIRES: a running engine whose platform is
/// `platform`, built with the ports cross_rack_ports() named.
std::unique_ptr<SimulatedCollective> make_allreduce(const JobConfig& job, const JobRings& rings,
                                                    const Topology& topology, const Platform& platform,
                                                    Fidelity fidelity, const NcclCommunicator& nccl,
                                                    NcclChoiceCounts* counts);

}  // namespace vtsim::sim
