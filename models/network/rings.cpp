#include "models/network/rings.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "models/collectives/collective_model.hpp"

namespace vtsim {
namespace {

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
        const auto on_nic_c = std::find_if(order.begin(), order.end(),
                                           [&](int gpu) { return topology.nic_of(gpu) == static_cast<int>(c) % nics; });
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

bool runs_hierarchical(const JobConfig& job) { return job.horovod.allreduce == AllreduceAlgorithm::hierarchical; }

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

NcclHop step_hop(const Topology& topology, const std::vector<Hop>& route) {
  bool all_nvlink = !route.empty();
  for (const Hop& hop : route) {
    const LinkClass link_class = topology.links()[static_cast<std::size_t>(hop.link)].link_class;
    if (link_class == LinkClass::nic || link_class == LinkClass::fabric) return NcclHop::net;
    all_nvlink &= link_class == LinkClass::nvlink;
  }
  return all_nvlink ? NcclHop::nvlink : NcclHop::pci;
}

NcclHop slowest_hop(const Topology& topology, const std::vector<GpuFlow>& flows) {
  NcclHop slowest = NcclHop::nvlink;
  for (const GpuFlow& flow : flows) {
    const NcclHop hop = step_hop(topology, topology.route(flow.src, flow.dst, flow.flow));
    if (hop == NcclHop::net) return hop;
    if (hop == NcclHop::pci) slowest = hop;
  }
  return slowest;
}

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
      // Each ring runs an allreduce (a hierarchical one's intra-host reduce-scatter and allgather are its two passes).
      const double sent = RingAlgorithm(Collective::allreduce, static_cast<int>(ring.gpus.size())).sent_fraction();
      for (const GpuFlow& flow : ring_flows(ring.gpus, ring.flow)) traffic.push_back({flow, sent * share});
    }
  };
  if (runs_hierarchical(job)) {
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

std::vector<std::pair<int, int>> alltoall_ports(const JobRings& rings, const Topology& topology) {
  std::vector<GpuFlow> flows;
  const std::size_t n = rings.ring.size();
  for (std::size_t k = 1; k < n; ++k) {
    for (std::size_t p = 0; p < n; ++p) flows.push_back({rings.ring[p], rings.ring[(p + k) % n], static_cast<int>(k)});
  }
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
  const double per_channel_GBps =
      (comm.nodes == 1 || !flat) && comm.nvlink_intra ? nccl_nvlink_channel_GBps(comm.compute_capability) : 12.0;
  // NCCL's ring search looks for at most MAXCHANNELS / 2 channels (src/init.cc: ringGraph->maxChannels =
  // MAXCHANNELS/2), which ncclTopoPostset then runs twice.
  comm.channels = std::clamp(static_cast<int>(std::lround(bus_GBps / per_channel_GBps)), 1, kNcclMaxChannels / 2);
  comm.channel_bandwidth_GBps = bus_GBps / comm.channels;
  comm.same_channels = rings_at_once == 1;
  // NVLS: every rank on one host whose GPUs meet in a Hopper NVSwitch (compute capability 9.0 on; nccl_nvls_graph).
  if (comm.nodes == 1 && comm.nvlink_intra && topology.nvlink_layout() == NvlinkLayout::nvswitch) {
    const NcclGraph nvls = nccl_nvls_graph(comm.ranks, device.nvlink_links, comm.compute_capability);
    comm.nvls_channels = nvls.channels;
    comm.nvls_intra_GBps = nvls.intra_GBps;
    comm.nvls_inter_GBps = nvls.inter_GBps;
  }
  // CollNet's graphs, for a flat communicator across nodes with as many ranks on every node (used only where the job
  // enables CollNet; NCCL takes each graph's least bandwidth over the ranks, which vtsim does not replay: uneven nodes
  // get no CollNet): each GPU's bandwidth inside its node is what one host's own rings reach
  // through it (all of them at once), the node's to the network what the flat rings reach across nodes.
  comm.nvswitch = topology.nvlink_layout() == NvlinkLayout::nvswitch;
  const bool even = std::all_of(rings.intra_host.begin(), rings.intra_host.end(), [&](const std::vector<int>& host) {
    return host.size() == rings.intra_host.front().size();
  });
  if (flat && comm.nodes > 1 && even) {
    const std::vector<std::vector<int>> host_rings = topology.host_ring_orders(rings.intra_host.front());
    double gpu_intra_GBps = 0;
    if (rings.intra_host.front().size() > 1) {
      std::vector<FlowRing> own;
      for (std::size_t c = 0; c < host_rings.size(); ++c) own.push_back({host_rings[c], static_cast<int>(c)});
      gpu_intra_GBps =
          concurrent_bottleneck(topology, flows_of(own)).rate_Bps * static_cast<double>(host_rings.size()) / 1e9;
    }
    comm.collnet_gpu_intra_GBps = gpu_intra_GBps;
    comm.collnet_chain = nccl_collnet_chain_graph(comm, gpu_intra_GBps);
    comm.collnet_direct = nccl_collnet_direct_graph(comm.ranks / comm.nodes, topology.nics_per_host(), bus_GBps,
                                                    gpu_intra_GBps, comm.compute_capability);
  }
  return comm;
}

}  // namespace vtsim
