#include "sim/communicators.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <map>
#include <tuple>

#include "models/collective_model.hpp"

namespace vtsim::sim {
namespace {

/// A ring of GPUs together with its connection id.
struct FlowRing {
  std::vector<int> gpus;
  int flow = 0;
};

bool hierarchical(const JobConfig& job) { return job.horovod.allreduce == AllreduceAlgorithm::hierarchical; }

std::vector<FlowRing> flat_rings(const JobRings& rings) {
  std::vector<FlowRing> all;
  for (std::size_t c = 0; c < rings.channels.size(); ++c) all.push_back({rings.channels[c], static_cast<int>(c)});
  return all;
}

std::vector<FlowRing> intra_rings(const JobRings& rings) {
  std::vector<FlowRing> all;
  for (const auto& host : rings.intra_host_channels) {
    for (std::size_t c = 0; c < host.size(); ++c) all.push_back({host[c], static_cast<int>(c)});
  }
  return all;
}

std::vector<FlowRing> inter_rings(const JobRings& rings) {
  std::vector<FlowRing> all;
  for (std::size_t l = 0; l < rings.inter_host.size(); ++l) all.push_back({rings.inter_host[l], static_cast<int>(l)});
  return all;
}

std::vector<GpuFlow> flows_of(const std::vector<FlowRing>& rings) {
  std::vector<GpuFlow> flows;
  for (const FlowRing& ring : rings) {
    const std::vector<GpuFlow> more = ring_flows(ring.gpus, ring.flow);
    flows.insert(flows.end(), more.begin(), more.end());
  }
  return flows;
}

/// The channels of a flat ring over `hosts` (each host's GPUs in ring order) with `nics` NICs per host.
std::vector<std::vector<int>> channel_rings(const std::vector<std::vector<int>>& hosts, int nics,
                                            const Topology& topology) {
  std::vector<std::vector<std::vector<int>>> orders;
  std::size_t count = hosts.size() > 1 ? static_cast<std::size_t>(std::max(1, nics)) : 1;  // one rail per NIC
  for (const auto& host : hosts) {
    orders.push_back(topology.host_ring_orders(host));
    count = std::max(count, orders.back().size());
  }
  std::vector<std::vector<int>> channels;
  for (std::size_t c = 0; c < count; ++c) {
    std::vector<int> ring;
    for (const auto& host_orders : orders) {
      std::vector<int> order = host_orders[c % host_orders.size()];
      if (hosts.size() > 1 && nics > 1) {
        const auto on_nic_c = std::find_if(order.begin(), order.end(), [&](int gpu) {
          return topology.nic_of(gpu) == static_cast<int>(c) % nics;
        });
        if (on_nic_c != order.end()) {
          // On rail-optimized cabling a flow between hosts takes its receiver's rail (Topology::rail): enter each
          // host at a GPU on NIC c % nics, so that the channel stays on rail c as NCCL keeps it. Else leave each host
          // from one (a GPU's NIC: Topology::nic_of), so that the channels spread over the NICs.
          std::rotate(order.begin(), topology.rail_count() > 1 ? on_nic_c : on_nic_c + 1, order.end());
        }
      }
      ring.insert(ring.end(), order.begin(), order.end());
    }
    // Identical rings take identical links: one of them carries their data as well.
    if (std::find(channels.begin(), channels.end(), ring) == channels.end()) channels.push_back(std::move(ring));
  }
  return channels;
}

}  // namespace

std::vector<std::pair<int, int>> ports_between_racks(const std::vector<GpuFlow>& flows, const Topology& topology) {
  std::vector<std::pair<int, int>> ports;
  for (const GpuFlow& flow : flows) {
    if (topology.location(flow.src).rack == topology.location(flow.dst).rack) continue;
    const int port = topology.uplink_port(flow.src, flow.dst, flow.flow);
    ports.emplace_back(flow.src, port);
    ports.emplace_back(flow.dst, port);
  }
  return ports;
}

std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*> flow_hosts(int from, int to, int flow, const Topology& topology,
                                                               const Platform& platform) {
  if (topology.location(from).rack == topology.location(to).rack) {
    return {platform.gpu_host(from), platform.gpu_host(to)};
  }
  const int port = topology.uplink_port(from, to, flow);
  return {platform.port_host(from, port), platform.port_host(to, port)};
}

NcclHop step_hop(const Topology& topology, const std::vector<Hop>& route) {
  bool all_nvlink = !route.empty();
  for (const Hop& hop : route) {
    const LinkClass link_class = topology.links()[static_cast<std::size_t>(hop.link)].link_class;
    if (link_class == LinkClass::nic || link_class == LinkClass::fabric) return NcclHop::net;
    all_nvlink &= link_class == LinkClass::nvlink;
  }
  return all_nvlink ? NcclHop::nvlink : NcclHop::pci;
}

namespace {

/// The slowest step class of `flows`' routes (NET, then PCI, then NVLink): the one whose extra latency paces a ring.
NcclHop slowest_hop(const Topology& topology, const std::vector<GpuFlow>& flows) {
  NcclHop slowest = NcclHop::nvlink;
  for (const GpuFlow& flow : flows) {
    const NcclHop hop = step_hop(topology, topology.route(flow.src, flow.dst, flow.flow));
    if (hop == NcclHop::net) return hop;
    if (hop == NcclHop::pci) slowest = hop;
  }
  return slowest;
}

/// A SimGrid group in which position p (on GPU gpu_of[p]) sends to next[p], as connection `flow`: a ring when
/// `next` is one cycle, an alltoall shift otherwise; each transfer at most `rate_cap_Bps` (0: no cap).
std::unique_ptr<RingGroup> permutation_group(const std::vector<int>& gpu_of, std::vector<int> next, int flow,
                                             const Topology& topology, const Platform& platform,
                                             double rate_cap_Bps = 0) {
  const std::size_t n = gpu_of.size();
  std::vector<RingEdge> edges(n);
  for (std::size_t position = 0; position < n; ++position) {
    const int from = gpu_of[position];
    const int to = gpu_of[static_cast<std::size_t>(next[position])];
    RingEdge& edge = edges[position];
    std::tie(edge.source, edge.destination) = flow_hosts(from, to, flow, topology, platform);
    // Within a rack the ranks' actors run on their GPUs' hosts (sim/simulation.cpp).
    edge.between_rank_hosts = topology.location(from).rack == topology.location(to).rack;
    const std::vector<Hop> route = topology.route(from, to, flow);
    edge.latency_s = n > 1 ? topology.latency_s(route) : 0.0;
    edge.hop = step_hop(topology, route);
    edge.rate_cap_Bps = rate_cap_Bps;
  }
  return std::make_unique<RingGroup>(std::move(next), std::move(edges));
}

/// A SimGrid ring over `gpus` in that order, as connection `flow`, whose ranks are numbered by `position_of`; each
/// transfer at most `rate_cap_Bps` (0: no cap).
std::unique_ptr<RingGroup> ring_group(const std::vector<int>& gpus, int flow, const std::map<int, int>& position_of,
                                      const Topology& topology, const Platform& platform, double rate_cap_Bps = 0) {
  const std::size_t n = gpus.size();
  std::vector<int> next(n);
  std::vector<int> gpu_of(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto position = static_cast<std::size_t>(position_of.at(gpus[i]));
    gpu_of[position] = gpus[i];
    next[position] = position_of.at(gpus[(i + 1) % n]);
  }
  return permutation_group(gpu_of, std::move(next), flow, topology, platform, rate_cap_Bps);
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

JobRings group_rings(const std::vector<int>& gpus, int nics, const Topology& topology) {
  JobRings rings;
  rings.ring = topology.ring_order(gpus);
  for (int gpu : rings.ring) {
    const int host = topology.location(gpu).host;
    if (rings.intra_host.empty() || topology.location(rings.intra_host.back().front()).host != host) {
      rings.intra_host.emplace_back();
    }
    rings.intra_host.back().push_back(gpu);
  }
  rings.channels = channel_rings(rings.intra_host, nics, topology);
  return rings;
}

std::string uneven_hosts(const JobRings& rings, const Topology& topology) {
  const std::size_t per_host = rings.intra_host.front().size();
  for (const auto& host_gpus : rings.intra_host) {
    if (host_gpus.size() == per_host) continue;
    return "host " + std::to_string(topology.location(host_gpus.front()).host) + " has " +
           std::to_string(host_gpus.size()) + ", host " +
           std::to_string(topology.location(rings.intra_host.front().front()).host) + " has " +
           std::to_string(per_host);
  }
  return "";
}

JobRings hierarchical_rings(JobRings rings, const Topology& topology) {
  assert(uneven_hosts(rings, topology).empty() && "the same number of the job's GPUs on every host");
  rings.channels.clear();
  const std::size_t per_host = rings.intra_host.front().size();
  for (const auto& host_gpus : rings.intra_host) {
    rings.intra_host_channels.push_back(topology.host_ring_orders(host_gpus));
  }
  rings.inter_host.assign(per_host, {});
  for (const auto& host_gpus : rings.intra_host) {
    for (std::size_t l = 0; l < per_host; ++l) rings.inter_host[l].push_back(host_gpus[l]);
  }
  return rings;
}

std::vector<std::pair<GpuFlow, double>> job_flows(const JobConfig& job, const JobRings& rings) {
  std::vector<std::pair<GpuFlow, double>> traffic;
  const auto add = [&](const std::vector<FlowRing>& group, double share) {
    for (const FlowRing& ring : group) {
      const double sent = ring_sent_fraction(Collective::allreduce, static_cast<int>(ring.gpus.size()));
      for (const GpuFlow& flow : ring_flows(ring.gpus, ring.flow)) traffic.push_back({flow, sent * share});
    }
  };
  if (hierarchical(job)) {
    add(intra_rings(rings), 1.0 / static_cast<double>(rings.intra_host_channels.front().size()));
    add(inter_rings(rings), 1.0 / static_cast<double>(rings.inter_host.size()));
  } else {
    add(flat_rings(rings), 1.0 / static_cast<double>(rings.channels.size()));
  }
  return traffic;
}

std::vector<std::pair<int, int>> cross_rack_ports(const JobConfig& job, const JobRings& rings,
                                                  const Topology& topology) {
  std::vector<GpuFlow> flows;
  for (const auto& [flow, share] : job_flows(job, rings)) flows.push_back(flow);
  return ports_between_racks(flows, topology);
}

NcclCommunicator nccl_communicator(const NcclDevice& device, const JobRings& rings, const Topology& topology) {
  NcclCommunicator comm;
  comm.ranks = static_cast<int>(rings.ring.size());
  comm.nodes = static_cast<int>(rings.intra_host.size());
  comm.compute_capability = device.compute_capability;
  comm.nvlink_intra = false;
  for (const auto& host : rings.intra_host) {
    if (host.size() < 2) continue;
    comm.nvlink_intra = true;
    for (const Hop& hop : topology.route(host[0], host[1])) {
      comm.nvlink_intra &= topology.links()[static_cast<std::size_t>(hop.link)].link_class == LinkClass::nvlink;
    }
    break;
  }
  comm.gpu_direct_nic = device.gpudirect_rdma;
  if (comm.ranks < 2) return comm;
  // A hierarchical allreduce's GPU runs the intra-host rings' channels (the inter-host part takes 1/G of the data).
  const bool flat = !rings.channels.empty();
  const FlowBottleneck ring = concurrent_bottleneck(topology, flows_of(flat ? flat_rings(rings) : intra_rings(rings)));
  const std::size_t rings_at_once = flat ? rings.channels.size() : rings.intra_host_channels.front().size();
  const double bus_GBps = ring.rate_Bps * static_cast<double>(rings_at_once) / 1e9;
  const double per_channel_GBps = (comm.nodes == 1 || !flat) && comm.nvlink_intra
                                      ? nccl_nvlink_channel_GBps(comm.compute_capability)
                                      : 12.0;
  // NCCL's ring search looks for at most MAXCHANNELS / 2 channels (src/init.cc: ringGraph->maxChannels =
  // MAXCHANNELS/2), which ncclTopoPostset then runs twice.
  comm.channels = std::clamp(static_cast<int>(std::lround(bus_GBps / per_channel_GBps)), 1, kNcclMaxChannels / 2);
  comm.channel_bandwidth_GBps = bus_GBps / comm.channels;
  comm.same_channels = rings_at_once == 1;
  // NVLS: every rank on one host whose GPUs meet in a Hopper NVSwitch (compute capability 9.0 on; nccl_nvls_graph).
  if (comm.nodes == 1 && comm.nvlink_intra && topology.nvlink_layout() == NvlinkLayout::nvswitch) {
    const NvlsGraph nvls = nccl_nvls_graph(comm.ranks, device.nvlink_links, comm.compute_capability);
    comm.nvls_channels = nvls.channels;
    comm.nvls_intra_GBps = nvls.intra_GBps;
    comm.nvls_inter_GBps = nvls.inter_GBps;
  }
  return comm;
}

std::unique_ptr<SimulatedCollective> make_collective(NcclCollective collective, const JobRings& rings,
                                                     const Topology& topology, const Platform& platform,
                                                     Fidelity fidelity, const NcclCommunicator& nccl,
                                                     NcclChoiceCounts* counts) {
  const int phases = collective == NcclCollective::all_reduce ? 2 : 1;
  const bool chain = collective == NcclCollective::broadcast || collective == NcclCollective::reduce;
  if (fidelity == Fidelity::analytic) {
    const std::vector<GpuFlow> flows = flows_of(flat_rings(rings));
    const FlowBottleneck ring = concurrent_bottleneck(topology, flows);
    const double rate_Bps = ring.rate_Bps * nccl_channel_bandwidth_fraction(nccl);
    const NcclHop hop = slowest_hop(topology, flows);
    const int n = static_cast<int>(rings.ring.size());
    const double channels = static_cast<double>(rings.channels.size());
    return make_nccl_allreduce(make_analytic_allreduce([=](double bytes, NcclProtocol protocol) {
                                 const double alpha = ring.latency_s + nccl_step_extra_s(hop, protocol);
                                 return chain ? chain_time_s(n, bytes / channels, rate_Bps, alpha)
                                              : phases * ring_allgather_time_s(n, bytes / channels, rate_Bps, alpha);
                               }, n),
                               nccl, counts, collective);
  }
  const std::map<int, int> position_of = positions(rings.ring);
  const double cap_Bps = forced_channels_cap_Bps(nccl, topology, flat_rings(rings));
  std::vector<std::unique_ptr<RingGroup>> groups;
  for (const FlowRing& ring : flat_rings(rings)) {
    groups.push_back(ring_group(ring.gpus, ring.flow, position_of, topology, platform, cap_Bps));
  }
  std::unique_ptr<SimulatedCollective> run = chain ? make_chain(std::move(groups), collective == NcclCollective::reduce)
                                                   : make_ring_collective(std::move(groups), fidelity, phases);
  return make_nccl_allreduce(std::move(run), nccl, counts, collective);
}

std::vector<std::pair<int, int>> alltoall_ports(const JobRings& rings, const Topology& topology) {
  std::vector<GpuFlow> flows;
  const std::size_t n = rings.ring.size();
  for (std::size_t k = 1; k < n; ++k) {
    for (std::size_t p = 0; p < n; ++p) flows.push_back({rings.ring[p], rings.ring[(p + k) % n], static_cast<int>(k)});
  }
  return ports_between_racks(flows, topology);
}

std::unique_ptr<SimulatedCollective> make_sendrecv(const JobRings& rings, const Topology& topology,
                                                   const Platform& platform, Fidelity fidelity) {
  const std::map<int, int> position_of = positions(rings.ring);
  std::vector<std::unique_ptr<RingGroup>> groups;
  for (const FlowRing& ring : flat_rings(rings)) {
    groups.push_back(ring_group(ring.gpus, ring.flow, position_of, topology, platform));
  }
  const double share = 1.0 / static_cast<double>(groups.size());
  return make_exchange(std::move(groups), share, fidelity);
}

std::unique_ptr<SimulatedCollective> make_alltoall(const JobRings& rings, const Topology& topology,
                                                   const Platform& platform, Fidelity fidelity) {
  const std::size_t n = rings.ring.size();
  std::vector<std::unique_ptr<RingGroup>> shifts;
  for (std::size_t k = 1; k < n; ++k) {
    std::vector<int> next(n);
    for (std::size_t p = 0; p < n; ++p) next[p] = static_cast<int>((p + k) % n);
    shifts.push_back(permutation_group(rings.ring, std::move(next), static_cast<int>(k), topology, platform));
  }
  return make_exchange(std::move(shifts), 1.0 / static_cast<double>(n), fidelity);
}

std::unique_ptr<SimulatedCollective> make_allreduce(const JobConfig& job, const JobRings& rings,
                                                    const Topology& topology, const Platform& platform,
                                                    Fidelity fidelity, const NcclCommunicator& nccl,
                                                    NcclChoiceCounts* counts) {
  if (!hierarchical(job)) {
    return make_collective(NcclCollective::all_reduce, rings, topology, platform, fidelity, nccl, counts);
  }
  if (fidelity == Fidelity::analytic) {
    const FlowBottleneck intra = concurrent_bottleneck(topology, flows_of(intra_rings(rings)));
    const FlowBottleneck inter = concurrent_bottleneck(topology, flows_of(inter_rings(rings)));
    const int hosts = static_cast<int>(rings.intra_host.size());
    const int per_host = static_cast<int>(rings.inter_host.size());
    // The intra-host rings of a host split its data: each flow carries 1/rings of it, at the shared rate.
    const double intra_rate = intra.rate_Bps * static_cast<double>(rings.intra_host_channels.front().size());
    const NcclHop intra_hop = slowest_hop(topology, flows_of(intra_rings(rings)));
    const NcclHop inter_hop = slowest_hop(topology, flows_of(inter_rings(rings)));
    return make_analytic_allreduce([=](double bytes, NcclProtocol protocol) {
      return hierarchical_allreduce_time_s(hosts, per_host, bytes, intra_rate,
                                           intra.latency_s + nccl_step_extra_s(intra_hop, protocol), inter.rate_Bps,
                                           inter.latency_s + nccl_step_extra_s(inter_hop, protocol));
    }, hosts * per_host);
  }
  std::vector<std::vector<std::unique_ptr<RingGroup>>> intra;
  for (std::size_t h = 0; h < rings.intra_host.size(); ++h) {
    const std::map<int, int> position_of = positions(rings.intra_host[h]);
    intra.emplace_back();
    const auto& host_channels = rings.intra_host_channels[h];
    for (std::size_t c = 0; c < host_channels.size(); ++c) {
      intra.back().push_back(ring_group(host_channels[c], static_cast<int>(c), position_of, topology, platform));
    }
  }
  std::vector<std::unique_ptr<RingGroup>> inter;
  for (const FlowRing& ring : inter_rings(rings)) {
    inter.push_back(ring_group(ring.gpus, ring.flow, positions(ring.gpus), topology, platform));
  }
  return make_hierarchical_allreduce(std::move(intra), std::move(inter), fidelity);
}

}  // namespace vtsim::sim
