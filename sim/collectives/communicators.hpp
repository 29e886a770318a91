#pragma once
// A job's collectives in the engine: the allreduce, allgather, reduce-scatter, broadcast, sendrecv and alltoall built
// at the scenario's fidelity on the rings models/network/rings.hpp lays over the topology.

#include <memory>
#include <utility>

#include "models/collectives/nccl_tuning.hpp"
#include "models/network/rings.hpp"
#include "models/network/topology.hpp"
#include "models/scenario/fidelity.hpp"
#include "models/scenario/job_config.hpp"
#include "sim/collectives/collective.hpp"
#include "sim/engine/platform.hpp"

namespace vtsim::sim {

/// The SimGrid hosts a flow from GPU `from` to GPU `to` (connection `flow`) runs between: within a rack the GPUs' own
/// hosts, whose route is Topology::route's; between racks the port hosts of the uplink port it takes (its rail's
/// leaf to the spine ECMP hashes it onto: Topology::uplink_port, Platform::port_host), so that the flows between two
/// racks spread over the spines as Topology::route(from, to, flow) says. REQUIRES: the platform was built with
/// ports_between_racks()' ports for the flow.
std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*> flow_hosts(int from, int to, int flow, const Topology& topology,
                                                               const Platform& platform);

/// A `collective` over the job's flat channel rings at `fidelity`, run as NCCL chooses for `nccl` (all_reduce: two
/// ring passes; all_gather, reduce_scatter: one). REQUIRES: as make_allreduce.
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

/// Whether the hierarchical allreduce over `rings` can run with one caller per host (make_host_allreduce) and give
/// each rank's times: two hosts or more, each holding G >= 2 of the job's GPUs; local index l's inter-host ring
/// visits the hosts in their order through each host's l-th GPU; the G flows from one host to the next have the same
/// latency (CM02 shares a link among flows in inverse proportion to their latency); and no link of an intra-host ring
/// edge is crossed by another of the job's flows (the edges are alone on their routes, so their transfers are
/// computed, the same for one caller as for G). What else could share the links (other jobs, vMotion, memory links)
/// is the caller's to rule out.
bool host_communicates_for_its_ranks(const JobRings& rings, const Topology& topology);

/// Horovod's hierarchical allreduce at flow fidelity with one caller per host (make_host_hierarchical_allreduce),
/// each on its host's first GPU: the G inter-host flows between two hosts are one flow that stands for them
/// (Platform::carry_class). REQUIRES: host_communicates_for_its_ranks(rings, topology); as make_allreduce, before
/// any communication or route ledger has asked for a route between the hosts' first GPUs.
std::unique_ptr<SimulatedCollective> make_host_allreduce(const JobRings& rings, const Topology& topology,
                                                         Platform& platform);

/// The job's allreduce at `fidelity`; a flat ring is run with NCCL's choice of algorithm and protocol for `nccl`
/// (make_nccl_allreduce, tallied in `counts`, which may be null). REQUIRES: a running engine whose platform is
/// `platform`, built with the ports cross_rack_ports() named.
std::unique_ptr<SimulatedCollective> make_allreduce(const JobConfig& job, const JobRings& rings,
                                                    const Topology& topology, const Platform& platform,
                                                    Fidelity fidelity, const NcclCommunicator& nccl,
                                                    NcclChoiceCounts* counts);

}  // namespace vtsim::sim
