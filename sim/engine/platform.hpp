#pragma once
// The topology as a SimGrid platform: the topology's links, and one zone of SimGrid hosts, one per physical GPU,
// whose routes are the topology's routes, found when a communication first asks for them and then kept (a zone of
// vtsim's own, platform.cpp). Building it is linear in hosts: SimGrid 3.32's own zones, nested cluster > rack > host,
// cost hosts x zones to build (each new host's name checked against every zone, every host of the engine listed as
// each zone was sealed: 2.3 s at 16,384 GPUs), and a route between zones needs a link of its own, which joined flows
// into larger max-min systems than their links do (docs/scale.md).
//
// Between two GPUs of a host the route is the topology's intra-host route (NVLink, PCIe P2P or host-memory staging,
// per the P2P rules); between hosts, Topology::route_between_hosts: the sender's route to the NIC it sends by (its
// own, or on rail-optimized cabling the receiver's rail's), the fabric between them (across racks, through spine
// (rack_a + rack_b) % spines), and the receiver's route from its NIC.
//
// Under one communication actor per host, the route between two hosts' first GPUs is the one Platform::carry_class
// gives: every route of the flows it stands for, one after the other.
//
// Flows of collectives between racks do not take these routes: ECMP hashes each onto a spine of its own
// (Topology::ecmp_spine), from the leaf of its rail on rail-optimized cabling. Each such flow runs between two port
// hosts instead, one per (GPU, uplink port) that some flow needs (Topology::uplink_port: rail x spines + spine): a
// port's route up is its GPU's route to that rail's NIC and its rack's uplink port (Topology::gpu_to_uplink), its route
// down the same in reverse, so a flow from port (a, p) to port (b, p) takes exactly Topology::route(a, b) through
// uplink port p.
//
// Each GPU's device memory is one more link (shared, not split duplex) at both ends of every route between two GPUs of
// a host, when the platform is given the memory's achievable bandwidth: the collective's flows move
// kHbmBytesPerWireByte bytes of memory per byte sent (models/compute/interference.hpp), and while kernels run beside
// them the training job narrows it to the collective's share (set_collective_memory). Routes to the network do not take
// it: a NIC's flows move 3 x its rate in memory (400 Gb/s: 150 GB/s), below half of every catalogued GPU's memory
// bandwidth, which max-min sharing always leaves a collective; and memory links on them would join every host's flows
// into one max-min system, making each re-rating cost the whole cluster's flows instead of one host's.
//
// vMotion's pre-copy runs between two hosts of a star zone of their own, per migrating host: the source's route is
// the host's first NIC link up to its leaf, the destination's a link of its own at the spare host's NIC rate (the
// spare host is outside the cluster: only the source's NIC is shared with the jobs).
//
// GPUs are SimGrid hosts so that communications have endpoints; kernels do not run on SimGrid's CPU model: a kernel's
// duration comes from the compute model and the rank's actor sleeps for it (see training_job.hpp).

#include <map>
#include <utility>
#include <vector>

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include "models/network/topology.hpp"
#include "sim/engine/route_ledger.hpp"

namespace vtsim::sim {

class GpuZone;

/// Whether a platform routes flows between GPUs.
enum class GpuRoutes {
  built,   ///< the topology's routes between GPUs, and the port hosts
  omitted  ///< the GPU hosts in one star zone without routes: for simulations that move no byte between GPUs
};

/// The SimGrid platform of one simulation. REQUIRES: a configured s4u::Engine with no platform yet.
class Platform {
 public:
  /// Builds zones, links and routes, and a port host for each (GPU, uplink port) in `ports` (duplicates allowed); with
  /// `gpu_memory_Bps` > 0 (each GPU's achievable memory bandwidth), the GPUs' memory links.
  /// For each host in `migration_hosts`, a vMotion source and destination (the destination's link at
  /// `migration_Bps`). REQUIRES: NICs when `migration_hosts` is not empty.
  /// With GpuRoutes::omitted, the GPU hosts have no routes and there are no port hosts (`ports` is ignored): analytic
  /// collectives take their times from the topology, and need no link built.
  /// REQUIRES: `topology` outlives the simulation (routes are found from it as communications ask for them).
  explicit Platform(const Topology& topology, const std::vector<std::pair<int, int>>& ports = {},
                    double gpu_memory_Bps = 0, const std::vector<int>& migration_hosts = {}, double migration_Bps = 0,
                    GpuRoutes gpu_routes = GpuRoutes::built);

  /// Lets the flows through GPU `gpu`'s memory use `collective_Bps` of it (re-rating flows in progress). Does nothing
  /// on a platform without memory links. REQUIRES: a running engine.
  void set_collective_memory(int gpu, double collective_Bps) const;

  /// The SimGrid host standing for GPU `gpu`.
  simgrid::s4u::Host* gpu_host(int gpu) const { return gpu_hosts_[static_cast<std::size_t>(gpu)]; }
  /// The port host of GPU `gpu` towards its rack's uplink port `uplink` (Topology::uplink_port). REQUIRES: the pair
  /// was among the constructor's ports.
  simgrid::s4u::Host* port_host(int gpu, int uplink) const;
  /// The vMotion source and destination of host `host`. REQUIRES: the host was among the migration hosts.
  simgrid::s4u::Host* migration_source(int host) const;
  simgrid::s4u::Host* migration_destination(int host) const;

  /// Makes the route from GPU `from`'s host to GPU `to`'s host carry a class of alike flows, one flow standing for
  /// each of `members` (their routes, as Topology::route gives them): the members' routes one after the other, so
  /// that max-min weighs each link as many times as members cross it (docs/simgrid-notes.md, "A link listed k times
  /// in a route"), with the largest member latency, which it returns. The flow then ends when each member would,
  /// where the members get the same rate (docs/scale.md, "One communication actor per host"). Throws
  /// std::logic_error when the route was asked for before. REQUIRES: a platform with routes between GPUs; no other
  /// flow runs between the two hosts.
  double carry_class(int from, int to, const std::vector<std::vector<Hop>>& members, const Topology& topology);

  /// Who crosses each link (route_ledger.hpp): the platform counts its memory links and its vMotion pre-copies' routes;
  /// whoever builds a flow's route on it counts that route. It is bookkeeping about the platform's use, not its
  /// shape, hence reachable from a const platform.
  RouteLedger& route_ledger() const { return route_ledger_; }

 private:
  /// Builds the topology's link `index` in `cluster` unless it is already built.
  void build_link(const Topology& topology, simgrid::s4u::NetZone* cluster, std::size_t index);
  /// The vMotion sources and destinations, in a star zone under `cluster`.
  void add_migration_hosts(const Topology& topology, simgrid::s4u::NetZone* cluster,
                           const std::vector<int>& migration_hosts, double migration_Bps);

  GpuZone* zone_ = nullptr;  // owned by SimGrid's root zone; null without routes between GPUs
  std::vector<simgrid::s4u::Host*> gpu_hosts_;
  std::map<std::pair<int, int>, simgrid::s4u::Host*> port_hosts_;
  std::map<int, std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*>> migration_hosts_;
  std::vector<simgrid::s4u::Link*> links_;  // indexed like Topology::links(); null where not built
  std::vector<simgrid::s4u::Link*> memory_links_;  // per GPU, when built with the memory's bandwidth
  mutable RouteLedger route_ledger_;
};

}  // namespace vtsim::sim
