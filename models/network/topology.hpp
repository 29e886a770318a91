#pragma once
// The cluster as a graph of physical links, and the routes between GPUs that the virtualization mode allows.
//
// Vertices: GPUs; per host a PCIe root, its PCIe switches where the host has them (cluster.host.pcie_switch_gpus), a
// host memory, its NICs, an NVSwitch where the NVLink layout has one; a leaf switch per rack (per rack and NIC rail
// on rail-optimized cabling); spine switches when there are several racks.
// Edges (links, defaults in models/catalog/link_defaults.cpp):
//   GPU -pcie- PCIe root             the GPU's x16 link; forward = GPU to root (to its PCIe switch where it has one)
//   PCIe switch -pcie- PCIe root     the switch's x16 uplink, shared by its GPUs and NICs for what crosses the root
//                                    complex; forward = to the root; no latency of its own
//   PCIe root -host_memory- host memory, one link per GPU: that GPU's CPU-side transport (its collective library's
//                                    shared-memory path); forward = the GPU's data into host memory, backward = out
//   GPU -nvlink- GPU                 bridge pairs and full meshes, forward = lower to higher local index
//   GPU -nvlink- NVSwitch            NVSwitch boards, and the star that approximates a DGX-1 cube-mesh; forward = to
//                                    the switch; each carries half a GPU-to-GPU step's latency
//   PCIe root - NIC                  no link of its own: the NIC's measured rate and latency were taken through its
//                                    own slot, so they are in its nic link (its PCIe switch - NIC, behind a switch)
//   GPU -tcp_stack-                  with TCP between hosts only: the GPU's rank's share of its VM's cores running the
//                                    guest's network stack (models/compute/vm_cpu.hpp), on the route to the NIC after
// the
//                                    PCIe link; forward = sending; not an edge of the graph (no route search needs it)
//   NIC -nic- leaf                   forward = to the leaf; latency = half of (NIC + transport + one leaf switch), so
//                                    that two hosts in one rack pay the catalog's per-message cost plus the leaf once.
//                                    Rail-optimized cabling (cluster.fabric.rail_optimized): NIC r on the rack's
//                                    leaf of rail r
//   leaf -fabric- spine              one uplink port per leaf and spine; forward = up; latency = one switch (the
//                                    spine going up, the far leaf coming down). A flow between racks takes the
//                                    uplink of the spine its ECMP hash picks (ecmp_spine), from its rail's leaf
// On rail-optimized cabling a flow between hosts stays on one rail, that of the NIC beside its destination GPU: the
// sender reaches that NIC across NVLink to the GPU beside it (NCCL's PXN, gpu_to_nic), or without NVLink or
// GPUDirect RDMA through its own PCIe link and the host's PCIe (its switches' uplinks where they part them).
// Boost.Graph holds the structure and finds the routes (breadth-first search on views filtered by the rule table);
// it stays inside topology.cpp. No SimGrid here: sim/engine/platform.cpp builds SimGrid zones from links() and the
// routes.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/catalog/link_class.hpp"
#include "models/scenario/virtualization_mode.hpp"

namespace vtsim {

/// One physical full-duplex link; each direction carries bandwidth_Bps independently.
struct Link {
  std::string name;  ///< unique, e.g. "host3/gpu1/pcie", "rack0/uplink1"
  LinkClass link_class = LinkClass::pcie;
  double bandwidth_Bps = 0;  ///< per direction, after protocol efficiency
  double latency_s = 0;
};

/// One traversal of a link: `forward` is the link's a->b direction as the topology defined it (see the file comment).
struct Hop {
  int link = 0;
  bool forward = true;
  friend bool operator==(const Hop&, const Hop&) = default;
};

/// Where a GPU sits. Global GPU index g: host = g / gpus_per_host, rack = host / hosts_per_rack.
struct GpuLocation {
  int rack = 0;
  int host = 0;
  int local = 0;
};

/// What two GPUs of one host may use to exchange data, in one virtualization mode. Routes take NVLink where the rule
/// allows it and the GPUs are linked, else P2P over PCIe where allowed, else host memory.
struct P2pRule {
  VirtualizationMode mode = VirtualizationMode::bare_metal;
  bool nvlink = false;                    ///< NVLink P2P where the host's NVLink is present and enabled
  bool nvlink_whole_gpu_same_vm = false;  ///< NVLink only between vGPUs owning a whole GPU (max_per_gpu 1), one job
  bool pcie_p2p = false;                  ///< P2P over PCIe (GPU -> root or switch -> GPU) where NVLink is not used
  std::string_view source;                ///< why
};

/// One rule per VirtualizationMode, in enum order.
using P2pRuleTable = std::array<P2pRule, 4>;

/// The rules of docs/hardware-facts.md (documented with each entry in topology.cpp).
const P2pRuleTable& default_p2p_rules();

/// Per-flow rates under equal sharing, and the slowest.
struct FlowRates {
  std::vector<double> rate_Bps;  ///< one per flow, in input order; infinity for a flow from a GPU to itself
  double slowest_Bps = std::numeric_limits<double>::infinity();  ///< infinity when there is no flow
};

/// What a topology is built from: the cluster's shape and each link class's figures, as resolved from a scenario
/// (topology_spec). Defaults: one bare-metal host of one GPU, nothing else.
struct TopologySpec {
  VirtualizationMode mode = VirtualizationMode::bare_metal;  ///< picks the P2P rule
  bool nvlink_usable = false;                                ///< NVLink present and enabled
  NvlinkLayout nvlink_layout = NvlinkLayout::none;           ///< none unless usable
  int gpus_per_host = 1;                                     ///< >= 1
  int hosts_per_rack = 1;                                    ///< >= 1
  int racks = 1;                                             ///< >= 1
  int nics_per_host = 0;                                     ///< 0 when every job stays in one host
  int spines = 0;    ///< spine switches: 0 for one rack; 1 under adaptive routing, which joins a leaf's uplinks
  int rails = 1;     ///< 1, or nics_per_host on rail-optimized cabling (NIC r on its rack's leaf of rail r)
  bool pxn = false;  ///< the transport has GPUDirect RDMA (a flow may reach the NIC beside its destination over NVLink)
  int pcie_switch_gpus = 0;     ///< GPUs per PCIe switch, 0 for none
  std::uint64_t seed = 1;       ///< of the ECMP hash
  double switch_latency_s = 0;  ///< one leaf or spine switch, added on the NIC links and the uplinks' figures
  // Each class's figures, with the calibration profile's measurements in place (models/catalog/link_defaults.hpp).
  LinkDefault nvlink;                   ///< one NVLink connection of the layout
  LinkDefault pcie;                     ///< a GPU's x16 link
  LinkDefault host_memory;              ///< a GPU's staging path through host memory
  LinkDefault nic;                      ///< a NIC port with its transport, before switches
  LinkDefault uplink;                   ///< a leaf-to-spine uplink
  std::vector<LinkDefault> tcp_stacks;  ///< per GPU, its rank's share of its VM's TCP stack; empty without TCP
  /// Per GPU, the jobs holding it with a max_per_gpu 1 vGPU profile (read only under vGPU's NVLink rule).
  std::vector<std::vector<int>> whole_gpu_jobs;
};

/// The cluster topology of a TopologySpec. Move-only; deterministic (the same spec gives the same links and routes).
class Topology {
 public:
  /// Builds the graph. `rules` replaces the P2P rule table.
  explicit Topology(const TopologySpec& spec, const P2pRuleTable& rules = default_p2p_rules());
  ~Topology();
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;

  /// Every physical link; a Hop's `link` indexes this.
  const std::vector<Link>& links() const { return links_; }
  /// GPUs in the cluster.
  int gpu_count() const { return gpu_count_; }
  /// Hosts in the cluster.
  int host_count() const { return host_count_; }
  /// Racks in the cluster.
  int rack_count() const { return rack_count_; }
  /// Whether hosts have NICs (cluster.host.nics may be 0 when every job stays in one host).
  bool has_nics() const { return nics_per_host_ > 0; }
  /// NICs per host (cluster.host.nics).
  int nics_per_host() const { return nics_per_host_; }
  /// How the GPUs of each host are joined by NVLink (none when NVLink is absent or disabled).
  NvlinkLayout nvlink_layout() const { return nvlink_layout_; }
  /// Where GPU `gpu` sits. REQUIRES: 0 <= gpu < gpu_count().
  GpuLocation location(int gpu) const;

  /// Route from GPU a to GPU b in the same host (a != b), chosen by the P2P rules for the jobs on them.
  std::vector<Hop> intra_host_route(int a, int b) const;
  /// The NIC of its host that GPU `gpu` sends by: its local index % nics; behind PCIe switches the one under its
  /// switch, local index x nics / GPUs per host (NIC n sits under the switch of the first GPU that uses it).
  /// REQUIRES: nics > 0.
  int nic_of(int gpu) const;
  /// Route from GPU g up to the leaf: its PCIe link (and its switch's uplink where the NIC is elsewhere, or the data
  /// is staged in host memory), with TCP its rank's share of the VM's network stack, then the link of NIC nic_of(g).
  /// REQUIRES: nics > 0.
  std::vector<Hop> gpu_to_network(int gpu) const;
  /// Route from GPU g up to the leaf through NIC `nic` of its host: its own NIC's is gpu_to_network. Another NIC it
  /// reaches as NCCL's PXN does where the NIC reads GPU memory (GPUDirect RDMA) and the GPU beside that NIC (the
  /// first on it, first_local_on_nic) is its NVLink neighbour and the NIC is not under the sender's own PCIe switch:
  /// across NVLink to that GPU, then that GPU's gpu_to_network; else through its own PCIe link and the host's PCIe
  /// (its switches' uplinks where they part them). REQUIRES: 0 <= nic < nics.
  std::vector<Hop> gpu_to_nic(int gpu, int nic) const;
  /// Leaves per rack: the NICs per host on rail-optimized cabling, else 1.
  int rail_count() const { return rails_; }
  /// The rail a flow between hosts to GPU `destination` takes: on rail-optimized cabling the rail of the
  /// destination's NIC (nic_of), which the sender reaches through its host (NCCL's PXN); else 0, the rack's one
  /// leaf.
  int rail(int destination) const;
  /// The NIC of a's host that a flow from GPU a to GPU b of another host leaves by: a's own (nic_of), or
  /// on rail-optimized cabling the one of the flow's rail.
  int sending_nic(int a, int b) const;
  /// Which of its rack's uplinks (rail x spines + spine) a flow between racks from GPU a to GPU b takes: its rail's
  /// leaf, to the spine ecmp_spine(a, b, flow) hashes it onto.
  int uplink_port(int a, int b, int flow) const { return port_of(rail(b), ecmp_spine(a, b, flow)); }
  /// The uplink port of spine `spine` on the leaf of rail `rail`: rail x spines + spine (the index uplink() takes).
  int port_of(int rail, int spine) const { return rail * spines_ + spine; }
  /// Route from GPU g up through uplink `port` (as uplink_port) of its rack: gpu_to_nic of the port's rail (the GPU's
  /// own NIC without rails), then the uplink. REQUIRES: several racks and NICs.
  std::vector<Hop> gpu_to_uplink(int gpu, int port) const;
  /// The spine that ECMP hashes flow `flow` from GPU a to GPU b onto: a hash of (simulation.seed, a, b, flow) modulo
  /// the spines, as a leaf hashes each connection's header fields; `flow` tells apart a pair's several connections
  /// (NCCL's channels). 0 with one rack.
  int ecmp_spine(int a, int b, int flow) const;
  /// Route between two hosts' NICs through the fabric: [] within one rack (the leaf is in the nic links, and a flow
  /// stays on its rail); across racks rack_a's uplink `port` (rail x spines + spine) up and rack_b's down.
  std::vector<Hop> host_to_host(int host_a, int host_b, int port) const;
  /// Route between two GPUs of different hosts through their racks' uplink `port` (ignored within a rack):
  /// gpu_to_nic(a, sending_nic(a, b)) + host_to_host + reversed gpu_to_network(b).
  std::vector<Hop> route_between_hosts(int a, int b, int port) const;
  /// Full route of flow `flow` between two GPUs: intra_host_route, or route_between_hosts through uplink_port(a, b,
  /// flow). [] when a == b.
  std::vector<Hop> route(int a, int b, int flow = 0) const;
  /// Spine switches (0 with one rack).
  int spine_count() const { return spines_; }
  /// The uplink `port` (rail x spines + spine) of `rack`; without rails, port = the spine. REQUIRES: several racks and
  /// NICs, 0 <= port < rail_count() x spine_count().
  int uplink(int rack, int port) const { return uplinks_[static_cast<std::size_t>((rack * rails_) * spines_ + port)]; }

  /// Sum of the hop latencies of `route`.
  double latency_s(const std::vector<Hop>& route) const;
  /// Smallest hop bandwidth of `route`; infinity for an empty route.
  double bottleneck_Bps(const std::vector<Hop>& route) const;

  /// Ring order of a job's GPUs: by rack, then host (ascending), then within a host a walk that steps to the
  /// lowest-indexed unvisited NVLink neighbour, else the lowest-indexed unvisited GPU. With the catalogued layouts
  /// (pairs (0,1),(2,3)..., meshes, switches) this is ascending order; the walk matters for subsets of bridged pairs.
  std::vector<int> ring_order(std::vector<int> gpus) const;

  /// The rings NCCL lays at once over `gpus`, GPUs of one host given in ring_order: on a full NVLink mesh whose every
  /// pair the job may use, every directed Hamiltonian cycle starting at gpus[0] ((k-1)! of them: 1, 2 or 6 for 2, 3
  /// or 4 GPUs), so that together they load every pair link in both directions equally; else the one ring `gpus`.
  std::vector<std::vector<int>> host_ring_orders(const std::vector<int>& gpus) const;

  /// Rates of concurrent flows (src, dst GPU) when every link direction is shared equally among the flows crossing
  /// it: a flow gets the equal share of the most loaded link on its path. Not max-min fair: capacity a flow cannot use
  /// elsewhere is not handed to the others, so rates are lower bounds of max-min rates (equal on symmetric rings).
  FlowRates equal_share_rates(const std::vector<std::pair<int, int>>& flows) const;
  /// The slowest flow's rate when every GPU of `ring` sends to the next one at once (equal_share_rates); infinity
  /// for fewer than two GPUs. For a ring allreduce this rate is its bus bandwidth.
  double ring_bottleneck_Bps(const std::vector<int>& ring) const;

 private:
  struct Graph;    // the Boost.Graph adjacency list and vertex look-ups (topology.cpp)
  struct Builder;  // builds the graph from a TopologySpec (topology.cpp)
  struct EdgeFilter;

  bool nvlink_allowed(int a, int b) const;
  bool nvlink_neighbours(int a, int b) const;
  std::vector<Hop> search(std::size_t from, std::size_t to, const EdgeFilter& filter) const;
  /// The route from GPU `gpu` through its host's PCIe (its switches' uplinks where it crosses them; through the root
  /// complex whenever the transport stages in host memory) to NIC `local_nic` of its host and up that NIC's link,
  /// searched (gpu_to_network caches it for the GPU's own NIC).
  std::vector<Hop> search_gpu_to_nic(int gpu, int local_nic) const;
  /// The lowest local index of the GPUs whose NIC (nic_of) is `nic`.
  int first_local_on_nic(int nic) const;

  P2pRule rule_;
  bool nvlink_usable_ = false;
  NvlinkLayout nvlink_layout_ = NvlinkLayout::none;
  int gpu_count_ = 0;
  int host_count_ = 0;
  int rack_count_ = 0;
  int gpus_per_host_ = 1;
  int hosts_per_rack_ = 1;
  int nics_per_host_ = 0;
  int spines_ = 0;
  int rails_ = 1;             ///< leaves per rack
  bool pxn_ = false;          ///< a GPU may send through the NIC of an NVLink neighbour (GPUDirect RDMA transports)
  int pcie_switch_gpus_ = 0;  ///< GPUs per PCIe switch; 0: none
  std::uint64_t seed_ = 1;
  std::vector<Link> links_;
  std::vector<std::size_t> link_source_;  ///< the vertex a link's forward direction leaves
  std::vector<int> nic_links_;            ///< per host x nics
  /// gpu_to_network per GPU, searched on first use (empty until then): every flow between hosts asks for two. Not
  /// safe to share between threads (one simulation runs in one thread).
  mutable std::vector<std::vector<Hop>> to_network_;
  /// gpu_to_nic's searched routes to NICs other than the GPU's own, by gpu x NICs per host + NIC (a map: on 72-NIC
  /// hosts a table over every pair would dwarf the routes a run asks for).
  mutable std::unordered_map<std::size_t, std::vector<Hop>> to_other_nic_;
  std::vector<int> tcp_stack_links_;              ///< per GPU, with TCP between hosts; else empty
  std::vector<int> uplinks_;                      ///< per rack x rails x spines
  std::vector<std::vector<int>> whole_gpu_jobs_;  ///< per GPU, jobs holding it with a max_per_gpu 1 vGPU profile
  std::unique_ptr<const Graph> graph_;
};

}  // namespace vtsim
