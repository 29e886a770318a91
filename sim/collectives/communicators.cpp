#include "sim/collectives/communicators.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "models/collectives/collective_model.hpp"
#include "models/network/analytic_collectives.hpp"
#include "models/network/flow_analysis.hpp"

namespace vtsim::sim {

std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*> flow_hosts(int from, int to, int flow, const Topology& topology,
                                                               const Platform& platform) {
  if (topology.location(from).rack == topology.location(to).rack) {
    return {platform.gpu_host(from), platform.gpu_host(to)};
  }
  const int port = topology.uplink_port(from, to, flow);
  return {platform.port_host(from, port), platform.port_host(to, port)};
}

namespace {

/// The route ledger a group's edges are counted in at `fidelity` (RingGroup): none at step fidelity, whose every
/// step is a SimGrid communication (the reference the others are checked against).
RouteLedger* ledger_at(Fidelity fidelity, const Platform& platform) {
  return fidelity == Fidelity::step ? nullptr : &platform.route_ledger();
}

/// Where the actors that run a group's positions are.
enum class Callers {
  ranks,     ///< each position's rank, on its GPU's host
  elsewhere  ///< one actor for several positions (a host's): no edge is a rendezvous between rank hosts
};

/// A SimGrid group in which position p (on GPU gpu_of[p]) sends to next[p], as connection `flow`: a ring when
/// `next` is one cycle, an alltoall shift otherwise; each transfer at most `rate_cap_Bps` (0: no cap). Its edges are
/// counted in `ledger` (may be null).
std::unique_ptr<RingGroup> permutation_group(const std::vector<int>& gpu_of, std::vector<int> next, int flow,
                                             const Topology& topology, const Platform& platform, RouteLedger* ledger,
                                             double rate_cap_Bps = 0, Callers callers = Callers::ranks) {
  const std::size_t n = gpu_of.size();
  std::vector<RingEdge> edges(n);
  for (std::size_t position = 0; position < n; ++position) {
    const int from = gpu_of[position];
    const int to = gpu_of[static_cast<std::size_t>(next[position])];
    RingEdge& edge = edges[position];
    std::tie(edge.source, edge.destination) = flow_hosts(from, to, flow, topology, platform);
    // Within a rack the ranks' actors run on their GPUs' hosts (sim/engine/simulation.cpp).
    edge.between_rank_hosts = callers == Callers::ranks && topology.location(from).rack == topology.location(to).rack;
    const std::vector<Hop> route = topology.route(from, to, flow);
    edge.latency_s = n > 1 ? topology.latency_s(route) : 0.0;
    edge.hop = step_hop(topology, route);
    edge.rate_cap_Bps = rate_cap_Bps;
  }
  return std::make_unique<RingGroup>(std::move(next), std::move(edges), ledger);
}

/// A SimGrid ring over `gpus` in that order, as connection `flow`, whose ranks are numbered by `position_of`; each
/// transfer at most `rate_cap_Bps` (0: no cap). Its edges are counted in `ledger` (may be null).
std::unique_ptr<RingGroup> ring_group(const std::vector<int>& gpus, int flow, const std::map<int, int>& position_of,
                                      const Topology& topology, const Platform& platform, RouteLedger* ledger,
                                      double rate_cap_Bps = 0, Callers callers = Callers::ranks) {
  const std::size_t n = gpus.size();
  std::vector<int> next(n);
  std::vector<int> gpu_of(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto position = static_cast<std::size_t>(position_of.at(gpus[i]));
    gpu_of[position] = gpus[i];
    next[position] = position_of.at(gpus[(i + 1) % n]);
  }
  return permutation_group(gpu_of, std::move(next), flow, topology, platform, ledger, rate_cap_Bps, callers);
}

/// The cap on each transfer of `rings`, when `nccl`'s forced channels move only a fraction of what the rings reach
/// together on the topology (nccl_channel_bandwidth_fraction): that fraction of their rate; 0 when they move all of
/// it (the rates are then not searched).
double forced_channels_cap_Bps(const NcclCommunicator& nccl, const Topology& topology,
                               const std::vector<FlowRing>& rings) {
  const double fraction = nccl_channel_bandwidth_fraction(nccl);
  return fraction < 1 ? fraction * concurrent_bottleneck(topology, flows_of(rings)).rate_Bps : 0.0;
}

std::map<int, int> positions(const std::vector<int>& gpus) {
  std::map<int, int> position_of;
  for (std::size_t p = 0; p < gpus.size(); ++p) position_of[gpus[p]] = static_cast<int>(p);
  return position_of;
}

}  // namespace

std::unique_ptr<SimulatedCollective> make_collective(NcclCollective collective, const JobRings& rings,
                                                     const Topology& topology, const Platform& platform,
                                                     Fidelity fidelity, const NcclCommunicator& nccl,
                                                     NcclChoiceCounts* counts) {
  const bool chain = collective == NcclCollective::broadcast || collective == NcclCollective::reduce;
  if (fidelity == Fidelity::analytic) {
    return make_nccl_allreduce(make_analytic_allreduce(flat_collective_time(collective, rings, topology, nccl),
                                                       static_cast<int>(rings.ring.size())),
                               nccl, counts, collective);
  }
  const std::map<int, int> position_of = positions(rings.ring);
  const double cap_Bps = forced_channels_cap_Bps(nccl, topology, flat_rings(rings));
  std::vector<std::unique_ptr<RingGroup>> groups;
  for (const FlowRing& ring : flat_rings(rings)) {
    groups.push_back(
        ring_group(ring.gpus, ring.flow, position_of, topology, platform, ledger_at(fidelity, platform), cap_Bps));
  }
  std::unique_ptr<SimulatedCollective> run =
      chain ? make_chain(std::move(groups), collective == NcclCollective::reduce)
            : make_ring_collective(std::move(groups), fidelity, collective_of(collective));
  return make_nccl_allreduce(std::move(run), nccl, counts, collective);
}

std::unique_ptr<SimulatedCollective> make_sendrecv(const JobRings& rings, const Topology& topology,
                                                   const Platform& platform, Fidelity fidelity) {
  const std::map<int, int> position_of = positions(rings.ring);
  std::vector<std::unique_ptr<RingGroup>> groups;
  for (const FlowRing& ring : flat_rings(rings)) {
    groups.push_back(ring_group(ring.gpus, ring.flow, position_of, topology, platform, ledger_at(fidelity, platform)));
  }
  const double share = 1.0 / static_cast<double>(groups.size());
  return make_exchange(std::move(groups), share, fidelity);
}

std::unique_ptr<SimulatedCollective> make_alltoall(const JobRings& rings, const Topology& topology,
                                                   const Platform& platform, Fidelity fidelity) {
  const std::size_t n = rings.ring.size();
  const AlltoallAlgorithm alltoall(static_cast<int>(n));
  std::vector<std::unique_ptr<RingGroup>> shifts;
  for (int k = 1; k <= alltoall.shifts(); ++k) {  // shift k: position p sends to p + k
    std::vector<int> next(n);
    for (std::size_t p = 0; p < n; ++p) next[p] = static_cast<int>((p + static_cast<std::size_t>(k)) % n);
    shifts.push_back(
        permutation_group(rings.ring, std::move(next), k, topology, platform, ledger_at(fidelity, platform)));
  }
  return make_exchange(std::move(shifts), alltoall.shift_fraction(), fidelity);
}

namespace {

/// The routes of the G flows from host h to the next host of the inter-host rings: local index l's as connection l.
std::vector<std::vector<Hop>> class_members(const JobRings& rings, const Topology& topology, std::size_t h) {
  const std::size_t to = (h + 1) % rings.intra_host.size();
  std::vector<std::vector<Hop>> members;
  for (std::size_t l = 0; l < rings.inter_host.size(); ++l) {
    members.push_back(topology.route(rings.inter_host[l][h], rings.inter_host[l][to], static_cast<int>(l)));
  }
  return members;
}

/// Per host, its intra-host channel rings at `fidelity`, run by `callers`.
std::vector<std::vector<std::unique_ptr<RingGroup>>> intra_host_groups(const JobRings& rings, const Topology& topology,
                                                                       const Platform& platform, Fidelity fidelity,
                                                                       Callers callers) {
  std::vector<std::vector<std::unique_ptr<RingGroup>>> intra;
  for (std::size_t h = 0; h < rings.intra_host.size(); ++h) {
    const std::map<int, int> position_of = positions(rings.intra_host[h]);
    intra.emplace_back();
    const auto& host_channels = rings.intra_host_channels[h];
    for (std::size_t c = 0; c < host_channels.size(); ++c) {
      intra.back().push_back(ring_group(host_channels[c], static_cast<int>(c), position_of, topology, platform,
                                        ledger_at(fidelity, platform), 0, callers));
    }
  }
  return intra;
}

}  // namespace

bool host_communicates_for_its_ranks(const JobRings& rings, const Topology& topology) {
  const std::size_t gpus_per_host = rings.inter_host.size();
  if (gpus_per_host < 2 || rings.intra_host.size() < 2) return false;
  for (std::size_t h = 0; h < rings.intra_host.size(); ++h) {
    if (rings.intra_host[h].size() != gpus_per_host) return false;
    for (std::size_t l = 0; l < gpus_per_host; ++l) {
      if (rings.inter_host[l].size() != rings.intra_host.size() || rings.inter_host[l][h] != rings.intra_host[h][l]) {
        return false;
      }
    }
  }
  // Every directed link the job's flows cross, with its users: the intra-host rings' edges and the inter-host flows.
  std::map<std::pair<int, bool>, int> users;
  std::vector<std::vector<Hop>> intra_edges;
  for (const FlowRing& ring : intra_rings(rings)) {
    for (std::size_t i = 0; i < ring.gpus.size(); ++i) {
      intra_edges.push_back(topology.intra_host_route(ring.gpus[i], ring.gpus[(i + 1) % ring.gpus.size()]));
      for (const Hop& hop : intra_edges.back()) ++users[{hop.link, hop.forward}];
    }
  }
  for (std::size_t h = 0; h < rings.intra_host.size(); ++h) {
    const std::vector<std::vector<Hop>> members = class_members(rings, topology, h);
    const double latency_s = topology.latency_s(members.front());
    for (const std::vector<Hop>& member : members) {
      // CM02 shares a link among flows in inverse proportion to their latency: members of one latency share alike.
      if (std::abs(topology.latency_s(member) - latency_s) > 1e-12 * latency_s) return false;
      for (const Hop& hop : member) ++users[{hop.link, hop.forward}];
    }
  }
  // Each intra-host ring edge alone on its route among the job's flows, so that the host's ranks end each intra-host
  // pass as they would one by one (no edge's transfer slows another's).
  for (const std::vector<Hop>& edge : intra_edges) {
    for (const Hop& hop : edge) {
      if (users[{hop.link, hop.forward}] > 1) return false;
    }
  }
  return true;
}

std::unique_ptr<SimulatedCollective> make_host_allreduce(const JobRings& rings, const Topology& topology,
                                                         Platform& platform) {
  assert(host_communicates_for_its_ranks(rings, topology));
  // Host h sends to host h + 1 from its first GPU's host, one flow for the G inter-host rings' flows.
  const std::size_t hosts = rings.intra_host.size();
  std::vector<int> next(hosts);
  std::vector<RingEdge> edges(hosts);
  for (std::size_t h = 0; h < hosts; ++h) {
    const std::size_t to = (h + 1) % hosts;
    next[h] = static_cast<int>(to);
    const std::vector<std::vector<Hop>> members = class_members(rings, topology, h);
    RingEdge& edge = edges[h];
    edge.latency_s = platform.carry_class(rings.intra_host[h].front(), rings.intra_host[to].front(), members, topology);
    edge.source = platform.gpu_host(rings.intra_host[h].front());
    edge.destination = platform.gpu_host(rings.intra_host[to].front());
    edge.hop = step_hop(topology, members.front());
    edge.between_rank_hosts = true;  // the hosts' actors run on their first GPUs' hosts
  }
  return make_host_hierarchical_allreduce(
      intra_host_groups(rings, topology, platform, Fidelity::flow, Callers::elsewhere),
      std::make_unique<RingGroup>(std::move(next), std::move(edges), &platform.route_ledger()));
}

std::unique_ptr<SimulatedCollective> make_allreduce(const JobConfig& job, const JobRings& rings,
                                                    const Topology& topology, const Platform& platform,
                                                    Fidelity fidelity, const NcclCommunicator& nccl,
                                                    NcclChoiceCounts* counts) {
  if (!runs_hierarchical(job)) {
    return make_collective(NcclCollective::all_reduce, rings, topology, platform, fidelity, nccl, counts);
  }
  if (fidelity == Fidelity::analytic) {
    const int ranks = static_cast<int>(rings.intra_host.size()) * static_cast<int>(rings.inter_host.size());
    return make_analytic_allreduce(hierarchical_allreduce_time(rings, topology), ranks);
  }
  std::vector<std::vector<std::unique_ptr<RingGroup>>> intra =
      intra_host_groups(rings, topology, platform, fidelity, Callers::ranks);
  std::vector<std::unique_ptr<RingGroup>> inter;
  for (const FlowRing& ring : inter_rings(rings)) {
    inter.push_back(
        ring_group(ring.gpus, ring.flow, positions(ring.gpus), topology, platform, ledger_at(fidelity, platform)));
  }
  return make_hierarchical_allreduce(std::move(intra), std::move(inter), fidelity);
}

}  // namespace vtsim::sim
