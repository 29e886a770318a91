#include "sim/engine/platform.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <xbt/config.hpp>

#include "models/compute/interference.hpp"

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

/// One zone holding every GPU's host and every port host, whose routes come from the topology when a communication
/// first asks for them (then kept). Building it is linear in hosts: SimGrid 3.32's own zones, one per host, checked
/// each new host's name against every zone and listed every host of the engine when each zone was sealed (hosts x
/// zones in all: 2.3 s at 16,384 GPUs, docs/scale.md), and their routes between zones needed a link of their own.
///
/// Routes, each the topology's, with no other link:
/// - two GPUs of a host: the GPU's memory link, Topology::intra_host_route, the other GPU's memory link (when the
///   platform has memory links);
/// - two GPUs of different hosts: Topology::route_between_hosts (across racks through spine (rack_a + rack_b) %
///   spines of the flow's rail: flows of collectives take their hashed spines through port hosts instead);
/// - two port hosts: the first's route up (Topology::gpu_to_uplink: to its rack's uplink port) and the second's
///   walked down;
/// - a host to itself: a link like SimGrid's loopback.
/// A route given by Platform::carry_class (a class of flows' members' routes, one after the other) replaces the
/// topology's between its two hosts.
class GpuZone final : public simgrid::kernel::routing::NetZoneImpl {
 public:
  GpuZone(const std::string& name, const Topology& topology, const std::vector<sg4::Link*>& links,
          const std::vector<sg4::Link*>& memory_links, sg4::Link* loopback)
      : NetZoneImpl(name), topology_(topology), links_(links), memory_links_(memory_links), loopback_(loopback) {}

  /// `point` stands for GPU `gpu`. REQUIRES: points are added in the order the zone created them.
  void add_gpu(const simgrid::kernel::routing::NetPoint* point, int gpu) { add_point(point, {gpu, -1}); }
  /// `point` is the port host of `gpu` towards its rack's uplink `port`.
  void add_port(const simgrid::kernel::routing::NetPoint* point, int gpu, int port) { add_point(point, {gpu, port}); }
  /// The route from `src` to `dst` is `hops` with `latency_s`, not the topology's. REQUIRES: not asked for yet.
  void give_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                  const std::vector<Hop>& hops, double latency_s) {
    const std::vector<sg4::LinkInRoute> links = to_simgrid(hops, links_);
    // Checked in every build: a route asked for before would stay the topology's, and the class flow would run as
    // fast as one of its members alone.
    if (!routes_.emplace(key(src, dst), KnownRoute{get_link_list_impl(links, false), latency_s}).second) {
      throw std::logic_error("the route from " + src->get_name() + " to " + dst->get_name() +
                             " was asked for before it was given");
    }
  }

 protected:
  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override {
    auto found = routes_.find(key(src, dst));
    if (found == routes_.end()) found = routes_.emplace(key(src, dst), route(src->id(), dst->id())).first;
    into->link_list_.insert(into->link_list_.end(), found->second.links.begin(), found->second.links.end());
    if (latency != nullptr) *latency += found->second.latency_s;
  }

 private:
  struct Point {
    int gpu;
    int port;  ///< its rack's uplink (Topology::uplink_port); -1 for the GPU's own host
  };
  struct KnownRoute {
    std::vector<simgrid::kernel::resource::StandardLinkImpl*> links;
    double latency_s;
  };

  static std::uint64_t key(const simgrid::kernel::routing::NetPoint* src,
                           const simgrid::kernel::routing::NetPoint* dst) {
    return (static_cast<std::uint64_t>(src->id()) << 32) | dst->id();
  }

  void add_point([[maybe_unused]] const simgrid::kernel::routing::NetPoint* point, Point what) {
    assert(point->id() == points_.size() && "points in the order of their ids");
    points_.push_back(what);
  }

  KnownRoute route(unsigned long from, unsigned long to) const {
    const Point& a = points_.at(from);
    const Point& b = points_.at(to);
    std::vector<sg4::LinkInRoute> links;
    std::vector<Hop> hops;
    if (from == to) {
      links.emplace_back(loopback_);
      return {get_link_list_impl(links, false), loopback_->get_latency()};
    }
    const bool same_host = topology_.location(a.gpu).host == topology_.location(b.gpu).host;
    if (a.port < 0 && b.port < 0 && same_host) {
      hops = topology_.intra_host_route(a.gpu, b.gpu);
    } else if (a.port >= 0) {
      assert(b.port >= 0 && "a GPU's host and a port host have no route");
      hops = topology_.gpu_to_uplink(a.gpu, a.port);
      for (const Hop& hop : reversed(topology_.gpu_to_uplink(b.gpu, b.port))) hops.push_back(hop);
    } else {
      assert(b.port < 0 && "a GPU's host and a port host have no route");
      const int rack_a = topology_.location(a.gpu).rack;
      const int rack_b = topology_.location(b.gpu).rack;
      const int port =
          rack_a == rack_b ? 0 : topology_.port_of(topology_.rail(b.gpu), (rack_a + rack_b) % topology_.spine_count());
      hops = topology_.route_between_hosts(a.gpu, b.gpu, port);
    }
    const bool memory = same_host && a.port < 0 && !memory_links_.empty();
    if (memory) links.emplace_back(memory_links_[static_cast<std::size_t>(a.gpu)]);
    for (const sg4::LinkInRoute& link : to_simgrid(hops, links_)) links.push_back(link);
    if (memory) links.emplace_back(memory_links_[static_cast<std::size_t>(b.gpu)]);
    return {get_link_list_impl(links, false), topology_.latency_s(hops)};
  }

  const Topology& topology_;
  std::vector<sg4::Link*> links_;         ///< as Platform::links_ (a copy: the zone outlives the Platform)
  std::vector<sg4::Link*> memory_links_;  ///< as Platform::memory_links_
  sg4::Link* loopback_;
  std::vector<Point> points_;  ///< per netpoint id
  std::unordered_map<std::uint64_t, KnownRoute> routes_;
};

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
  gpu_hosts_.resize(static_cast<std::size_t>(topology.gpu_count()));
  const int gpus_per_host = topology.gpu_count() / topology.host_count();
  const auto gpu_name = [&](int g) {
    return "h" + std::to_string(g / gpus_per_host) + ".g" + std::to_string(g % gpus_per_host);
  };
  if (gpu_routes == GpuRoutes::omitted) {
    sg4::NetZone* gpus = sg4::create_star_zone("gpus")->set_parent(cluster);
    for (int g = 0; g < topology.gpu_count(); ++g) {
      gpu_hosts_[static_cast<std::size_t>(g)] = gpus->create_host(gpu_name(g), 1.0)->seal();
    }
    gpus->seal();
  } else {
    // A host's own route to itself (two ranks on one GPU) takes a link like SimGrid's loopback.
    const double loopback_Bps = simgrid::config::get_value<double>("network/loopback-bw");
    sg4::Link* loopback = cluster->create_link("gpu-loopback", loopback_Bps)
                              ->set_latency(simgrid::config::get_value<double>("network/loopback-lat"))
                              ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
                              ->seal();
    auto* zone = new GpuZone("gpus", topology, links_, memory_links_, loopback);  // SimGrid's root zone owns it
    zone_ = zone;
    zone->set_parent(cluster->get_impl());
    for (int g = 0; g < topology.gpu_count(); ++g) {
      gpu_hosts_[static_cast<std::size_t>(g)] = zone->create_host(gpu_name(g), {1.0})->seal();
      zone->add_gpu(gpu_hosts_[static_cast<std::size_t>(g)]->get_netpoint(), g);
    }
    for (const auto& [gpu, uplink] : ports) {
      if (port_hosts_.contains({gpu, uplink})) continue;
      const std::string name = "port.g" + std::to_string(gpu) + ".u" + std::to_string(uplink);
      sg4::Host* port = zone->create_host(name, {1.0})->seal();
      zone->add_port(port->get_netpoint(), gpu, uplink);
      port_hosts_[{gpu, uplink}] = port;
    }
    zone->get_iface()->seal();
  }
  add_migration_hosts(topology, cluster, migration_hosts, migration_Bps);
  cluster->seal();
  for (const sg4::Link* memory : memory_links_) route_ledger_.add_varying(memory);
  for (const auto& [host, ends] : migration_hosts_) route_ledger_.add_user(ends.first, ends.second);
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

double Platform::carry_class(int from, int to, const std::vector<std::vector<Hop>>& members, const Topology& topology) {
  assert(zone_ != nullptr && !members.empty());
  std::vector<Hop> hops;
  double latency_s = 0;
  for (const std::vector<Hop>& member : members) {
    hops.insert(hops.end(), member.begin(), member.end());
    latency_s = std::max(latency_s, topology.latency_s(member));
  }
  zone_->give_route(gpu_host(from)->get_netpoint(), gpu_host(to)->get_netpoint(), hops, latency_s);
  return latency_s;
}

sg4::Host* Platform::port_host(int gpu, int uplink) const {
  const auto port = port_hosts_.find({gpu, uplink});
  assert(port != port_hosts_.end() && "a port the platform was built with");
  return port->second;
}

}  // namespace vtsim::sim
