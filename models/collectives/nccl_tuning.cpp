#include "models/collectives/nccl_tuning.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <span>
#include <string>

#include "models/core/enum_names.hpp"

// Source: NVIDIA NCCL, src/graph/tuning.cc (ncclTopoTuneModel, ncclTopoGetAlgoTime) and src/graph/topo.h, as in
// v2.30.7 (docs/hardware-facts.md; the constants below are the same since 2.19). Units as in NCCL: us and GB/s.
// Index order as in NCCL: algorithms Tree = 0, Ring = 1 (and NVLS, NCCL's 4, as 2 here; CollNet Direct and Chain,
// NCCL's 2 and 3, as 3 and 4); protocols LL = 0, LL128 = 1, Simple = 2; hardware NVLink = 0, PCI = 1, NET = 2.

namespace vtsim {
namespace {

constexpr int kTree = 0;
constexpr int kRing = 1;
constexpr int kNvls = 2;
constexpr int kCollnetDirect = 3;
constexpr int kCollnetChain = 4;
constexpr int kLl = 0;
constexpr int kLl128 = 1;
constexpr int kSimple = 2;
constexpr int kNvlink = 0;
constexpr int kPci = 1;
constexpr int kNet = 2;

// tuning.cc baseLat[algorithm][protocol] (Tree, Ring, NVLS)
constexpr double kBaseLatency_us[3][3] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0.0, 0.0, 0.0}};
// tuning.cc hwLat[hardware][algorithm][protocol]
constexpr double kHardwareLatency_us[3][2][3] = {
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}},   // NVLink: Tree, Ring
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}},    // PCI
    {{5.0, 8.5, 14.0}, {2.7, 4.0, 14.0}},  // NET
};
// tuning.cc (ncclTunerConstantsDefaults), per compute-capability index (Volta, Ampere, Hopper, Blackwell) and
// node-count index (1, 2, >2 nodes).
constexpr double kLlMaxBandwidth_GBps[4][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}};
constexpr double kPerChannelMaxRingLl128_GBps[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}};
constexpr double kPerChannelMaxTreeLl128_GBps[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kPerChannelMaxTree_GBps[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
// NVLS (tuning.cc): hwLat[NVLink][NVLS][Simple] 25 us, which replaces the base latency (0) on one node; its
// bandwidth efficiency, nvlsEfficiency: Hopper 0.85, Blackwell 0.74; and NCCL_MAX_NVLS_ARITY 32 (device.h).
constexpr double kNvlsLatency_us = 25.0;
constexpr double kNvlsEfficiencyHopper = 0.85;
constexpr double kNvlsEfficiencyBlackwell = 0.74;
constexpr int kMaxNvlsArity = 32;
// CollNet (tuning.cc), Simple only, no base latency: hwLat[NVLink or PCI][CollNetDirect][Simple] 3.7 us and
// [CollNetChain] 2.8 us inside a node, hwLat[NET] 31 and 30 us to the switches and back (the tree's 14 us with one
// rank per node); CollNet Direct's "0.4 us arity serialization latency" per other GPU of the node; and
// NCCL_MAX_DIRECT_ARITY + 1 = 8 (device.h), the most heads of a Direct graph and ranks per node of either.
constexpr double kCollnetDirectIntraLatency_us = 3.7;
constexpr double kCollnetChainIntraLatency_us = 2.8;
constexpr double kCollnetDirectNetLatency_us = 31.0;
constexpr double kCollnetChainNetLatency_us = 30.0;
constexpr double kCollnetArityLatency_us = 0.4;
constexpr int kMaxCollnetLocalRanks = 8;
// CollNet Direct's bandwidth on Hopper and later (tuning.cc: "if (minCompCap >= 90) busBw *= .85").
constexpr double kCollnetDirectEfficiencyHopper = 0.85;
// search.cc sm90SpeedArrayIntra and sm100SpeedArrayIntra: the bandwidths per channel the search tries on one node,
// fastest first, GB/s.
constexpr double kSm90IntraSpeeds_GBps[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr double kSm100IntraSpeeds_GBps[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
// search.cc speedArrayInter, sm90SpeedArrayInter and sm100SpeedArrayInter: the same across nodes.
constexpr double kInterSpeeds_GBps[] = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                        7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kSm90InterSpeeds_GBps[] = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                            15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr double kSm100InterSpeeds_GBps[] = {96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0,
                                             20.0, 17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
// tuning.cc treeCorrectionFactor[protocol][log2(bytes / 64)]: trees run below their model at medium sizes.
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
};

int algorithm_index(NcclAlgorithm algorithm) {
  switch (algorithm) {
    case NcclAlgorithm::tree: return kTree;
    case NcclAlgorithm::ring: return kRing;
    case NcclAlgorithm::nvls: return kNvls;
    case NcclAlgorithm::collnet_direct: return kCollnetDirect;
    case NcclAlgorithm::collnet_chain: return kCollnetChain;
  }
  return kRing;
}

int log2_floor(std::size_t value) {
  int result = 0;
  while (value >>= 1) ++result;
  return result;
}

/// NCCL's compCapIndex: Blackwell from 10.0, Hopper from 9.0, Ampere from 8.0, else Volta (which Pascal and Turing
/// share).
int capability_index(int compute_capability) {
  if (compute_capability >= 100) return 3;
  if (compute_capability >= 90) return 2;
  return compute_capability >= 80 ? 1 : 0;
}

/// NCCL enables LL128 by default only where it was tested: intra-node paths over NVLink (or one GPU per node), the
/// NIC next to the GPU, and compute capability 7.0, 8.0 or 9.0 ("Enable LL128 by default only on
/// Volta/Ampere/Hopper+NVLink. Other cases are not tested and may cause silent data corruption.", NCCL 2.19), and
/// 10.0 ("Enable LL128 by default only on Hopper/Blackwell for all connections up to P2C and PXN.", 2.30.7). 2.30.7
/// no longer lists capabilities (any from 7.0 on, by path type alone); the list is kept, so that the cards of
/// capability 7.5 and 8.6 (T4, A10, A40) keep the behaviour they were checked with.
bool ll128_enabled(const NcclCommunicator& comm) {
  const bool intra_ok = comm.nvlink_intra || comm.ranks == comm.nodes;
  const bool inter_ok = comm.nodes == 1 || comm.gpu_direct_nic;
  const int cc = comm.compute_capability;
  return intra_ok && inter_ok && (cc == 70 || cc == 80 || cc == 90 || cc == 100);
}

// NCCL's spellings, read by scenarios (jobs[i].nccl) and written by to_string: one table each
// (models/core/enum_names.hpp).
const std::array<std::pair<std::string, NcclAlgorithm>, 5> kAlgorithmNames = {{
    {"tree", NcclAlgorithm::tree},
    {"ring", NcclAlgorithm::ring},
    {"nvls", NcclAlgorithm::nvls},
    {"collnetdirect", NcclAlgorithm::collnet_direct},
    {"collnetchain", NcclAlgorithm::collnet_chain},
}};
const std::array<std::pair<std::string, NcclProtocol>, 3> kProtocolNames = {{
    {"LL", NcclProtocol::ll},
    {"LL128", NcclProtocol::ll128},
    {"Simple", NcclProtocol::simple},
}};

}  // namespace

std::string_view to_string(NcclAlgorithm algorithm) { return name_of(kAlgorithmNames, algorithm); }
std::string_view to_string(NcclProtocol protocol) { return name_of(kProtocolNames, protocol); }
std::span<const std::pair<std::string, NcclAlgorithm>> nccl_algorithm_names() { return kAlgorithmNames; }
std::span<const std::pair<std::string, NcclProtocol>> nccl_protocol_names() { return kProtocolNames; }

namespace {

/// The search's speeds across nodes for compute capability `cc`, fastest first.
std::span<const double> inter_speeds(int cc) {
  if (cc >= 100) return kSm100InterSpeeds_GBps;
  return cc >= 90 ? std::span<const double>(kSm90InterSpeeds_GBps) : std::span<const double>(kInterSpeeds_GBps);
}

/// The index of the fastest speed at most `GBps` (the slowest where none is).
std::size_t speed_at_most(std::span<const double> speeds, double GBps) {
  std::size_t index = 0;
  while (index + 1 < speeds.size() && speeds[index] > GBps) ++index;
  return index;
}

/// The search's second pass on a graph found at speeds[index]: one of its bandwidths (a tree's or CollNet's bwIntra,
/// NVLS's bwInter) raised one speed at a time while it is below twice that speed and the next speed fits `fits_GBps`
/// per channel.
double raised_speed(std::span<const double> speeds, std::size_t index, double fits_GBps) {
  const double found = speeds[index];
  double raised = found;
  while (index > 0 && raised < 2 * found && speeds[index - 1] <= fits_GBps) raised = speeds[--index];
  return raised;
}

}  // namespace

NcclGraph nccl_nvls_graph(int gpus, int nvlink_links, int compute_capability) {
  NcclGraph graph;
  if (gpus < 2 || compute_capability < 90 || nvlink_links < 1) return graph;
  graph.channels = std::min(gpus, kMaxNvlsArity);
  const double total_GBps = nvlink_links * nccl_nvlink_channel_GBps(compute_capability);
  const std::span<const double> speeds =
      compute_capability >= 100 ? std::span<const double>(kSm100IntraSpeeds_GBps)
                                 : std::span<const double>(kSm90IntraSpeeds_GBps);
  // The fastest speed whose paths fit; the slowest if none does (the search then keeps its last try).
  graph.intra_GBps = speeds.back();
  std::size_t index = speeds.size() - 1;
  for (std::size_t i = 0; i < speeds.size(); ++i) {
    if ((gpus + 1) * speeds[i] <= total_GBps) {
      graph.intra_GBps = speeds[i];
      index = i;
      break;
    }
  }
  // Pass 2 raises bwInter one speed at a time while it is below twice bwIntra (nothing limits it on one node).
  graph.inter_GBps = raised_speed(speeds, index, std::numeric_limits<double>::infinity());
  return graph;
}

NcclGraph nccl_collnet_chain_graph(const NcclCommunicator& comm, double gpu_intra_GBps) {
  const std::span<const double> speeds = inter_speeds(comm.compute_capability);
  const std::size_t index = speed_at_most(speeds, comm.channel_bandwidth_GBps);
  NcclGraph graph;
  graph.channels = comm.channels;
  graph.inter_GBps = speeds[index];
  // One GPU per node: no path inside the node bounds it.
  const double fits_GBps =
      comm.ranks == comm.nodes ? std::numeric_limits<double>::infinity() : gpu_intra_GBps / comm.channels;
  graph.intra_GBps = raised_speed(speeds, index, fits_GBps);
  return graph;
}

NcclGraph nccl_collnet_direct_graph(int ranks_per_node, int nics, double node_net_GBps, double gpu_intra_GBps,
                                    int compute_capability) {
  NcclGraph graph;
  const int most = std::min(ranks_per_node, kMaxCollnetLocalRanks);
  if (nics < 1 || most < 1) return graph;
  // One head per NIC with a GPU of its own, each at its NIC's speed (net.bw >= bwInter).
  const std::span<const double> speeds = inter_speeds(compute_capability);
  const std::size_t index = speed_at_most(speeds, node_net_GBps / nics);
  graph.channels = std::min(nics, most);
  graph.inter_GBps = graph.intra_GBps = speeds[index];
  // ncclTopoDupChannels: twice the channels (up to the graph's most) at the bandwidth divided accordingly. The second
  // pass then asks for as many channels, which a Direct search (one per NIC) cannot find: bwIntra stays.
  if (graph.inter_GBps >= 25.0 && !(compute_capability > 80 && graph.inter_GBps < 50.0 && graph.channels > 4)) {
    const int doubled = std::min(2 * graph.channels, most);
    if (doubled > graph.channels) {
      graph.inter_GBps /= (doubled + graph.channels - 1) / graph.channels;
      graph.intra_GBps = graph.inter_GBps;
      graph.channels = doubled;
      return graph;
    }
  }
  // Each channel's head takes bwIntra from every other GPU of the node, 1 / (ranks - 1) of it on each path, and
  // returns it the same way: a GPU carries its own head's bwIntra and that share of every other head's.
  const double per_gpu = 1.0 + (graph.channels - 1.0) / std::max(1.0, ranks_per_node - 1.0);
  const double fits_GBps = ranks_per_node > 1 ? gpu_intra_GBps / per_gpu : std::numeric_limits<double>::infinity();
  graph.intra_GBps = raised_speed(speeds, index, fits_GBps);
  return graph;
}

NcclCostTable nccl_costs(const NcclCommunicator& comm, NcclCollective collective) {
  assert(comm.ranks >= 2 && comm.nodes >= 1 && comm.channels >= 1);
  const int n_ranks = comm.ranks;
  const int n_nodes = comm.nodes;
  const int cap = capability_index(comm.compute_capability);
  const int size_index = n_nodes <= 2 ? n_nodes - 1 : 2;
  // LL: one node reads the GPU's row, several the CPU vendor's (Intel in the Volta row, AMD in the Ampere row).
  const int ll_index = n_nodes == 1 ? cap : (comm.amd_cpu ? 1 : 0);
  const double ll_max = kLlMaxBandwidth_GBps[ll_index][size_index];
  const double tree_max = kPerChannelMaxTree_GBps[cap][size_index];
  const double ring_ll128_max = kPerChannelMaxRingLl128_GBps[cap][size_index];
  const double tree_ll128_max = kPerChannelMaxTreeLl128_GBps[cap][size_index];
  const double ppn = static_cast<double>(n_ranks) / n_nodes;
  const int intra_hw = comm.nvlink_intra ? kNvlink : kPci;
  const bool all_reduce = collective == NcclCollective::all_reduce;
  const bool chain = collective == NcclCollective::broadcast || collective == NcclCollective::reduce;
  // tuning.cc nsteps: 2 (n - 1) for allreduce, n - 1 for allgather and reduce-scatter, n for broadcast and reduce.
  const int steps = all_reduce ? 2 * (n_ranks - 1) : chain ? n_ranks : n_ranks - 1;
  const double channels = comm.channels;

  NcclCostTable table;
  for (int a : {kTree, kRing}) {
    for (int p : {kLl, kLl128, kSimple}) {
      if (a == kTree && !all_reduce) continue;  // bandwidth 0: not enabled
      double bus = channels * comm.channel_bandwidth_GBps;
      if (a == kRing && p == kLl) bus = std::min(ll_max, bus * 0.5);
      if (a == kRing && p == kLl128) bus = std::min(bus * 0.92, channels * ring_ll128_max);
      if (a == kTree) bus = std::min(bus * 0.92, channels * tree_max);  // allreduce
      if (a == kTree && p == kLl) bus = std::min(bus / 3.8, ll_max);
      if (a == kTree && p == kLl128) bus = std::min(bus * (n_nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), channels * tree_ll128_max);
      // Bus bandwidth to algorithm bandwidth.
      bus *= a == kRing ? static_cast<double>(n_ranks) / steps : 0.5;
      if (p == kLl128 && !ll128_enabled(comm)) bus = 0;
      table.bandwidth_GBps[static_cast<std::size_t>(a)][static_cast<std::size_t>(p)] = bus;

      double latency = kBaseLatency_us[a][p];
      double intra = kHardwareLatency_us[intra_hw][a][p];
      // One GPU per node: the network hop is timed as a tree's (tuning.cc).
      const double inter = ppn == 1 ? kHardwareLatency_us[kNet][kTree][p] : kHardwareLatency_us[kNet][a][p];
      if (a == kRing && chain) {
        // Broadcast and reduce: the ring's hardware latency (the network's across nodes) once when every channel
        // takes the same ring, else once per step, Simple then charged as a tree's hop ("chunk latency").
        const int hw = n_nodes == 1 ? intra_hw : kNet;
        const double hop = kHardwareLatency_us[hw][kRing][p];
        latency += comm.same_channels ? hop : steps * (p == kSimple ? kHardwareLatency_us[hw][kTree][p] : hop);
      } else if (a == kRing) {
        // Rings across nodes pay the network's posting overhead on every step: 1 us on Intel, 2 us on AMD, x3 for
        // Simple (getNetOverhead).
        double overhead = 0;
        if (n_nodes > 1) overhead = (comm.amd_cpu ? 2.0 : 1.0) * (p == kSimple ? 3.0 : 1.0);
        intra = std::max(intra, overhead);
        const int inter_steps = n_nodes == 1 ? 0 : (all_reduce ? 2 : 1) * (n_nodes - 1);
        latency += (steps - inter_steps) * intra + inter_steps * inter;
      } else {
        latency += 2 * ((n_ranks / n_nodes - 1) * intra + log2_floor(static_cast<std::size_t>(n_nodes)) * inter);
      }
      table.latency_us[static_cast<std::size_t>(a)][static_cast<std::size_t>(p)] = latency;
    }
  }
  // NVLS: all_reduce with Simple, on one node, with at least 2 channels (tuning.cc; across nodes NCCL runs NVLS only
  // with CollNet, which vtsim does not model). A channel's bus bandwidth is its bwIntra at NVLS's efficiency, less
  // one channel's share, twice over ("AllReduce pipelines two operations"), within its bwInter.
  if (all_reduce && n_nodes == 1 && comm.nvls_channels >= 2) {
    const double nvls_channels = comm.nvls_channels;
    const double efficiency = comm.compute_capability >= 100 ? kNvlsEfficiencyBlackwell : kNvlsEfficiencyHopper;
    const double intra = comm.nvls_intra_GBps * efficiency * (nvls_channels - 1) / nvls_channels * 2;
    const double bus = nvls_channels * std::min(intra, comm.nvls_inter_GBps);
    table.bandwidth_GBps[kNvls][kSimple] = bus * static_cast<double>(n_ranks) / steps;
    table.latency_us[kNvls][kSimple] = kNvlsLatency_us;
  }
  // CollNet: all_reduce with Simple, across 2 nodes or more, at most 8 ranks per node. Its bandwidth is the graph's
  // bwIntra per channel; Direct's is divided by the GPUs per NIC less half the excess over one ("Collnet+Direct
  // requires all GPUs to have a local NIC to work at full speed") and takes 0.85 of it on Hopper on; bus bandwidth
  // to algorithm bandwidth x 0.5, as for trees (each node sends its whole buffer up and receives it back).
  const int local_ranks = n_ranks / n_nodes;  // NCCL's integer nRanks / nNodes
  if (all_reduce && comm.collnet && n_nodes >= 2 && local_ranks <= kMaxCollnetLocalRanks) {
    // One rank per node: the network hop is timed as a tree's.
    const double tree_net_us = kHardwareLatency_us[kNet][kTree][kSimple];
    if (comm.collnet_chain.channels > 0) {
      table.bandwidth_GBps[kCollnetChain][kSimple] = comm.collnet_chain.channels * comm.collnet_chain.intra_GBps * 0.5;
      table.latency_us[kCollnetChain][kSimple] =
          2 * (local_ranks - 1) * kCollnetChainIntraLatency_us + (ppn == 1 ? tree_net_us : kCollnetChainNetLatency_us);
    }
    if (comm.nvswitch && comm.collnet_direct.channels > 0) {
      const double heads = comm.collnet_direct.channels;
      double per_nic = ppn / heads;  // GPUs per NIC
      per_nic -= (per_nic - 1) / 2;
      double bus = heads * comm.collnet_direct.intra_GBps / per_nic;
      if (comm.compute_capability >= 90) bus *= kCollnetDirectEfficiencyHopper;
      table.bandwidth_GBps[kCollnetDirect][kSimple] = bus * 0.5;
      table.latency_us[kCollnetDirect][kSimple] = 2 * (std::min(1, local_ranks - 1) * kCollnetDirectIntraLatency_us +
                                                       (local_ranks - 1) * kCollnetArityLatency_us) +
                                                  (ppn == 1 ? tree_net_us : kCollnetDirectNetLatency_us);
    }
  }
  return table;
}

double nccl_time_s(const NcclCommunicator& comm, const NcclCostTable& costs, NcclCollective collective,
                   NcclAlgorithm algorithm, NcclProtocol protocol, double bytes) {
  const auto a = static_cast<std::size_t>(algorithm_index(algorithm));
  const auto p = static_cast<std::size_t>(protocol);
  double bandwidth = costs.bandwidth_GBps[a][p];
  double latency = costs.latency_us[a][p];
  if (bandwidth <= 0) return std::numeric_limits<double>::infinity();
  const auto whole = static_cast<std::size_t>(std::max(0.0, bytes));
  const int log_size = (whole >> 6) == 0 ? -1 : log2_floor(whole >> 6);
  if (algorithm == NcclAlgorithm::tree && log_size >= 0 && log_size < 23) {
    bandwidth *= kTreeCorrection[p][static_cast<std::size_t>(log_size)];
  }
  // "Plateau effect of ring" across nodes, once each rank's share of a running channel (comm->nChannels, which the
  // postset doubled and NCCL_MIN/MAX_NCHANNELS set) is at least 64 bytes.
  if (algorithm == NcclAlgorithm::ring && protocol == NcclProtocol::simple && comm.nodes > 1 &&
      collective == NcclCollective::all_reduce &&
      whole / static_cast<std::size_t>(nccl_running_channels(comm) * comm.ranks) >= 64) {
    latency *= comm.compute_capability < 80 ? 1.9 : 1.4;
  }
  return (latency + bytes / (1000 * bandwidth)) * 1e-6;
}

Collective collective_of(NcclCollective collective) {
  switch (collective) {
    case NcclCollective::all_reduce: return Collective::allreduce;
    case NcclCollective::all_gather: return Collective::allgather;
    case NcclCollective::reduce_scatter: return Collective::reduce_scatter;
    case NcclCollective::broadcast: return Collective::broadcast;
    case NcclCollective::reduce: return Collective::reduce;
  }
  assert(false && "every collective is handled above");
  return Collective::allreduce;
}

namespace {

// Whether comm's forced algorithm and protocol allow the pair for `collective`.
bool allowed(const NcclCommunicator& comm, NcclCollective collective, NcclAlgorithm algorithm, NcclProtocol protocol) {
  const bool algorithm_ok = !comm.forced_algorithm || collective != NcclCollective::all_reduce ||
                            *comm.forced_algorithm == algorithm;
  return algorithm_ok && (!comm.forced_protocol || *comm.forced_protocol == protocol);
}

std::string_view collective_name(NcclCollective collective) {
  switch (collective) {
    case NcclCollective::all_reduce: return "all_reduce";
    case NcclCollective::all_gather: return "all_gather";
    case NcclCollective::reduce_scatter: return "reduce_scatter";
    case NcclCollective::broadcast: return "broadcast";
    case NcclCollective::reduce: return "reduce";
  }
  return "?";
}

// NCCL's order (ties go to the first).
constexpr NcclAlgorithm kAlgorithms[] = {NcclAlgorithm::tree, NcclAlgorithm::ring, NcclAlgorithm::collnet_direct,
                                         NcclAlgorithm::collnet_chain, NcclAlgorithm::nvls};
constexpr NcclProtocol kProtocols[] = {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple};

}  // namespace

NcclChoice nccl_choice(const NcclCommunicator& comm, NcclCollective collective, double bytes) {
  const NcclCostTable costs = nccl_costs(comm, collective);
  NcclChoice best;
  best.predicted_s = std::numeric_limits<double>::infinity();
  for (NcclAlgorithm algorithm : kAlgorithms) {
    for (NcclProtocol protocol : kProtocols) {
      if (!allowed(comm, collective, algorithm, protocol)) continue;
      const double time_s = nccl_time_s(comm, costs, collective, algorithm, protocol, bytes);
      if (time_s < best.predicted_s) best = {algorithm, protocol, time_s};
    }
  }
  assert(std::isfinite(best.predicted_s) && "nccl_forced_problem(comm, collective) must be empty");
  return best;
}

namespace {

/// What a forced algorithm needs that the communicator may lack ("" where nothing beyond the defaults).
std::string forced_needs(std::optional<NcclAlgorithm> algorithm) {
  if (algorithm == NcclAlgorithm::nvls) {
    return " and NVLS needs every rank on one node's NVSwitch, compute capability 9.0 or later";
  }
  if (algorithm == NcclAlgorithm::collnet_direct || algorithm == NcclAlgorithm::collnet_chain) {
    const std::string needs =
        " and CollNet needs NCCL_COLLNET_ENABLE (jobs[i].nccl.collnet, on the infiniband transport), 2 nodes or more "
        "and at most 8 ranks per node";
    return needs +
           (algorithm == NcclAlgorithm::collnet_direct ? ", CollNet Direct an NVSwitch and a NIC in each node" : "");
  }
  return "";
}

}  // namespace

std::string nccl_forced_problem(const NcclCommunicator& comm, NcclCollective collective) {
  if (!comm.forced_algorithm && !comm.forced_protocol) return {};
  const NcclCostTable costs = nccl_costs(comm, collective);
  // Enabled as nccl_choice sees it: a finite time (any size will do; a disabled pair is infinite at every size).
  for (NcclAlgorithm algorithm : kAlgorithms) {
    for (NcclProtocol protocol : kProtocols) {
      if (allowed(comm, collective, algorithm, protocol) &&
          std::isfinite(nccl_time_s(comm, costs, collective, algorithm, protocol, 1.0))) {
        return {};
      }
    }
  }
  std::string forced;
  if (comm.forced_algorithm && collective == NcclCollective::all_reduce) {
    forced = std::string(to_string(*comm.forced_algorithm));
  }
  if (comm.forced_protocol) forced += (forced.empty() ? "" : " with ") + std::string(to_string(*comm.forced_protocol));
  return forced + " is not enabled for " + std::string(collective_name(collective)) + " on this communicator (" +
         std::to_string(comm.ranks) + " ranks on " + std::to_string(comm.nodes) +
         (comm.nodes == 1 ? " node" : " nodes") + ", compute capability " +
         std::to_string(comm.compute_capability / 10) + "." + std::to_string(comm.compute_capability % 10) +
         (comm.nodes > 1 && !comm.gpu_direct_nic ? ", no GPUDirect RDMA" : "") + ")" +
         (collective == NcclCollective::all_reduce ? forced_needs(comm.forced_algorithm) : "") +
         ": NCCL fails such a call (\"no algorithm/protocol available\")";
}

double nccl_collnet_intra_time_s(const NcclCommunicator& comm, NcclAlgorithm algorithm, double bytes) {
  const double per_node = static_cast<double>(comm.ranks) / comm.nodes;
  if (per_node <= 1 || comm.collnet_gpu_intra_GBps <= 0) return 0;
  if (algorithm == NcclAlgorithm::collnet_direct) {
    return 2 * (per_node - 1) / per_node * bytes / (comm.collnet_gpu_intra_GBps * 1e9);
  }
  if (algorithm == NcclAlgorithm::collnet_chain) return 2 * bytes / (comm.collnet_gpu_intra_GBps * 1e9);
  return 0;
}

namespace {

/// NCCL's latency of `choice` on `comm`: its predicted time for no bytes, seconds.
double latency_s(const NcclCommunicator& comm, NcclCollective collective, const NcclChoice& choice) {
  return nccl_time_s(comm, nccl_costs(comm, collective), collective, choice.algorithm, choice.protocol, 0.0);
}

}  // namespace

double nccl_analytic_time_s(const NcclCommunicator& comm, NcclCollective collective, const NcclChoice& choice,
                            double bytes) {
  const double running_s = nccl_running_time_s(comm, collective, choice);
  const double intra_s = nccl_collnet_intra_time_s(comm, choice.algorithm, bytes);
  if (intra_s <= 0) return running_s;
  return std::max(running_s, latency_s(comm, collective, choice) + intra_s);
}

double nccl_base_latency_s(NcclAlgorithm algorithm, NcclProtocol protocol) {
  return kBaseLatency_us[algorithm_index(algorithm)][static_cast<std::size_t>(protocol)] * 1e-6;
}

double nccl_step_extra_s(NcclHop hop, NcclProtocol protocol) {
  const auto h = static_cast<std::size_t>(hop == NcclHop::nvlink ? kNvlink : hop == NcclHop::pci ? kPci : kNet);
  const auto p = static_cast<std::size_t>(protocol);
  return (kHardwareLatency_us[h][kRing][p] - kHardwareLatency_us[h][kRing][kLl]) * 1e-6;
}

double nccl_protocol_efficiency(NcclProtocol protocol) {
  switch (protocol) {
    case NcclProtocol::ll: return 0.5;
    case NcclProtocol::ll128: return 0.92;
    case NcclProtocol::simple: return 1.0;
  }
  return 1.0;
}

int nccl_running_channels(const NcclCommunicator& comm) {
  if (comm.forced_channels) return *comm.forced_channels;
  return std::min(kNcclMaxChannels, 2 * std::max(1, comm.channels));
}

double nccl_channel_bandwidth_fraction(const NcclCommunicator& comm) {
  NcclCommunicator own = comm;
  own.forced_channels.reset();
  return std::min(1.0, static_cast<double>(nccl_running_channels(comm)) / nccl_running_channels(own));
}

double nccl_running_time_s(const NcclCommunicator& comm, NcclCollective collective, const NcclChoice& choice) {
  const double fraction = nccl_channel_bandwidth_fraction(comm);
  if (fraction >= 1 || choice.algorithm == NcclAlgorithm::nvls) return choice.predicted_s;
  const double fixed_s = latency_s(comm, collective, choice);
  return fixed_s + (choice.predicted_s - fixed_s) / fraction;
}

double nccl_nvlink_channel_GBps(int compute_capability) {
  // topo.h: SM60_NVLINK_BW 18.0, SM70_NVLINK_BW 20.0, SM80_NVLINK_BW 20.0, SM86_NVLINK_BW 12.0, SM90_NVLINK_BW 20.6,
  // SM100_NVLINK_BW 40.1.
  if (compute_capability >= 100) return 40.1;
  if (compute_capability >= 90) return 20.6;
  if (compute_capability == 86) return 12.0;
  if (compute_capability >= 70) return 20.0;
  return 18.0;
}

}  // namespace vtsim
