#include "sim/platform.hpp"

#include <cassert>
#include <string>

#include <simgrid/s4u/NetZone.hpp>

#include "models/interference.hpp"

namespace vtsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

std::vector<sg4::LinkInRoute> to_simgrid(const std::vector<Hop>& hops, const std::vector<sg4::Link*>& links) {
  std::vector<sg4::LinkInRoute> route;
  route.reserve(hops.size());
  for (const Hop& hop : hops) {
    route.emplace_back(links[static_cast<std::size_t>(hop.link)],
                       hop.forward ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
  }
  return route;
}

/// The same hops walked the other way.
std::vector<Hop> reversed(const std::vector<Hop>& hops) {
  std::vector<Hop> back(hops.rbegin(), hops.rend());
  for (Hop& hop : back) hop.forward = !hop.forward;
  return back;
}

/// Bandwidth of a GPU's memory link that gives a ring's flows `collective_Bps` of its device memory: a rank's
/// outgoing and incoming flows both cross it, moving kHbmBytesPerWireByte bytes of memory per byte sent.
double memory_link_Bps(double collective_Bps) { return collective_Bps * 2 / kHbmBytesPerWireByte; }

}  // namespace

Platform::Platform(const Topology& topology, const std::vector<std::pair<int, int>>& ports, double gpu_memory_Bps,
                   const std::vector<int>& migration_hosts, double migration_Bps, GpuRoutes gpu_routes) {
  // Links are created in the cluster zone: a link may be used by routes of any zone.
  sg4::NetZone* cluster = sg4::create_full_zone("cluster");
  // Without routes between GPUs only the vMotion hosts' NIC links are in a route: the others are not built.
  links_.assign(topology.links().size(), nullptr);
  if (gpu_routes == GpuRoutes::built) {
    for (std::size_t index = 0; index < links_.size(); ++index) build_link(topology, cluster, index);
  }
  // Each GPU's device memory, shared by the flows into and out of it (one link, not split duplex).
  if (gpu_memory_Bps > 0) {
    for (int g = 0; g < topology.gpu_count(); ++g) {
      memory_links_.push_back(
          cluster->create_link("gpu" + std::to_string(g) + "/memory", memory_link_Bps(gpu_memory_Bps))->seal());
    }
  }
  // The route from GPU `from` to GPU `to` of the same host: its hops between the memory links of the two GPUs.
  const auto route_between = [&](int from, const std::vector<Hop>& hops, int to) {
    std::vector<sg4::LinkInRoute> route;
    if (!memory_links_.empty()) route.emplace_back(memory_links_[static_cast<std::size_t>(from)]);
    for (const sg4::LinkInRoute& link : to_simgrid(hops, links_)) route.push_back(link);
    if (!memory_links_.empty()) route.emplace_back(memory_links_[static_cast<std::size_t>(to)]);
    return route;
  };
  // Zero-latency, unbounded links for zone-to-zone hops that the topology models elsewhere (SimGrid wants at least
  // one link in a route between zones): one per host, up for what leaves it and down for what arrives. A link
  // shared by all such routes would join every flow between two hosts of a rack into one max-min system, so that
  // each flow's start or end re-solved all of them: 1,024 GPUs at flow fidelity took 2.15 s with one such link and
  // 1.05 s with a link per pair of hosts, the simulated step identical (docs/scale.md).
  const auto pass_route = [&](int host) {
    sg4::Link* pass = cluster->create_split_duplex_link("h" + std::to_string(host) + ".pass-through", 1e18)
                          ->set_latency(0)
                          ->seal();
    return std::vector<sg4::LinkInRoute>{sg4::LinkInRoute(pass, sg4::LinkInRoute::Direction::UP)};
  };

  gpu_hosts_.resize(static_cast<std::size_t>(topology.gpu_count()));
  const int hosts_per_rack = topology.host_count() / topology.rack_count();
  const int gpus_per_host = topology.gpu_count() / topology.host_count();
  if (gpu_routes == GpuRoutes::omitted) {
    sg4::NetZone* gpus = sg4::create_star_zone("gpus")->set_parent(cluster);
    for (int g = 0; g < topology.gpu_count(); ++g) {
      const std::string name = "h" + std::to_string(g / gpus_per_host) + ".g" + std::to_string(g % gpus_per_host);
      gpu_hosts_[static_cast<std::size_t>(g)] = gpus->create_host(name, 1.0)->seal();
    }
    gpus->seal();
    add_migration_hosts(topology, cluster, migration_hosts, migration_Bps);
    cluster->seal();
    return;
  }
  std::vector<sg4::NetZone*> rack_zones;
  std::vector<simgrid::kernel::routing::NetPoint*> leaf_gateways;
  for (int rack = 0; rack < topology.rack_count(); ++rack) {
    const std::string rack_name = "r" + std::to_string(rack);
    sg4::NetZone* rack_zone = sg4::create_full_zone(rack_name)->set_parent(cluster);
    sg4::NetZone* leaf_zone = sg4::create_full_zone(rack_name + ".leaf")->set_parent(rack_zone);
    simgrid::kernel::routing::NetPoint* leaf_gateway = leaf_zone->create_router(rack_name + ".leaf.gw");
    leaf_zone->seal();

    std::vector<sg4::NetZone*> host_zones;
    std::vector<simgrid::kernel::routing::NetPoint*> host_gateways;
    for (int h = 0; h < hosts_per_rack; ++h) {
      const int host = rack * hosts_per_rack + h;
      const std::string host_name = "h" + std::to_string(host);
      sg4::NetZone* host_zone = sg4::create_full_zone(host_name)->set_parent(rack_zone);
      const int first_gpu = host * gpus_per_host;
      for (int g = first_gpu; g < first_gpu + gpus_per_host; ++g) {
        gpu_hosts_[static_cast<std::size_t>(g)] =
            host_zone->create_host(host_name + ".g" + std::to_string(g - first_gpu), 1.0)->seal();
      }
      simgrid::kernel::routing::NetPoint* gateway = host_zone->create_router(host_name + ".gw");
      for (int a = first_gpu; a < first_gpu + gpus_per_host; ++a) {
        auto* from = gpu_hosts_[static_cast<std::size_t>(a)]->get_netpoint();
        for (int b = first_gpu; b < first_gpu + gpus_per_host; ++b) {
          if (a == b) continue;
          host_zone->add_route(from, gpu_hosts_[static_cast<std::size_t>(b)]->get_netpoint(), nullptr, nullptr,
                               route_between(a, topology.intra_host_route(a, b), b), false);
        }
        if (!topology.has_nics()) continue;  // a host without NICs (allowed for single-host jobs) has no way out
        const std::vector<Hop> up = topology.gpu_to_network(a);
        host_zone->add_route(from, gateway, nullptr, nullptr, to_simgrid(up, links_), false);
        host_zone->add_route(gateway, from, nullptr, nullptr, to_simgrid(reversed(up), links_), false);
      }
      host_zone->seal();
      host_zones.push_back(host_zone);
      host_gateways.push_back(gateway);
    }
    for (int a = 0; a < hosts_per_rack; ++a) {
      const std::vector<sg4::LinkInRoute> pass = pass_route(rack * hosts_per_rack + a);
      rack_zone->add_route(host_zones[a]->get_netpoint(), leaf_zone->get_netpoint(), host_gateways[a], leaf_gateway,
                           pass, true);
      for (int b = 0; b < hosts_per_rack; ++b) {
        if (a == b) continue;
        std::vector<sg4::LinkInRoute> route = to_simgrid(
            topology.host_to_host(rack * hosts_per_rack + a, rack * hosts_per_rack + b, 0), links_);
        if (route.empty()) route = pass;
        rack_zone->add_route(host_zones[a]->get_netpoint(), host_zones[b]->get_netpoint(), host_gateways[a],
                             host_gateways[b], route, false);
      }
    }
    rack_zone->seal();
    rack_zones.push_back(rack_zone);
    leaf_gateways.push_back(leaf_gateway);
  }
  for (int a = 0; a < topology.rack_count(); ++a) {
    for (int b = 0; b < topology.rack_count(); ++b) {
      if (a == b) continue;
      // host_to_host between the first hosts of two racks is the rack-to-rack part: uplink, spine, uplink, through
      // one spine for every pair of GPUs (collectives take their hashed spines through port hosts instead).
      // Never empty: racks are joined by spines.
      const std::vector<sg4::LinkInRoute> route =
          to_simgrid(topology.host_to_host(a * hosts_per_rack, b * hosts_per_rack, (a + b) % topology.spine_count()), links_);
      assert(!route.empty());
      cluster->add_route(rack_zones[a]->get_netpoint(), rack_zones[b]->get_netpoint(), leaf_gateways[a],
                         leaf_gateways[b], route, false);
    }
  }
  if (!ports.empty()) {
    sg4::NetZone* port_zone = sg4::create_star_zone("ports")->set_parent(cluster);
    for (const auto& [gpu, spine] : ports) {
      if (port_hosts_.contains({gpu, spine})) continue;
      sg4::Host* port = port_zone->create_host("port.g" + std::to_string(gpu) + ".s" + std::to_string(spine), 1.0)->seal();
      std::vector<Hop> up = topology.gpu_to_network(gpu);
      up.push_back({topology.uplink(topology.location(gpu).rack, spine), true});
      port_zone->add_route(port->get_netpoint(), nullptr, nullptr, nullptr, to_simgrid(up, links_), false);
      port_zone->add_route(nullptr, port->get_netpoint(), nullptr, nullptr, to_simgrid(reversed(up), links_), false);
      port_hosts_[{gpu, spine}] = port;
    }
    port_zone->seal();
  }
  add_migration_hosts(topology, cluster, migration_hosts, migration_Bps);
  cluster->seal();
}

void Platform::add_migration_hosts(const Topology& topology, sg4::NetZone* cluster,
                                   const std::vector<int>& migration_hosts, double migration_Bps) {
  const int gpus_per_host = topology.gpu_count() / topology.host_count();
  if (!migration_hosts.empty()) {
    assert(topology.has_nics() && migration_Bps > 0);
    sg4::NetZone* zone = sg4::create_star_zone("vmotion")->set_parent(cluster);
    for (int host : migration_hosts) {
      if (migration_hosts_.contains(host)) continue;
      const std::string name = "vmotion.h" + std::to_string(host);
      sg4::Host* source = zone->create_host(name + ".src", 1.0)->seal();
      sg4::Host* destination = zone->create_host(name + ".dst", 1.0)->seal();
      const Hop nic = topology.gpu_to_network(host * gpus_per_host).back();  // the host's first NIC
      build_link(topology, cluster, static_cast<std::size_t>(nic.link));
      zone->add_route(source->get_netpoint(), nullptr, nullptr, nullptr, to_simgrid({nic}, links_), false);
      sg4::Link* spare = zone->create_link(name + ".spare_nic", migration_Bps)->set_latency(0)->seal();
      zone->add_route(nullptr, destination->get_netpoint(), nullptr, nullptr, {sg4::LinkInRoute(spare)}, false);
      migration_hosts_[host] = {source, destination};
    }
    zone->seal();
  }
}

void Platform::build_link(const Topology& topology, sg4::NetZone* cluster, std::size_t index) {
  if (links_[index] != nullptr) return;
  const Link& link = topology.links()[index];
  links_[index] = cluster->create_split_duplex_link(link.name, link.bandwidth_Bps)->set_latency(link.latency_s)->seal();
}

void Platform::set_collective_memory(int gpu, double collective_Bps) const {
  assert(collective_Bps > 0 && "a flow through a link of no bandwidth would never end");
  if (memory_links_.empty()) return;
  sg4::Link* link = memory_links_[static_cast<std::size_t>(gpu)];
  const double bandwidth = memory_link_Bps(collective_Bps);
  if (link->get_bandwidth() != bandwidth) link->set_bandwidth(bandwidth);
}

sg4::Host* Platform::migration_source(int host) const {
  const auto found = migration_hosts_.find(host);
  assert(found != migration_hosts_.end() && "a host the platform was built with");
  return found->second.first;
}

sg4::Host* Platform::migration_destination(int host) const {
  const auto found = migration_hosts_.find(host);
  assert(found != migration_hosts_.end() && "a host the platform was built with");
  return found->second.second;
}

sg4::Host* Platform::port_host(int gpu, int spine) const {
  const auto port = port_hosts_.find({gpu, spine});
  assert(port != port_hosts_.end() && "a port the platform was built with");
  return port->second;
}

}  // namespace vtsim::sim
