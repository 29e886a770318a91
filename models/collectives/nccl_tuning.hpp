#pragma once
// NCCL's cost model for allreduce: how NCCL times each (algorithm, protocol) pair and picks the fastest for a message
// size, transcribed from NVIDIA NCCL src/graph/tuning.cc (ncclTopoTuneModel, ncclTopoGetAlgoTime) and the
// per-link bandwidths of src/graph/topo.h. docs/nccl-model.md lists every constant with its place in the source.
//
// NCCL computes, per algorithm a and protocol p, a latency lat[a][p] (us) and an algorithm bandwidth bw[a][p] (GB/s)
// once per communicator, then times a message of n bytes as lat + n / (1000 bw) and runs the pair with the smallest
// time. vtsim uses the same choice, and simulates the chosen protocol's costs (base latency, bytes on the wire).
// Covered: Ring and Tree with LL, LL128 and Simple; NVLS (NVLink SHARP: the reduction done in a Hopper host's
// NVSwitch) for all_reduce on one node; CollNet Direct and CollNet Chain (SHARP: the reduction done in the InfiniBand
// switches) for all_reduce across nodes. Not covered: NVLS across nodes and NVLS Tree, NVLS and CollNet for
// all_gather and reduce_scatter, and PAT (one GPU per node only).

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "models/collectives/collective_model.hpp"

namespace vtsim {

/// The collectives whose NCCL costs vtsim models.
enum class NcclCollective { all_reduce, all_gather, reduce_scatter, broadcast, reduce };
/// The collective `collective` is (models/collectives/collective_model.hpp), for the algorithm types that run it.
Collective collective_of(NcclCollective collective);

/// NCCL's algorithms that vtsim models (all_gather and reduce_scatter run as rings only: their other algorithms are
/// PAT, NVLS and CollNet; broadcast and reduce have only the ring, a pipelined chain from or to the root). NVLS runs
/// all_reduce inside one node's NVSwitch: each GPU pulls its share of the buffer reduced by the switch
/// (multimem.ld_reduce) and stores it back to every GPU at once (multimem.st), with the Simple protocol only. CollNet
/// runs all_reduce across nodes with the network's switches reducing (SHARP), Simple only: Direct scatters each
/// node's buffer over its GPUs with a NIC (the heads), each head sends its share up and receives the reduced result;
/// Chain reduces along a chain of the node's GPUs to one head per channel and broadcasts back down it.
enum class NcclAlgorithm { tree, ring, nvls, collnet_direct, collnet_chain };
/// NCCL's protocols: LL (8-byte stores with a flag, half the bandwidth, lowest latency), LL128 (128-byte lines with
/// 120 bytes of data, NVLink systems), Simple (bulk copies with memory fences, full bandwidth).
enum class NcclProtocol { ll, ll128, simple };

/// "tree", "ring", "nvls", "collnetdirect", "collnetchain"; "LL", "LL128", "Simple" (NCCL's spellings, which
/// NCCL_ALGO and NCCL_PROTO read case-insensitively).
std::string_view to_string(NcclAlgorithm algorithm);
std::string_view to_string(NcclProtocol protocol);
/// The spellings a scenario (jobs[i].nccl) and `vtsim collectives` accept, NCCL_ALGO's and NCCL_PROTO's.
std::span<const std::pair<std::string, NcclAlgorithm>> nccl_algorithm_names();
std::span<const std::pair<std::string, NcclProtocol>> nccl_protocol_names();

/// One of NCCL's graphs (src/graph/search.cc, ncclTopoCompute) as the tuning model reads it: its channels and, per
/// channel, bwIntra (inside a node) and bwInter (to the network), GB/s.
struct NcclGraph {
  int channels = 0;
  double intra_GBps = 0;
  double inter_GBps = 0;
};

/// What NCCL's tuning model reads from a communicator.
struct NcclCommunicator {
  int ranks = 1;
  int nodes = 1;                  ///< hosts the ranks span
  int compute_capability = 80;    ///< of the GPUs, x10 (A100: 80, V100: 70, H100: 90)
  bool nvlink_intra = false;      ///< the rings' steps inside a node go over NVLink (NCCL: graph typeIntra == NVL)
  int channels = 1;               ///< rings (and trees) NCCL runs at once
  double channel_bandwidth_GBps = 12;  ///< bandwidth of one channel (NCCL: graph bwIntra / bwInter), GB/s
  bool amd_cpu = false;           ///< x86 AMD hosts: larger network overhead, other LL caps
  bool gpu_direct_nic = true;     ///< the NIC reaches the GPU without the CPU (GPUDirect RDMA): LL128 allowed across nodes
  /// Every channel takes the same ring (NCCL: graph sameChannels): broadcast and reduce then pay one hop's latency
  /// (their chunks pipeline), else one per step.
  bool same_channels = true;
  /// NCCL's NVLS graph (nccl_nvls_graph): its channels, 0 where NVLS is not available to the communicator (GPUs
  /// not on a Hopper host's NVSwitch, or ranks on more than one node), and its bandwidths per channel, GB/s.
  int nvls_channels = 0;
  double nvls_intra_GBps = 0;
  double nvls_inter_GBps = 0;
  /// What the user forces, as NCCL_ALGO and NCCL_PROTO do: the algorithm of all_reduce (the only collective with a
  /// choice of algorithm here) and the protocol of every collective; unset, NCCL's model picks.
  std::optional<NcclAlgorithm> forced_algorithm;
  std::optional<NcclProtocol> forced_protocol;
  /// The channels every collective runs on, as NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS = n force them (connect.cc
  /// ncclTopoPostset); unset, NCCL's own count (nccl_running_channels). NCCL's tuning table does not see it: it reads
  /// its search's channels (tuning.cc: graphs[a]->nChannels); only the ring's plateau check (nccl_time_s) does.
  std::optional<int> forced_channels;
  /// CollNet: NCCL_COLLNET_ENABLE=1 with NCCL's SHARP plugin, on a fabric whose switches reduce (jobs[i].nccl.collnet,
  /// which needs the infiniband transport). NCCL then offers CollNet for all_reduce from 2 nodes on
  /// (NCCL_COLLNET_NODE_THRESHOLD) with at most 8 ranks per node (NCCL_MAX_DIRECT_ARITY + 1), and CollNet Direct
  /// only where the node's GPUs meet in an NVSwitch (`nvswitch`; NCCL: nvsCount > 0). The graphs are
  /// nccl_collnet_chain_graph's and nccl_collnet_direct_graph's.
  bool collnet = false;
  bool nvswitch = false;
  NcclGraph collnet_direct{};
  NcclGraph collnet_chain{};
  /// Each GPU's bandwidth inside its node, GB/s, one direction (nccl_communicator: what one host's own rings reach
  /// through it): what bounds the data CollNet moves between a node's GPUs (nccl_collnet_intra_time_s).
  double collnet_gpu_intra_GBps = 0;
};

/// The most channels a communicator runs (src/include/device.h MAXCHANNELS, NCCL v2.30.7).
inline constexpr int kNcclMaxChannels = 64;

/// The channels `comm`'s collectives run on, one thread block each (one SM): the forced count, else twice the search's
/// channels up to kNcclMaxChannels, as ncclTopoPostset runs each ring of the search twice ("Duplication should be
/// complete now": nChannels = min(MAXCHANNELS, 2 nChannels)).
int nccl_running_channels(const NcclCommunicator& comm);

/// The fraction of the communicator's bandwidth (channels x channel_bandwidth_GBps) its running channels reach,
/// taking each of NCCL's own channels to move an equal share of it (an assumption: docs/nccl-model.md, "Channels"),
/// so that forcing fewer leaves them the same share each, while forcing more duplicates channels over the same links
/// (copyChannels) without adding bandwidth: min(1, running / NCCL's own).
double nccl_channel_bandwidth_fraction(const NcclCommunicator& comm);

/// NCCL's per-communicator table for allreduce: latency (us) and algorithm bandwidth (GB/s) of each pair; a
/// bandwidth of 0 marks a pair NCCL does not enable. Rows in NcclAlgorithm's order (tree, ring, nvls,
/// collnet_direct, collnet_chain), columns in NcclProtocol's.
struct NcclCostTable {
  std::array<std::array<double, 3>, 5> latency_us{};      ///< [algorithm][protocol]
  std::array<std::array<double, 3>, 5> bandwidth_GBps{};  ///< [algorithm][protocol], algorithm bandwidth
};

/// The NVLS graph NCCL's search (src/graph/search.cc, ncclTopoCompute) settles on for `gpus` GPUs of
/// `compute_capability` >= 90 on one NVSwitch: `gpus` channels (NCCL forces intra-node NVLS to pull evenly from every
/// GPU); bwIntra the fastest speed of the SM90 table (60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3 GB/s) at which every
/// channel's switch-to-GPU and GPU-to-switch paths fit the GPU's NVLink bandwidth, `nvlink_links` x 20.6 GB/s
/// (topo.h): each channel takes the speed on every GPU's links and twice on its own GPU's
/// (ncclTopoSearchTryNvls), (gpus + 1) x speed in all; bwInter then raised by the search's second pass, one speed
/// at a time while it is below twice bwIntra, up to the table's 60 (nothing limits it on one node). 8 H100 SXM5
/// (18 links): 8 channels, 40 and 60 GB/s. No channels for fewer than 2 GPUs or below compute capability 9.0.
NcclGraph nccl_nvls_graph(int gpus, int nvlink_links, int compute_capability);

/// NCCL's CollNet Chain graph (init.cc: pattern TREE with collNet, its channels fixed to the ring graph's): `comm`'s
/// channels, bwInter the ring's per channel (comm.channel_bandwidth_GBps, the network's share across nodes), bwIntra
/// raised by the search's second pass towards twice bwInter ("increase bwIntra for trees (2 nodes or collnet)") as far
/// as each GPU's bandwidth inside the node, `gpu_intra_GBps`, carries every channel's chain through it (in and out
/// at bwIntra): min(2 bwInter, max(bwInter, gpu_intra_GBps / channels)). Not replayed: the search's table of speeds,
/// to which NCCL rounds each bandwidth down.
NcclGraph nccl_collnet_chain_graph(const NcclCommunicator& comm, double gpu_intra_GBps);

/// NCCL's CollNet Direct graph (search.cc, pattern COLLNET_DIRECT) for `ranks_per_node` GPUs and `nics` NICs of a
/// node with `node_net_GBps` to the network: one channel per head, a GPU with a NIC of its own, at most
/// min(ranks_per_node, 8); bwInter each NIC's share; ncclTopoDupChannels then doubles the channels up to that limit,
/// halving the bandwidth, from 25 GB/s on (not on compute capability above 8.0 below 50 GB/s with more than 4
/// channels); bwIntra raised towards twice bwInter as far as each GPU's bandwidth inside the node, `gpu_intra_GBps`,
/// carries its own head's channel and its 1 / (ranks_per_node - 1) share of every other head's
/// (ncclTopoSearchTryCollnetDirect). No channels without a NIC.
NcclGraph nccl_collnet_direct_graph(int ranks_per_node, int nics, double node_net_GBps, double gpu_intra_GBps,
                                    int compute_capability);

/// The table ncclTopoTuneModel builds for `collective` on `comm` (ring steps: 2 (ranks - 1) for all_reduce, ranks - 1
/// for the others; trees for all_reduce only). REQUIRES: comm.ranks >= 2.
NcclCostTable nccl_costs(const NcclCommunicator& comm, NcclCollective collective);
/// nccl_costs for all_reduce.
inline NcclCostTable nccl_allreduce_costs(const NcclCommunicator& comm) {
  return nccl_costs(comm, NcclCollective::all_reduce);
}

/// NCCL's predicted time of one `collective` of `bytes` (nccl-tests' size: the whole buffer, all ranks' shares for
/// all_gather and reduce_scatter) with (algorithm, protocol), seconds (ncclTopoGetAlgoTime: the tree's correction
/// per size, the ring's plateau factor for all_reduce across nodes); infinity for a pair not enabled.
double nccl_time_s(const NcclCommunicator& comm, const NcclCostTable& costs, NcclCollective collective,
                   NcclAlgorithm algorithm, NcclProtocol protocol, double bytes);
/// nccl_time_s for all_reduce.
inline double nccl_allreduce_time_s(const NcclCommunicator& comm, const NcclCostTable& costs,
                                    NcclAlgorithm algorithm, NcclProtocol protocol, double bytes) {
  return nccl_time_s(comm, costs, NcclCollective::all_reduce, algorithm, protocol, bytes);
}

/// NCCL's choice for an allreduce of `bytes`.
struct NcclChoice {
  NcclAlgorithm algorithm = NcclAlgorithm::ring;
  NcclProtocol protocol = NcclProtocol::simple;
  double predicted_s = 0;  ///< NCCL's own estimate
};

/// The fastest enabled pair by NCCL's model (ties go to the first in NCCL's order: tree, ring, CollNet Direct,
/// CollNet Chain, NVLS; LL, LL128, Simple), among those comm's forced algorithm and protocol allow. REQUIRES:
/// comm.ranks >= 2, nccl_forced_problem(comm, collective) is empty.
NcclChoice nccl_choice(const NcclCommunicator& comm, NcclCollective collective, double bytes);

/// How long `choice` (nccl_choice's for some size) takes on the channels `comm` runs: NCCL's prediction, its
/// bandwidth term divided by nccl_channel_bandwidth_fraction where the channels are forced. NVLS keeps its own
/// channels (NCCL_NVLS_NCHANNELS sets those, not NCCL_MIN/MAX_NCHANNELS).
double nccl_running_time_s(const NcclCommunicator& comm, NcclCollective collective, const NcclChoice& choice);

/// Why comm's forced algorithm or protocol leaves `collective` nothing to run (NCCL itself fails such a call: "no
/// algorithm/protocol available"), e.g. "LL128 is not enabled for all_reduce on this communicator (2 nodes, no
/// GPUDirect RDMA)"; empty when some enabled pair is allowed. REQUIRES: comm.ranks >= 2.
std::string nccl_forced_problem(const NcclCommunicator& comm, NcclCollective collective);
/// nccl_choice for all_reduce.
inline NcclChoice nccl_allreduce_choice(const NcclCommunicator& comm, double bytes) {
  return nccl_choice(comm, NcclCollective::all_reduce, bytes);
}

/// The time a CollNet all_reduce of `bytes` takes at least on the node's GPU links, seconds, which NCCL's table does
/// not bound (0 for other algorithms, one GPU per node, or no bandwidth known): CollNet Direct sends (G - 1) / G of
/// the buffer from each GPU to the heads and as much of the result back, 2 (G - 1) / G of it out of each GPU in all;
/// CollNet Chain passes the whole buffer down the chain and the result back up, twice the buffer out of each GPU; G
/// the ranks per node, at comm.collnet_gpu_intra_GBps. Two DGX A100 (240 GB/s per GPU): Direct at most 137 GB/s of
/// algorithm bandwidth, where NCCL's table says 192; NCCL's maintainer puts it at ~110 with 8 NICs, "the bottleneck
/// becomes NVLink which still has to transmit ~2x more data intra-node" (NVIDIA/nccl issue #320).
double nccl_collnet_intra_time_s(const NcclCommunicator& comm, NcclAlgorithm algorithm, double bytes);

/// How long `choice` (nccl_choice's for `bytes`) runs where vtsim takes NCCL's time rather than simulating flows
/// (trees, NVLS, CollNet): nccl_running_time_s, and for CollNet no less than its latency plus
/// nccl_collnet_intra_time_s.
double nccl_analytic_time_s(const NcclCommunicator& comm, NcclCollective collective, const NcclChoice& choice,
                            double bytes);

/// NCCL's base latency of an algorithm and protocol (tuning.cc baseLat), seconds: the launch and synchronisation
/// cost every call pays before its first step.
double nccl_base_latency_s(NcclAlgorithm algorithm, NcclProtocol protocol);

/// The hardware class of one ring step, as NCCL's latency table has it.
enum class NcclHop { nvlink, pci, net };

/// What `protocol` adds to one ring step of class `hop` beyond the fastest protocol's (LL's) latency, which vtsim's
/// links carry (tuning.cc hwLat, Ring): NVLink LL128 +1.3 us, Simple +2.8; PCI +1.5, +4.7; NET +1.3, +11.3.
double nccl_step_extra_s(NcclHop hop, NcclProtocol protocol);

/// The fraction of a link's bandwidth a protocol moves as data: LL 0.5 (a 4-byte flag per 4 bytes), LL128 0.92
/// (NCCL's model of 120 data bytes per 128-byte line), Simple 1 (tuning.cc's Ring factors).
double nccl_protocol_efficiency(NcclProtocol protocol);

/// The per-channel bandwidth NCCL assumes for one NVLink link of a GPU of `compute_capability` (topo.h): 18 GB/s
/// on SM60, 20 on SM70 and SM80, 20.6 on SM90; 12 on SM86.
double nccl_nvlink_channel_GBps(int compute_capability);

/// The GPUs as NCCL's tuning model sees them.
struct NcclDevice {
  int compute_capability = 0;   ///< e.g. 80 for an A100
  int nvlink_links = 0;         ///< NVLink links per GPU (NVLS's channels on a Hopper NVSwitch)
  bool gpudirect_rdma = false;  ///< the transport moves data between the GPU and the NIC directly (RoCE, InfiniBand)
};

}  // namespace vtsim
