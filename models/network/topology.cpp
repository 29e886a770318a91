#include "models/network/topology.hpp"

#include <algorithm>
#include <cassert>
#include <map>

// GCC 12 with -fsanitize reports boost::optional's empty state, inlined from named_graph.hpp, as uninitialized (a
// known false positive); the sanitizer builds use -Werror too.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/pending/queue.hpp>
#include <boost/property_map/property_map.hpp>
#pragma GCC diagnostic pop

namespace vtsim {

// The graph's types are outside the anonymous namespace: Topology's private structs, which have external linkage,
// hold them (GCC's -Wsubobject-linkage, which a unity build raises for a type of a .cpp).

enum class VertexKind { gpu, pcie_root, pcie_switch, host_memory, nic, nvswitch, leaf, spine };

struct VertexInfo {
  VertexKind kind = VertexKind::gpu;
};

struct EdgeInfo {
  int link = -1;  ///< index in Topology::links(); -1 for the PCIe root - NIC attachment, which has no link of its own
  int gpu = -1;   ///< the GPU a host_memory link serves; -1 for other links
};

using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexInfo, EdgeInfo>;
using Vertex = BoostGraph::vertex_descriptor;
using Edge = BoostGraph::edge_descriptor;

namespace {

constexpr unsigned bit(LinkClass link_class) { return 1u << static_cast<unsigned>(link_class); }
constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

// docs/hardware-facts.md, "P2P between vGPUs" and "MIG"; docs/design.md, "The model" item 2. Flip an entry (or pass
// another table to Topology) to model a host that behaves otherwise.
const P2pRuleTable& default_p2p_rules() {
  static const P2pRuleTable rules = {{
      {.mode = VirtualizationMode::bare_metal,
       .nvlink = true,
       .nvlink_whole_gpu_same_vm = false,
       .pcie_p2p = true,
       .source = "CUDA peer access: NVLink where linked, else over PCIe through the root complex"},
      // P2P over PCIe is not assumed in a VM: the hypervisor's IOMMU (VT-d) and the PCIe switches' ACS usually send
      // peer traffic up to the root complex or block it, and NCCL needs both off to use PCIe P2P ([S] NVIDIA/nccl
      // issues #631, #841). Set pcie_p2p for a host whose passthrough setup allows it.
      {.mode = VirtualizationMode::passthrough,
       .nvlink = true,
       .nvlink_whole_gpu_same_vm = false,
       .pcie_p2p = false,
       .source = "NVLink where linked; PCIe P2P not assumed (IOMMU/ACS in hypervisors usually blocks it)"},
      {.mode = VirtualizationMode::vgpu,
       .nvlink = true,
       .nvlink_whole_gpu_same_vm = true,
       .pcie_p2p = false,
       .source = "NVIDIA AI Enterprise, Peer-To-Peer CUDA Transfers [P]: whole-GPU time-sliced vGPUs of one VM, "
                 "over NVLink only, never over PCIe"},
      {.mode = VirtualizationMode::mig,
       .nvlink = false,
       .nvlink_whole_gpu_same_vm = false,
       .pcie_p2p = false,
       .source = "MIG instances have no peer-to-peer path (NVIDIA MIG user guide [P])"},
  }};
  return rules;
}

struct Topology::Graph {
  BoostGraph graph;
  std::vector<Vertex> roots;        ///< per host, its PCIe root complex
  std::vector<Vertex> host_memory;  ///< per host
  std::vector<Vertex> nics;         ///< per host x nics
};

/// Admits the edges a route may take: links of the classes in `classes` (of host_memory links only the one serving
/// `host_memory_gpu`), and the link-less NIC attachments when `structural`.
struct Topology::EdgeFilter {
  const BoostGraph* graph = nullptr;
  const std::vector<Link>* links = nullptr;
  unsigned classes = 0;
  bool structural = false;
  int host_memory_gpu = -1;

  bool operator()(const Edge& edge) const {
    const EdgeInfo& info = (*graph)[edge];
    if (info.link < 0) return structural;
    const LinkClass link_class = (*links)[static_cast<std::size_t>(info.link)].link_class;
    if ((classes & bit(link_class)) == 0) return false;
    return link_class != LinkClass::host_memory || info.gpu == host_memory_gpu;
  }
};

/// Adds vertices and links in a fixed order: GPUs (vertex g is GPU g), leaves, spines, then each host's PCIe root,
/// host memory, NVSwitch and NICs.
struct Topology::Builder {
  Topology& topology;
  Graph& graph;

  Vertex add_vertex(VertexKind kind) { return boost::add_vertex(VertexInfo{kind}, graph.graph); }

  int add_link(Vertex a, Vertex b, std::string name, LinkClass link_class, double bandwidth_Bps, double latency_s,
               int gpu = -1) {
    const int index = static_cast<int>(topology.links_.size());
    topology.links_.push_back({std::move(name), link_class, bandwidth_Bps, latency_s});
    topology.link_source_.push_back(a);
    boost::add_edge(a, b, EdgeInfo{index, gpu}, graph.graph);
    return index;
  }

  /// A link that no route search crosses: routes insert it by index.
  int add_loose_link(Vertex source, std::string name, const LinkDefault& value) {
    const int index = static_cast<int>(topology.links_.size());
    topology.links_.push_back({std::move(name), LinkClass::tcp_stack, value.bandwidth_Bps, value.latency_s});
    topology.link_source_.push_back(source);
    return index;
  }

  /// Per GPU, its rank's share of the VM's TCP stack (TopologySpec::tcp_stacks), off the graph.
  void add_tcp_stacks(const std::vector<LinkDefault>& stacks) {
    const int gpus = topology.gpus_per_host_;
    for (int g = 0; g < static_cast<int>(stacks.size()); ++g) {
      topology.tcp_stack_links_.push_back(add_loose_link(
          static_cast<Vertex>(g), "host" + std::to_string(g / gpus) + "/gpu" + std::to_string(g % gpus) + "/tcp_stack",
          stacks[static_cast<std::size_t>(g)]));
    }
  }

  void add_nvlinks(int host, const LinkDefault& nvlink) {
    const int gpus = topology.gpus_per_host_;
    const auto gpu_vertex = [&](int local) { return static_cast<Vertex>(host * gpus + local); };
    const std::string prefix = "host" + std::to_string(host) + "/";
    switch (topology.nvlink_layout_) {
      case NvlinkLayout::none:
        return;
      case NvlinkLayout::bridge_pairs:
        for (int local = 0; local + 1 < gpus; local += 2) {
          add_link(gpu_vertex(local), gpu_vertex(local + 1),
                   prefix + "nvlink" + std::to_string(local) + "-" + std::to_string(local + 1), LinkClass::nvlink,
                   nvlink.bandwidth_Bps, nvlink.latency_s);
        }
        return;
      case NvlinkLayout::full_mesh:
        for (int low = 0; low < gpus; ++low) {
          for (int high = low + 1; high < gpus; ++high) {
            add_link(gpu_vertex(low), gpu_vertex(high),
                     prefix + "nvlink" + std::to_string(low) + "-" + std::to_string(high), LinkClass::nvlink,
                     nvlink.bandwidth_Bps, nvlink.latency_s);
          }
        }
        return;
      case NvlinkLayout::nvswitch:
      case NvlinkLayout::hub_approximation: {
        const Vertex nvswitch = add_vertex(VertexKind::nvswitch);
        for (int local = 0; local < gpus; ++local) {
          // Two links per GPU-to-GPU step: each carries half the step's latency.
          add_link(gpu_vertex(local), nvswitch, prefix + "gpu" + std::to_string(local) + "/nvlink", LinkClass::nvlink,
                   nvlink.bandwidth_Bps, nvlink.latency_s / 2);
        }
        return;
      }
    }
  }

  void build(const TopologySpec& spec) {
    const int gpus = topology.gpus_per_host_;
    const int nics = topology.nics_per_host_;
    // Catalog defaults, with whatever the scenario's calibration profile measured in their place.
    const LinkDefault& pcie = spec.pcie;
    const LinkDefault& staging = spec.host_memory;
    const LinkDefault& nic_link = spec.nic;
    const LinkDefault& uplink = spec.uplink;
    const LinkDefault& nvlink = spec.nvlink;
    // Half of one host-to-host message through one leaf on each of the two nic links of a route.
    const double nic_latency_s = (nic_link.latency_s + spec.switch_latency_s) / 2;

    for (int g = 0; g < topology.gpu_count_; ++g) add_vertex(VertexKind::gpu);
    std::vector<Vertex> leaves;
    std::vector<Vertex> spines;
    const int rails = topology.rails_;
    for (int leaf = 0; leaf < topology.rack_count_ * rails; ++leaf) leaves.push_back(add_vertex(VertexKind::leaf));
    for (int spine = 0; spine < topology.spines_; ++spine) spines.push_back(add_vertex(VertexKind::spine));
    if (nics > 0) {
      for (int rack = 0; rack < topology.rack_count_; ++rack) {
        for (int rail = 0; rail < rails; ++rail) {
          const std::string leaf = "rack" + std::to_string(rack) + (rails > 1 ? "/rail" + std::to_string(rail) : "");
          for (int spine = 0; spine < topology.spines_; ++spine) {
            topology.uplinks_.push_back(add_link(
                leaves[static_cast<std::size_t>(rack * rails + rail)], spines[static_cast<std::size_t>(spine)],
                leaf + "/uplink" + std::to_string(spine), LinkClass::fabric, uplink.bandwidth_Bps, uplink.latency_s));
          }
        }
      }
    }
    // PCIe switches, each with its GPUs (and NICs) and one x16 uplink to the root complex at the slots' generation.
    // The uplink adds no latency: a GPU-to-GPU step over PCIe pays the measured step's, through a switch or not.
    const int per_switch = spec.pcie_switch_gpus;
    const int switch_count = per_switch > 0 ? (gpus + per_switch - 1) / per_switch : 0;
    for (int host = 0; host < topology.host_count_; ++host) {
      const std::string prefix = "host" + std::to_string(host) + "/";
      const Vertex root = add_vertex(VertexKind::pcie_root);
      graph.roots.push_back(root);
      const Vertex memory = add_vertex(VertexKind::host_memory);
      graph.host_memory.push_back(memory);
      std::vector<Vertex> switches;
      for (int s = 0; s < switch_count; ++s) {
        switches.push_back(add_vertex(VertexKind::pcie_switch));
        add_link(switches.back(), root, prefix + "pcie_switch" + std::to_string(s) + "/uplink", LinkClass::pcie,
                 pcie.bandwidth_Bps, 0.0);
      }
      for (int local = 0; local < gpus; ++local) {
        const int g = host * gpus + local;
        const std::string gpu_prefix = prefix + "gpu" + std::to_string(local) + "/";
        const Vertex upstream = switches.empty() ? root : switches[static_cast<std::size_t>(local / per_switch)];
        add_link(static_cast<Vertex>(g), upstream, gpu_prefix + "pcie", LinkClass::pcie, pcie.bandwidth_Bps,
                 pcie.latency_s);
        if (gpus >= 2) {
          add_link(root, memory, gpu_prefix + "host_memory", LinkClass::host_memory, staging.bandwidth_Bps,
                   staging.latency_s, g);
        }
      }
      add_nvlinks(host, nvlink);
      for (int k = 0; k < nics; ++k) {
        const Vertex nic_vertex = add_vertex(VertexKind::nic);
        graph.nics.push_back(nic_vertex);
        // Under the switch of the first GPU that uses it (Topology::nic_of).
        const Vertex slot =
            switches.empty() ? root : switches[static_cast<std::size_t>(topology.first_local_on_nic(k) / per_switch)];
        boost::add_edge(slot, nic_vertex, EdgeInfo{}, graph.graph);
        const int leaf = host / topology.hosts_per_rack_ * rails + (rails > 1 ? k : 0);
        topology.nic_links_.push_back(add_link(nic_vertex, leaves[static_cast<std::size_t>(leaf)],
                                               prefix + "nic" + std::to_string(k), LinkClass::nic,
                                               nic_link.bandwidth_Bps, nic_latency_s));
      }
    }
    add_tcp_stacks(spec.tcp_stacks);
  }
};

Topology::Topology(const TopologySpec& spec, const P2pRuleTable& rules) {
  rule_ = rules[static_cast<std::size_t>(spec.mode)];
  assert(rule_.mode == spec.mode && "rules are in VirtualizationMode order");
  nvlink_usable_ = spec.nvlink_usable;
  nvlink_layout_ = spec.nvlink_layout;
  gpus_per_host_ = spec.gpus_per_host;
  hosts_per_rack_ = spec.hosts_per_rack;
  nics_per_host_ = spec.nics_per_host;
  rack_count_ = spec.racks;
  host_count_ = spec.racks * spec.hosts_per_rack;
  gpu_count_ = host_count_ * spec.gpus_per_host;
  spines_ = spec.spines;
  rails_ = spec.rails;
  pxn_ = spec.pxn;
  pcie_switch_gpus_ = spec.pcie_switch_gpus;
  seed_ = spec.seed;
  assert((spec.tcp_stacks.empty() || spec.tcp_stacks.size() == static_cast<std::size_t>(gpu_count_)) &&
         "one TCP stack per GPU, or none");
  assert((spec.nvlink_usable || spec.nvlink_layout == NvlinkLayout::none) && "no NVLink layout without NVLink");
  assert((spec.rails == 1 || spec.rails == spec.nics_per_host) && "one rail per NIC on rail-optimized cabling");
  assert((spec.racks > 1 || spec.spines == 0) && "spines join racks");
  if (rule_.nvlink_whole_gpu_same_vm) {
    assert(spec.whole_gpu_jobs.size() == static_cast<std::size_t>(gpu_count_) && "the rule reads every GPU's jobs");
    whole_gpu_jobs_ = spec.whole_gpu_jobs;
  }
  auto graph = std::make_unique<Graph>();
  Builder{*this, *graph}.build(spec);
  graph_ = std::move(graph);
}

Topology::~Topology() = default;
Topology::Topology(Topology&&) noexcept = default;
Topology& Topology::operator=(Topology&&) noexcept = default;

GpuLocation Topology::location(int gpu) const {
  assert(gpu >= 0 && gpu < gpu_count_);
  const int host = gpu / gpus_per_host_;
  return {.rack = host / hosts_per_rack_, .host = host, .local = gpu % gpus_per_host_};
}

bool Topology::nvlink_allowed(int a, int b) const {
  if (!rule_.nvlink || !nvlink_usable_) return false;
  if (!rule_.nvlink_whole_gpu_same_vm) return true;
  // One VM per job per host: the two vGPUs must belong to one job, each owning its whole GPU.
  for (int job : whole_gpu_jobs_[static_cast<std::size_t>(a)]) {
    const std::vector<int>& jobs_b = whole_gpu_jobs_[static_cast<std::size_t>(b)];
    if (std::find(jobs_b.begin(), jobs_b.end(), job) != jobs_b.end()) return true;
  }
  return false;
}

bool Topology::nvlink_neighbours(int a, int b) const {
  if (a / gpus_per_host_ != b / gpus_per_host_) return false;
  switch (nvlink_layout_) {
    case NvlinkLayout::none:
      return false;
    case NvlinkLayout::nvswitch:
    case NvlinkLayout::hub_approximation:
      return true;
    case NvlinkLayout::bridge_pairs:
    case NvlinkLayout::full_mesh:
      return boost::edge(static_cast<Vertex>(a), static_cast<Vertex>(b), graph_->graph).second;
  }
  return false;
}

std::vector<Hop> Topology::search(std::size_t from, std::size_t to, const EdgeFilter& filter) const {
  const BoostGraph& graph = graph_->graph;
  const boost::filtered_graph<BoostGraph, EdgeFilter> view(graph, filter);
  // Associative maps keep a search proportional to the part of the graph it reaches (one host), not to the cluster.
  std::map<Vertex, boost::default_color_type> colors;
  std::map<Vertex, Edge> tree_edges;
  boost::queue<Vertex> queue;
  boost::breadth_first_visit(view, from, queue,
                             boost::make_bfs_visitor(boost::record_edge_predecessors(
                                 boost::make_assoc_property_map(tree_edges), boost::on_tree_edge())),
                             boost::make_assoc_property_map(colors));
  std::vector<Hop> hops;
  if (!tree_edges.contains(to)) return hops;
  for (Vertex vertex = to; vertex != from;) {
    const Edge edge = tree_edges.at(vertex);
    const Vertex previous = boost::source(edge, graph);
    const int link = graph[edge].link;
    if (link >= 0) hops.push_back({link, link_source_[static_cast<std::size_t>(link)] == previous});
    vertex = previous;
  }
  std::reverse(hops.begin(), hops.end());
  return hops;
}

std::vector<Hop> Topology::intra_host_route(int a, int b) const {
  assert(a != b && location(a).host == location(b).host);
  const EdgeFilter base{.graph = &graph_->graph, .links = &links_};
  const auto from = static_cast<std::size_t>(a);
  const auto to = static_cast<std::size_t>(b);
  if (nvlink_allowed(a, b)) {
    EdgeFilter nvlink = base;
    nvlink.classes = bit(LinkClass::nvlink);
    std::vector<Hop> hops = search(from, to, nvlink);
    if (!hops.empty()) return hops;  // else not linked (another bridge pair): fall through to PCIe or host memory
  }
  EdgeFilter pcie = base;
  pcie.classes = bit(LinkClass::pcie);
  if (rule_.pcie_p2p) return search(from, to, pcie);
  // Staged through host memory: the sender's transport into it, the receiver's out of it.
  const Vertex memory = graph_->host_memory[static_cast<std::size_t>(location(a).host)];
  EdgeFilter staging = pcie;
  staging.classes |= bit(LinkClass::host_memory);
  staging.host_memory_gpu = a;
  std::vector<Hop> hops = search(from, memory, staging);
  staging.host_memory_gpu = b;
  const std::vector<Hop> second_leg = search(memory, to, staging);
  hops.insert(hops.end(), second_leg.begin(), second_leg.end());
  return hops;
}

std::vector<Hop> Topology::gpu_to_network(int gpu) const {
  assert(nics_per_host_ > 0 && "routes between hosts need NICs");
  if (to_network_.empty()) to_network_.resize(static_cast<std::size_t>(gpu_count()));
  std::vector<Hop>& known = to_network_[static_cast<std::size_t>(gpu)];
  if (known.empty()) known = search_gpu_to_nic(gpu, nic_of(gpu));
  return known;
}

std::vector<Hop> Topology::search_gpu_to_nic(int gpu, int local_nic) const {
  const GpuLocation where = location(gpu);
  const auto nic = static_cast<std::size_t>(where.host * nics_per_host_ + local_nic);
  const EdgeFilter to_nic{
      .graph = &graph_->graph, .links = &links_, .classes = bit(LinkClass::pcie), .structural = true};
  std::vector<Hop> hops;
  if (!pxn_ && pcie_switch_gpus_ > 0) {
    // Without GPUDirect RDMA the data is staged in host memory: up to the root complex, then down to the NIC, across
    // the switches' uplinks even where the NIC sits under the GPU's own switch.
    const auto root = graph_->roots[static_cast<std::size_t>(where.host)];
    hops = search(static_cast<std::size_t>(gpu), root, to_nic);
    const std::vector<Hop> down = search(root, graph_->nics[nic], to_nic);
    hops.insert(hops.end(), down.begin(), down.end());
  } else {
    hops = search(static_cast<std::size_t>(gpu), graph_->nics[nic], to_nic);
  }
  if (!tcp_stack_links_.empty()) hops.push_back({tcp_stack_links_[static_cast<std::size_t>(gpu)], true});
  hops.push_back({nic_links_[nic], true});
  return hops;
}

std::vector<Hop> Topology::gpu_to_nic(int gpu, int nic) const {
  assert(nic >= 0 && nic < nics_per_host_);
  const GpuLocation where = location(gpu);
  if (nic_of(gpu) == nic) return gpu_to_network(gpu);
  // PXN: across NVLink to the first GPU on the NIC, then through its PCIe link; not where the sender reaches the NIC
  // under its own PCIe switch.
  const int first = first_local_on_nic(nic);
  const int beside = where.host * gpus_per_host_ + first;
  const bool under_own_switch = pcie_switch_gpus_ > 0 && first / pcie_switch_gpus_ == where.local / pcie_switch_gpus_;
  if (pxn_ && !under_own_switch && first < gpus_per_host_ && nvlink_allowed(gpu, beside) &&
      nvlink_neighbours(gpu, beside)) {
    std::vector<Hop> hops = intra_host_route(gpu, beside);
    const std::vector<Hop> rest = gpu_to_network(beside);
    hops.insert(hops.end(), rest.begin(), rest.end());
    return hops;
  }
  const std::size_t key =
      static_cast<std::size_t>(gpu) * static_cast<std::size_t>(nics_per_host_) + static_cast<std::size_t>(nic);
  auto known = to_other_nic_.find(key);
  if (known == to_other_nic_.end()) known = to_other_nic_.emplace(key, search_gpu_to_nic(gpu, nic)).first;
  return known->second;
}

int Topology::nic_of(int gpu) const {
  const int local = location(gpu).local;
  return pcie_switch_gpus_ > 0 ? local * nics_per_host_ / gpus_per_host_ : local % nics_per_host_;
}

int Topology::first_local_on_nic(int nic) const {
  return pcie_switch_gpus_ > 0 ? (nic * gpus_per_host_ + nics_per_host_ - 1) / nics_per_host_ : nic;
}

int Topology::rail(int destination) const { return rails_ > 1 ? nic_of(destination) : 0; }

int Topology::sending_nic(int a, int b) const { return rails_ > 1 ? rail(b) : nic_of(a); }

std::vector<Hop> Topology::gpu_to_uplink(int gpu, int port) const {
  assert(!uplinks_.empty() && port >= 0 && port < rails_ * spines_);
  std::vector<Hop> hops = rails_ > 1 ? gpu_to_nic(gpu, port / spines_) : gpu_to_network(gpu);
  hops.push_back({uplink(location(gpu).rack, port), true});
  return hops;
}

int Topology::ecmp_spine(int a, int b, int flow) const {
  if (spines_ <= 1) return 0;
  // splitmix64 (Steele, Lea, Flood 2014) over the seed and the flow's identity: deterministic, well mixed.
  const auto mix = [](std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  std::uint64_t hash = mix(seed_);
  for (std::uint64_t field :
       {static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b), static_cast<std::uint64_t>(flow)}) {
    hash = mix(hash ^ field);
  }
  return static_cast<int>(hash % static_cast<std::uint64_t>(spines_));
}

std::vector<Hop> Topology::host_to_host(int host_a, int host_b, int port) const {
  assert(host_a >= 0 && host_a < host_count_ && host_b >= 0 && host_b < host_count_);
  const int rack_a = host_a / hosts_per_rack_;
  const int rack_b = host_b / hosts_per_rack_;
  if (rack_a == rack_b) return {};
  assert(!uplinks_.empty() && "routes between racks need NICs");
  assert(port >= 0 && port < rails_ * spines_);
  return {{uplink(rack_a, port), true}, {uplink(rack_b, port), false}};
}

std::vector<Hop> Topology::route_between_hosts(int a, int b, int port) const {
  const GpuLocation from = location(a);
  const GpuLocation to = location(b);
  assert(from.host != to.host);
  std::vector<Hop> hops = gpu_to_nic(a, sending_nic(a, b));
  const std::vector<Hop> fabric = host_to_host(from.host, to.host, port);
  hops.insert(hops.end(), fabric.begin(), fabric.end());
  std::vector<Hop> down = gpu_to_network(b);
  for (auto hop = down.rbegin(); hop != down.rend(); ++hop) hops.push_back({hop->link, !hop->forward});
  return hops;
}

std::vector<Hop> Topology::route(int a, int b, int flow) const {
  if (a == b) return {};
  const GpuLocation from = location(a);
  const GpuLocation to = location(b);
  if (from.host == to.host) return intra_host_route(a, b);
  return route_between_hosts(a, b, from.rack == to.rack ? 0 : uplink_port(a, b, flow));
}

double Topology::latency_s(const std::vector<Hop>& route) const {
  double total_s = 0;
  for (const Hop& hop : route) total_s += links_[static_cast<std::size_t>(hop.link)].latency_s;
  return total_s;
}

double Topology::bottleneck_Bps(const std::vector<Hop>& route) const {
  double smallest_Bps = kInfinity;
  for (const Hop& hop : route) {
    smallest_Bps = std::min(smallest_Bps, links_[static_cast<std::size_t>(hop.link)].bandwidth_Bps);
  }
  return smallest_Bps;
}

std::vector<int> Topology::ring_order(std::vector<int> gpus) const {
  // Global indices already run by rack, then host, then local index.
  std::sort(gpus.begin(), gpus.end());
  std::vector<int> order;
  order.reserve(gpus.size());
  for (std::size_t begin = 0; begin < gpus.size();) {
    std::size_t end = begin;
    while (end < gpus.size() && gpus[end] / gpus_per_host_ == gpus[begin] / gpus_per_host_) ++end;
    std::vector<bool> placed(end - begin, false);
    for (std::size_t step = 0; step < end - begin; ++step) {
      std::size_t next = end - begin;
      for (std::size_t i = 0; i < end - begin && step > 0; ++i) {
        if (!placed[i] && nvlink_neighbours(order.back(), gpus[begin + i])) {
          next = i;
          break;
        }
      }
      if (next == end - begin) {
        next = static_cast<std::size_t>(std::find(placed.begin(), placed.end(), false) - placed.begin());
      }
      placed[next] = true;
      order.push_back(gpus[begin + next]);
    }
    begin = end;
  }
  return order;
}

std::vector<std::vector<int>> Topology::host_ring_orders(const std::vector<int>& gpus) const {
  bool mesh = nvlink_layout_ == NvlinkLayout::full_mesh && gpus.size() >= 3;
  for (std::size_t i = 0; i < gpus.size() && mesh; ++i) {
    for (std::size_t j = i + 1; j < gpus.size() && mesh; ++j) {
      mesh = nvlink_allowed(gpus[i], gpus[j]) && nvlink_neighbours(gpus[i], gpus[j]);
    }
  }
  if (!mesh) return {gpus};
  std::vector<std::vector<int>> orders;
  std::vector<int> order = gpus;
  std::sort(order.begin() + 1, order.end());
  do {
    orders.push_back(order);
  } while (std::next_permutation(order.begin() + 1, order.end()));
  return orders;
}

FlowRates Topology::equal_share_rates(const std::vector<std::pair<int, int>>& flows) const {
  std::vector<std::vector<Hop>> routes;
  routes.reserve(flows.size());
  std::vector<int> load(2 * links_.size(), 0);  // flows per link direction: 2 * link + (forward ? 0 : 1)
  const auto direction = [](const Hop& hop) { return static_cast<std::size_t>(2 * hop.link + (hop.forward ? 0 : 1)); };
  for (const auto& [source, destination] : flows) {
    routes.push_back(route(source, destination));
    for (const Hop& hop : routes.back()) ++load[direction(hop)];
  }
  FlowRates rates;
  rates.rate_Bps.reserve(flows.size());
  for (const std::vector<Hop>& hops : routes) {
    double rate_Bps = kInfinity;
    for (const Hop& hop : hops) {
      rate_Bps = std::min(rate_Bps, links_[static_cast<std::size_t>(hop.link)].bandwidth_Bps / load[direction(hop)]);
    }
    rates.rate_Bps.push_back(rate_Bps);
    rates.slowest_Bps = std::min(rates.slowest_Bps, rate_Bps);
  }
  return rates;
}

double Topology::ring_bottleneck_Bps(const std::vector<int>& ring) const {
  if (ring.size() < 2) return kInfinity;
  std::vector<std::pair<int, int>> flows;
  flows.reserve(ring.size());
  for (std::size_t i = 0; i < ring.size(); ++i) flows.emplace_back(ring[i], ring[(i + 1) % ring.size()]);
  return equal_share_rates(flows).slowest_Bps;
}

}  // namespace vtsim
