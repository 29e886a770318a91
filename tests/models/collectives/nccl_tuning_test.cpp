// NCCL's allreduce cost model against tables and crossover sizes worked out by hand from tuning.cc's constants
// (docs/nccl-model.md). Times are in us and bandwidths in GB/s, as NCCL's.

#include <gtest/gtest.h>

#include "models/collectives/nccl_tuning.hpp"

namespace vtsim {
namespace {

/// NcclCostTable's rows: tree, ring, nvls, collnet_direct, collnet_chain.
std::size_t at(NcclAlgorithm algorithm) {
  switch (algorithm) {
    case NcclAlgorithm::tree:
      return 0;
    case NcclAlgorithm::ring:
      return 1;
    case NcclAlgorithm::nvls:
      return 2;
    case NcclAlgorithm::collnet_direct:
      return 3;
    case NcclAlgorithm::collnet_chain:
      return 4;
  }
  return 1;
}
std::size_t at(NcclProtocol protocol) { return static_cast<std::size_t>(protocol); }

/// NCCL's choice for a 1 GiB all_reduce on `comm` is `algorithm` with Simple, timed latency_us + 2^30 B at GBps.
void expect_gib_choice(const NcclCommunicator& comm, NcclAlgorithm algorithm, double latency_us, double GBps) {
  const double gib = 1024.0 * 1024 * 1024;
  const NcclChoice large = nccl_allreduce_choice(comm, gib);
  EXPECT_EQ(large.algorithm, algorithm);
  EXPECT_EQ(large.protocol, NcclProtocol::simple);
  EXPECT_NEAR(large.predicted_s, (latency_us + gib / (1000 * GBps)) * 1e-6, 1e-12);
}

/// One HGX A100 8-GPU node: NVLink, 12 channels of 20 GB/s (SM80_NVLINK_BW), bus bandwidth 240 GB/s.
NcclCommunicator one_a100_node() {
  return {.ranks = 8, .nodes = 1, .compute_capability = 80, .nvlink_intra = true, .channels = 12,
          .channel_bandwidth_GBps = 20, .amd_cpu = false, .gpu_direct_nic = true, .same_channels = true,
          .nvls_channels = 0, .nvls_intra_GBps = 0, .nvls_inter_GBps = 0,
          .forced_algorithm = std::nullopt, .forced_protocol = std::nullopt, .forced_channels = std::nullopt};
}

TEST(NcclTuning, OneNodeTableMatchesTheHandDerivation) {
  const NcclCostTable table = nccl_allreduce_costs(one_a100_node());
  const auto latency = [&](NcclAlgorithm a, NcclProtocol p) { return table.latency_us[at(a)][at(p)]; };
  const auto bandwidth = [&](NcclAlgorithm a, NcclProtocol p) { return table.bandwidth_GBps[at(a)][at(p)]; };
  using enum NcclProtocol;
  constexpr NcclAlgorithm ring = NcclAlgorithm::ring;
  constexpr NcclAlgorithm tree = NcclAlgorithm::tree;
  // Ring, 2(8-1) = 14 steps over NVLink: base + 14 x hwLat; bus 240 GB/s, x 8/14 to algorithm bandwidth.
  EXPECT_NEAR(latency(ring, ll), 6.6 + 14 * 0.6, 1e-9);
  EXPECT_NEAR(latency(ring, ll128), 14.0 + 14 * 1.9, 1e-9);
  EXPECT_NEAR(latency(ring, simple), 8.4 + 14 * 3.4, 1e-9);
  EXPECT_NEAR(bandwidth(ring, ll), 87.7 * 8 / 14, 1e-9);            // LL: min(llMaxBw Ampere N1 87.7, 240 x 0.5)
  EXPECT_NEAR(bandwidth(ring, ll128), 240 * 0.92 * 8 / 14, 1e-9);   // min(240 x 0.92, 12 x 20)
  EXPECT_NEAR(bandwidth(ring, simple), 240.0 * 8 / 14, 1e-9);
  // Tree (a chain in one node): base + 2 x (8 - 1) x hwLat; bus min(240 x 0.92, 12 x 24.0), x 0.5.
  EXPECT_NEAR(latency(tree, ll), 6.8 + 2 * 7 * 0.6, 1e-9);
  EXPECT_NEAR(latency(tree, ll128), 14.0 + 2 * 7 * 1.25, 1e-9);
  EXPECT_NEAR(latency(tree, simple), 8.4 + 2 * 7 * 4.0, 1e-9);
  EXPECT_NEAR(bandwidth(tree, ll), 220.8 / 3.8 * 0.5, 1e-9);
  EXPECT_NEAR(bandwidth(tree, ll128), 220.8 * 7 / 9 * 0.5, 1e-9);
  EXPECT_NEAR(bandwidth(tree, simple), 220.8 * 0.5, 1e-9);
}

TEST(NcclTuning, OneNodeProtocolCrossoversAreWhereRingTimesMeet) {
  // Ring LL vs LL128: 15.0 + S / 50,114 = 40.6 + S / 126,171 (bytes, us) at S = 25.6 / (1/50,114 - 1/126,171)
  // = 2.128 MB; LL128 vs Simple: 40.6 + S / 126,171 = 56.0 + S / 137,143 at S = 24.29 MB. The trees, slower in
  // bandwidth and corrected down further at these sizes, never win here.
  const NcclCommunicator comm = one_a100_node();
  const double ll_to_ll128 = 25.6 / (1 / (1000 * 87.7 * 8 / 14) - 1 / (1000 * 220.8 * 8 / 14));
  const double ll128_to_simple = 15.4 / (1 / (1000 * 220.8 * 8 / 14) - 1 / (1000 * 240.0 * 8 / 14));
  EXPECT_NEAR(ll_to_ll128, 2.128e6, 1e3);
  EXPECT_NEAR(ll128_to_simple, 24.29e6, 1e4);
  const auto choice = [&](double bytes) { return nccl_allreduce_choice(comm, bytes); };
  for (double bytes : {1024.0, 0.95 * ll_to_ll128}) {
    EXPECT_EQ(choice(bytes).algorithm, NcclAlgorithm::ring) << bytes;
    EXPECT_EQ(choice(bytes).protocol, NcclProtocol::ll) << bytes;
  }
  for (double bytes : {1.05 * ll_to_ll128, 0.95 * ll128_to_simple}) {
    EXPECT_EQ(choice(bytes).algorithm, NcclAlgorithm::ring) << bytes;
    EXPECT_EQ(choice(bytes).protocol, NcclProtocol::ll128) << bytes;
  }
  EXPECT_EQ(choice(1.05 * ll128_to_simple).protocol, NcclProtocol::simple);
  EXPECT_NEAR(choice(1.05 * ll128_to_simple).predicted_s, (56.0 + 1.05 * ll128_to_simple / (1000 * 240.0 * 8 / 14)) * 1e-6,
              1e-12);
}

TEST(NcclTuning, AcrossNodesTreesWinSmallAndMediumMessagesAndRingsLargeOnes) {
  // 4 nodes x 8 A100 (NVLink inside), 4 channels of 12 GB/s (NET_BW, 100 Gb/s), Intel hosts. By hand:
  //   ring:  62 steps, 6 of them between nodes. Simple: 8.4 + 56 x 3.4 + 6 x 14 = 282.8 us, x 1.4 plateau; bus 48
  //          -> 24.77 GB/s. LL128: 14 + 56 x 1.9 + 6 x 4 = 144.4 us, 44.16 -> 22.79 GB/s. LL: 6.6 + 56 x max(0.6, 1.0
  //          net overhead) + 6 x 2.7 = 78.8 us, min(20.4 llMaxBw Intel N4, 24) -> 10.53 GB/s.
  //   tree:  base + 2 x (7 x intraLat + log2(4) x interLat). Simple: 8.4 + 2 x (28 + 28) = 120.4 us, 22.08 GB/s.
  //          LL128: 14 + 2 x (8.75 + 17) = 65.5 us, min(44.16 x 120/128, 80) x 0.5 = 20.7 GB/s.
  //          LL: 6.8 + 2 x (4.2 + 10) = 35.2 us, 44.16 / 3.8 x 0.5 = 5.81 GB/s.
  // 1 KiB: tree LL 35.2 + 0.2 us beats everything. 4 MiB (tree correction 0.8 for LL128): tree LL128 65.5 + 253.3
  // = 318.8 us against ring LL128 144.4 + 184.0 = 328.4 us. 1 GiB (no correction): ring Simple 395.9 + 43,341 us
  // against ring LL128 47,110 and tree Simple 48,748.
  const NcclCommunicator comm{.ranks = 32, .nodes = 4, .compute_capability = 80, .nvlink_intra = true, .channels = 4,
                              .channel_bandwidth_GBps = 12, .amd_cpu = false, .gpu_direct_nic = true, .same_channels = true,
          .nvls_channels = 0, .nvls_intra_GBps = 0, .nvls_inter_GBps = 0,
          .forced_algorithm = std::nullopt, .forced_protocol = std::nullopt, .forced_channels = std::nullopt};
  const NcclCostTable table = nccl_allreduce_costs(comm);
  EXPECT_NEAR(table.latency_us[1][2], 282.8, 1e-9);
  EXPECT_NEAR(table.latency_us[0][1], 65.5, 1e-9);
  EXPECT_NEAR(table.latency_us[0][0], 35.2, 1e-9);
  const NcclChoice small = nccl_allreduce_choice(comm, 1024);
  EXPECT_EQ(small.algorithm, NcclAlgorithm::tree);
  EXPECT_EQ(small.protocol, NcclProtocol::ll);
  const NcclChoice medium = nccl_allreduce_choice(comm, 4.0 * 1024 * 1024);
  EXPECT_EQ(medium.algorithm, NcclAlgorithm::tree);
  EXPECT_EQ(medium.protocol, NcclProtocol::ll128);
  EXPECT_NEAR(medium.predicted_s, (65.5 + 4.0 * 1024 * 1024 / (1000 * 44.16 * 120 / 128 * 0.5 * 0.8)) * 1e-6, 1e-12);
  const NcclChoice large = nccl_allreduce_choice(comm, 1024.0 * 1024 * 1024);
  EXPECT_EQ(large.algorithm, NcclAlgorithm::ring);
  EXPECT_EQ(large.protocol, NcclProtocol::simple);
  EXPECT_NEAR(large.predicted_s, (282.8 * 1.4 + 1024.0 * 1024 * 1024 / (1000 * 48.0 * 32 / 62)) * 1e-6, 1e-12);
}

TEST(NcclTuning, Ll128OnlyWhereNcclEnablesIt) {
  NcclCommunicator comm = one_a100_node();
  EXPECT_GT(nccl_allreduce_costs(comm).bandwidth_GBps[1][1], 0);
  comm.compute_capability = 75;  // Turing (T4, Quadro RTX): not tested by NCCL, off
  EXPECT_EQ(nccl_allreduce_costs(comm).bandwidth_GBps[1][1], 0);
  comm.compute_capability = 80;
  comm.nvlink_intra = false;  // PCIe inside the node: off
  EXPECT_EQ(nccl_allreduce_costs(comm).bandwidth_GBps[1][1], 0);
  EXPECT_NE(nccl_allreduce_choice(comm, 8e6).protocol, NcclProtocol::ll128);
}

TEST(NcclTuning, ForcedAlgorithmAndProtocolPickTheFastestPairTheyAllow) {
  // The 4-node communicator of AcrossNodesTreesWinSmallAndMediumMessagesAndRingsLargeOnes, whose hand-derived table
  // makes tree/LL NCCL's choice at 1 KiB. NCCL_ALGO=Ring leaves the rings: LL (78.8 us + 1 KiB at 20.4 x 32 / 62 GB/s)
  // beats LL128 (144.4 us) and Simple (282.8 us, no plateau: 1 KiB / (4 channels x 32 ranks) < 64 B).
  NcclCommunicator comm{.ranks = 32, .nodes = 4, .compute_capability = 80, .nvlink_intra = true, .channels = 4,
                        .channel_bandwidth_GBps = 12, .amd_cpu = false, .gpu_direct_nic = true, .same_channels = true,
          .nvls_channels = 0, .nvls_intra_GBps = 0, .nvls_inter_GBps = 0,
          .forced_algorithm = NcclAlgorithm::ring, .forced_protocol = std::nullopt, .forced_channels = std::nullopt};
  EXPECT_EQ(nccl_forced_problem(comm, NcclCollective::all_reduce), "");
  const NcclChoice ring = nccl_allreduce_choice(comm, 1024);
  EXPECT_EQ(ring.algorithm, NcclAlgorithm::ring);
  EXPECT_EQ(ring.protocol, NcclProtocol::ll);
  EXPECT_NEAR(ring.predicted_s, (78.8 + 1024 / (1000 * 20.4 * 32 / 62)) * 1e-6, 1e-12);
  // NCCL_PROTO=Simple alone: tree Simple (120.4 us) beats ring Simple (282.8 us) at 1 KiB.
  comm.forced_algorithm.reset();
  comm.forced_protocol = NcclProtocol::simple;
  const NcclChoice simple = nccl_allreduce_choice(comm, 1024);
  EXPECT_EQ(simple.algorithm, NcclAlgorithm::tree);
  EXPECT_EQ(simple.protocol, NcclProtocol::simple);
  // The algorithm is all_reduce's: an all_gather has only rings and still runs with NCCL_ALGO=Tree.
  comm.forced_algorithm = NcclAlgorithm::tree;
  comm.forced_protocol.reset();
  EXPECT_EQ(nccl_forced_problem(comm, NcclCollective::all_gather), "");
  EXPECT_EQ(nccl_choice(comm, NcclCollective::all_gather, 1024).algorithm, NcclAlgorithm::ring);
}

TEST(NcclTuning, CollectivesRunTwiceTheSearchsChannelsUpToMaxChannels) {
  // ncclTopoPostset (connect.cc) runs each ring of the search twice: nChannels = min(MAXCHANNELS, 2 nChannels), with
  // MAXCHANNELS 64 (device.h). 12 search channels (an A100's 12 NVLinks at 20 GB/s) run as 24 thread blocks.
  NcclCommunicator comm = one_a100_node();
  comm.channels = 12;
  EXPECT_EQ(nccl_running_channels(comm), 24);
  EXPECT_DOUBLE_EQ(nccl_channel_bandwidth_fraction(comm), 1.0);
  comm.channels = 40;
  EXPECT_EQ(nccl_running_channels(comm), 64);
  // NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS = 6: a quarter of NCCL's own 24, so a quarter of the bandwidth; 48 adds
  // channels over the same links (copyChannels), not bandwidth.
  comm.channels = 12;
  comm.forced_channels = 6;
  EXPECT_EQ(nccl_running_channels(comm), 6);
  EXPECT_DOUBLE_EQ(nccl_channel_bandwidth_fraction(comm), 0.25);
  comm.forced_channels = 48;
  EXPECT_EQ(nccl_running_channels(comm), 48);
  EXPECT_DOUBLE_EQ(nccl_channel_bandwidth_fraction(comm), 1.0);
}

TEST(NcclTuning, ForcedChannelsKeepNcclsChoiceAndStretchTheTreesBandwidthTerm) {
  // The 4-node communicator of ForcedAlgorithmAndProtocolPickTheFastestPairTheyAllow (4 search channels, 8 running).
  // NCCL's tuning reads its search's channels (tuning.cc graphs[a]->nChannels), so forcing 2 channels leaves tree/LL
  // its choice at 1 KiB; the call then moves its bytes at 2/8 of the bandwidth: latency + 4 x the bandwidth term.
  NcclCommunicator comm{.ranks = 32, .nodes = 4, .compute_capability = 80, .nvlink_intra = true, .channels = 4,
                        .channel_bandwidth_GBps = 12, .amd_cpu = false, .gpu_direct_nic = true, .same_channels = true,
                        .nvls_channels = 0, .nvls_intra_GBps = 0, .nvls_inter_GBps = 0,
                        .forced_algorithm = std::nullopt, .forced_protocol = std::nullopt, .forced_channels = 2};
  NcclCommunicator own = comm;
  own.forced_channels.reset();
  const NcclChoice choice = nccl_allreduce_choice(comm, 1024);
  const NcclChoice unforced = nccl_allreduce_choice(own, 1024);
  EXPECT_EQ(choice.algorithm, unforced.algorithm);
  EXPECT_EQ(choice.protocol, unforced.protocol);
  EXPECT_DOUBLE_EQ(choice.predicted_s, unforced.predicted_s);
  ASSERT_EQ(choice.algorithm, NcclAlgorithm::tree);
  const NcclCostTable costs = nccl_allreduce_costs(comm);
  const std::size_t a = 0;  // NcclCostTable rows: tree, ring, nvls
  const auto p = static_cast<std::size_t>(choice.protocol);
  const double latency_s = costs.latency_us[a][p] * 1e-6;
  EXPECT_NEAR(nccl_running_time_s(comm, NcclCollective::all_reduce, choice),
              latency_s + 4 * (choice.predicted_s - latency_s), 1e-15);
  EXPECT_DOUBLE_EQ(nccl_running_time_s(own, NcclCollective::all_reduce, unforced), unforced.predicted_s);
}

TEST(NcclTuning, ForcingAProtocolNcclDisabledIsAProblemNamingTheCommunicator) {
  NcclCommunicator comm = one_a100_node();
  comm.nvlink_intra = false;  // PCIe inside the node: LL128 off (Ll128OnlyWhereNcclEnablesIt)
  comm.forced_protocol = NcclProtocol::ll128;
  EXPECT_EQ(nccl_forced_problem(comm, NcclCollective::all_reduce),
            "LL128 is not enabled for all_reduce on this communicator (8 ranks on 1 node, compute capability 8.0): "
            "NCCL fails such a call (\"no algorithm/protocol available\")");
  comm.nvlink_intra = true;
  EXPECT_EQ(nccl_forced_problem(comm, NcclCollective::all_reduce), "");
  EXPECT_EQ(nccl_allreduce_choice(comm, 1024).protocol, NcclProtocol::ll128);
}

}  // namespace
}  // namespace vtsim

namespace vtsim {
namespace {

TEST(NcclTuning, AllGatherAndReduceScatterAreRingsOfNMinusOneSteps) {
  // One node of 8 A100 (12 channels x 20 GB/s): N - 1 = 7 steps, no tree. Simple: 8.4 + 7 x 3.4 = 32.2 us, bus 240
  // GB/s x 8/7 to algorithm bandwidth. Across 4 nodes x 8 (4 x 12 GB/s): 31 steps of which 3 between nodes, LL128:
  // 14 + 28 x max(1.9, 1.0) + 3 x 4.0 = 79.2 us; no plateau factor (allreduce only).
  NcclCommunicator node{.ranks = 8, .nodes = 1, .compute_capability = 80, .nvlink_intra = true, .channels = 12,
                        .channel_bandwidth_GBps = 20, .amd_cpu = false, .gpu_direct_nic = true, .same_channels = true,
          .nvls_channels = 0, .nvls_intra_GBps = 0, .nvls_inter_GBps = 0,
          .forced_algorithm = std::nullopt, .forced_protocol = std::nullopt, .forced_channels = std::nullopt};
  for (NcclCollective collective : {NcclCollective::all_gather, NcclCollective::reduce_scatter}) {
    const NcclCostTable table = nccl_costs(node, collective);
    EXPECT_NEAR(table.latency_us[1][2], 8.4 + 7 * 3.4, 1e-9);
    EXPECT_NEAR(table.bandwidth_GBps[1][2], 240.0 * 8 / 7, 1e-9);
    EXPECT_EQ(table.bandwidth_GBps[0][2], 0);  // no tree
  }
  const NcclCommunicator nodes{.ranks = 32, .nodes = 4, .compute_capability = 80, .nvlink_intra = true, .channels = 4,
                               .channel_bandwidth_GBps = 12, .amd_cpu = false, .gpu_direct_nic = true, .same_channels = true,
          .nvls_channels = 0, .nvls_intra_GBps = 0, .nvls_inter_GBps = 0,
          .forced_algorithm = std::nullopt, .forced_protocol = std::nullopt, .forced_channels = std::nullopt};
  const NcclCostTable across = nccl_costs(nodes, NcclCollective::all_gather);
  EXPECT_NEAR(across.latency_us[1][1], 14 + 28 * 1.9 + 3 * 4.0, 1e-9);
  const double bytes = 64e6;
  EXPECT_NEAR(nccl_time_s(nodes, across, NcclCollective::all_gather, NcclAlgorithm::ring, NcclProtocol::simple, bytes),
              (across.latency_us[1][2] + bytes / (1000 * across.bandwidth_GBps[1][2])) * 1e-6, 1e-15);
  EXPECT_EQ(nccl_choice(nodes, NcclCollective::all_gather, 1024).algorithm, NcclAlgorithm::ring);
}

TEST(NcclTuning, BroadcastAndReduceAreRingChainsOfNSteps) {
  // tuning.cc: nsteps = N for broadcast and reduce, so the ring's bus bandwidth is its algorithm bandwidth (x N/N);
  // no tree. Latency: base + one ring hop when every channel takes the same ring, else N hops (Simple: a tree's hop).
  NcclCommunicator node = one_a100_node();
  for (NcclCollective collective : {NcclCollective::broadcast, NcclCollective::reduce}) {
    node.same_channels = true;
    NcclCostTable table = nccl_costs(node, collective);
    EXPECT_NEAR(table.bandwidth_GBps[1][at(NcclProtocol::simple)], 240.0, 1e-9);
    EXPECT_NEAR(table.bandwidth_GBps[1][at(NcclProtocol::ll)], 87.7, 1e-9);  // min(87.7, 240 x 0.5), x 8/8
    EXPECT_NEAR(table.bandwidth_GBps[1][at(NcclProtocol::ll128)], 220.8, 1e-9);
    EXPECT_EQ(table.bandwidth_GBps[0][at(NcclProtocol::simple)], 0.0);  // no tree
    EXPECT_NEAR(table.latency_us[1][at(NcclProtocol::simple)], 8.4 + 3.4, 1e-9);
    EXPECT_NEAR(table.latency_us[1][at(NcclProtocol::ll)], 6.6 + 0.6, 1e-9);
    node.same_channels = false;
    table = nccl_costs(node, collective);
    EXPECT_NEAR(table.latency_us[1][at(NcclProtocol::simple)], 8.4 + 8 * 4.0, 1e-9);  // NVLink tree Simple hop
    EXPECT_NEAR(table.latency_us[1][at(NcclProtocol::ll128)], 14.0 + 8 * 1.9, 1e-9);
  }
  // Across nodes the hop is the network's: 4 nodes of 8, same channels, Simple: 8.4 + 14.0.
  const NcclCommunicator nodes{.ranks = 32, .nodes = 4, .compute_capability = 80, .nvlink_intra = true, .channels = 4,
                               .channel_bandwidth_GBps = 12, .amd_cpu = false, .gpu_direct_nic = true,
                               .same_channels = true,
          .nvls_channels = 0, .nvls_intra_GBps = 0, .nvls_inter_GBps = 0,
          .forced_algorithm = std::nullopt, .forced_protocol = std::nullopt, .forced_channels = std::nullopt};
  EXPECT_NEAR(nccl_costs(nodes, NcclCollective::broadcast).latency_us[1][at(NcclProtocol::simple)], 8.4 + 14.0, 1e-9);
}

}  // namespace
}  // namespace vtsim

namespace vtsim {
namespace {

/// One HGX H100 8-GPU node (18 NVLink 4 links per GPU to the NVSwitches): rings of 22 channels of 450/22 GB/s (the
/// topology's 450 GB/s per GPU over SM90_NVLINK_BW 20.6, as models/network/rings.cpp counts them) and NCCL's NVLS
/// graph.
NcclCommunicator one_h100_node() {
  const NcclGraph nvls = nccl_nvls_graph(8, 18, 90);
  return {.ranks = 8, .nodes = 1, .compute_capability = 90, .nvlink_intra = true, .channels = 22,
          .channel_bandwidth_GBps = 450.0 / 22, .amd_cpu = false, .gpu_direct_nic = true, .same_channels = false,
          .nvls_channels = nvls.channels, .nvls_intra_GBps = nvls.intra_GBps, .nvls_inter_GBps = nvls.inter_GBps,
          .forced_algorithm = std::nullopt, .forced_protocol = std::nullopt, .forced_channels = std::nullopt};
}

TEST(NcclNvls, GraphIsTheFastestSpeedWhoseSwitchPathsFitTheGpusLinks) {
  // 18 links x 20.6 GB/s = 370.8 GB/s per GPU. 8 GPUs: 9 x 50 = 450 does not fit, 9 x 40 = 360 does; bwInter then
  // climbs 40 -> 50 -> 60 (each below twice 40; 60 is the table's top).
  const NcclGraph eight = nccl_nvls_graph(8, 18, 90);
  EXPECT_EQ(eight.channels, 8);
  EXPECT_EQ(eight.intra_GBps, 40.0);
  EXPECT_EQ(eight.inter_GBps, 60.0);
  // 4 GPUs: 5 x 60 = 300 fits at the top speed, which bwInter cannot pass.
  const NcclGraph four = nccl_nvls_graph(4, 18, 90);
  EXPECT_EQ(four.channels, 4);
  EXPECT_EQ(four.intra_GBps, 60.0);
  EXPECT_EQ(four.inter_GBps, 60.0);
  // 6 links (123.6 GB/s), 8 GPUs: 9 x 12 = 108 fits, 9 x 15 = 135 does not; bwInter 12 -> 15 -> 20 -> 24 (24 = 2 x 12).
  const NcclGraph narrow = nccl_nvls_graph(8, 6, 90);
  EXPECT_EQ(narrow.intra_GBps, 12.0);
  EXPECT_EQ(narrow.inter_GBps, 24.0);
  EXPECT_EQ(nccl_nvls_graph(1, 18, 90).channels, 0);  // one GPU
  EXPECT_EQ(nccl_nvls_graph(8, 12, 80).channels, 0);  // Ampere's NVSwitch has no SHARP
}

TEST(NcclNvls, AllReduceTableOnOneH100Node) {
  // Bus bandwidth per channel min(40 x 0.85 x 7/8 x 2, 60) = 59.5 GB/s; 8 channels 476 GB/s; algorithm bandwidth
  // 476 x 8 / 14 = 272 GB/s. Latency 25 us (NVLink NVLS Simple), no base latency.
  const NcclCostTable table = nccl_allreduce_costs(one_h100_node());
  const std::size_t nvls = at(NcclAlgorithm::nvls);
  EXPECT_NEAR(table.bandwidth_GBps[nvls][at(NcclProtocol::simple)], 272.0, 1e-9);
  EXPECT_NEAR(table.latency_us[nvls][at(NcclProtocol::simple)], 25.0, 1e-12);
  EXPECT_EQ(table.bandwidth_GBps[nvls][at(NcclProtocol::ll)], 0);     // Simple only
  EXPECT_EQ(table.bandwidth_GBps[nvls][at(NcclProtocol::ll128)], 0);
  EXPECT_EQ(nccl_base_latency_s(NcclAlgorithm::nvls, NcclProtocol::simple), 0);
  // 4 of the node's GPUs: min(60 x 0.85 x 3/4 x 2, 60) = 60 per channel, 4 channels, x 4 / 6: 160 GB/s.
  NcclCommunicator four = one_h100_node();
  const NcclGraph graph = nccl_nvls_graph(4, 18, 90);
  four.ranks = 4;
  four.nvls_channels = graph.channels;
  four.nvls_intra_GBps = graph.intra_GBps;
  four.nvls_inter_GBps = graph.inter_GBps;
  EXPECT_NEAR(nccl_allreduce_costs(four).bandwidth_GBps[nvls][at(NcclProtocol::simple)], 160.0, 1e-9);
}

TEST(NcclNvls, BlackwellGraphAndAllReduceOnOneB200Node) {
  // 18 NVLink 5 links x SM100_NVLINK_BW 40.1 = 721.8 GB/s per GPU. 8 GPUs on sm100SpeedArrayIntra: 9 x 90 = 810 does
  // not fit, 9 x 80 = 720 does; bwInter climbs 80 -> 90 (the table's top). Bus bandwidth per channel
  // min(80 x 0.74 (Blackwell's nvlsEfficiency) x 7/8 x 2, 90) = 90 GB/s; 8 channels 720; x 8 / 14 = 411.43 GB/s.
  const NcclGraph graph = nccl_nvls_graph(8, 18, 100);
  EXPECT_EQ(graph.channels, 8);
  EXPECT_EQ(graph.intra_GBps, 80.0);
  EXPECT_EQ(graph.inter_GBps, 90.0);
  NcclCommunicator comm = one_h100_node();
  comm.compute_capability = 100;
  comm.nvls_channels = graph.channels;
  comm.nvls_intra_GBps = graph.intra_GBps;
  comm.nvls_inter_GBps = graph.inter_GBps;
  EXPECT_NEAR(nccl_allreduce_costs(comm).bandwidth_GBps[at(NcclAlgorithm::nvls)][at(NcclProtocol::simple)],
              720.0 * 8 / 14, 1e-9);
  EXPECT_DOUBLE_EQ(nccl_nvlink_channel_GBps(100), 40.1);  // topo.h SM100_NVLINK_BW
}

TEST(NcclNvls, OnlyAllReduceOnOneNode) {
  NcclCommunicator comm = one_h100_node();
  const std::size_t nvls = at(NcclAlgorithm::nvls);
  for (NcclCollective collective : {NcclCollective::all_gather, NcclCollective::reduce_scatter,
                                    NcclCollective::broadcast, NcclCollective::reduce}) {
    EXPECT_EQ(nccl_costs(comm, collective).bandwidth_GBps[nvls][at(NcclProtocol::simple)], 0);
  }
  comm.ranks = 16;
  comm.nodes = 2;  // NVLS across nodes needs CollNet (or NVLS Tree): not modelled, not enabled
  EXPECT_EQ(nccl_allreduce_costs(comm).bandwidth_GBps[nvls][at(NcclProtocol::simple)], 0);
}

TEST(NcclNvls, ChosenForLargeMessagesWhereItBeatsTheRings) {
  // 1 GiB: ring Simple 8.4 + 14 x 3.4 = 56 us + 2^30 B at 450 x 8/14 = 257.1 GB/s = 4,231.6 us; NVLS 25 us + 2^30 B
  // at 272 GB/s = 3,972.6 us. 64 KiB: NVLS 25.2 us; ring LL 6.6 + 14 x 0.6 = 15 us + 65,536 B at min(141, 225) x 8/14
  // GB/s = 15.8 us.
  const NcclCommunicator comm = one_h100_node();
  expect_gib_choice(comm, NcclAlgorithm::nvls, 25.0, 272.0);
  const NcclChoice small = nccl_allreduce_choice(comm, 65536);
  EXPECT_EQ(small.algorithm, NcclAlgorithm::ring);
  EXPECT_EQ(small.protocol, NcclProtocol::ll);
}

TEST(NcclNvls, ForcingItWhereItIsNotAvailableIsAProblemSayingWhatItNeeds) {
  NcclCommunicator comm = one_a100_node();  // Ampere: no NVLS graph
  comm.forced_algorithm = NcclAlgorithm::nvls;
  EXPECT_EQ(nccl_forced_problem(comm, NcclCollective::all_reduce),
            "nvls is not enabled for all_reduce on this communicator (8 ranks on 1 node, compute capability 8.0) and "
            "NVLS needs every rank on one node's NVSwitch, compute capability 9.0 or later: NCCL fails such a call "
            "(\"no algorithm/protocol available\")");
  comm = one_h100_node();
  comm.forced_algorithm = NcclAlgorithm::nvls;
  EXPECT_EQ(nccl_forced_problem(comm, NcclCollective::all_reduce), "");
  EXPECT_EQ(nccl_allreduce_choice(comm, 1024).algorithm, NcclAlgorithm::nvls);
}

}  // namespace
}  // namespace vtsim

namespace vtsim {
namespace {

/// Two DGX A100 nodes on HDR InfiniBand with SHARP: 16 ranks, NVSwitch inside each node, the flat rings' 200 GB/s
/// (8 NICs of 25 GB/s) in 16 channels of 12.5 GB/s, each GPU's 240 GB/s of NVLink (12 links of 20 GB/s).
NcclCommunicator two_dgx_a100_with_sharp() {
  NcclCommunicator comm = one_a100_node();
  comm.ranks = 16;
  comm.nodes = 2;
  comm.channels = 16;
  comm.channel_bandwidth_GBps = 12.5;
  comm.collnet = true;
  comm.nvswitch = true;
  comm.collnet_chain = nccl_collnet_chain_graph(comm, 240);
  comm.collnet_direct = nccl_collnet_direct_graph(8, 8, 200, 240, 80);
  return comm;
}

TEST(NcclCollnet, GraphsMatchTheHandDerivation) {
  const NcclCommunicator comm = two_dgx_a100_with_sharp();
  // Chain: the ring's 16 channels; bwInter 12.5 rounded down to the search's speeds (48, 30, 28, 24, 20, 18, 15, 12,
  // ...): 12; bwIntra raised one speed at a time towards 24 while 240 GB/s of NVLink carries 16 chains through each
  // GPU, 240 / 16 = 15 each: 15 fits, 18 does not.
  EXPECT_EQ(comm.collnet_chain.channels, 16);
  EXPECT_DOUBLE_EQ(comm.collnet_chain.inter_GBps, 12.0);
  EXPECT_DOUBLE_EQ(comm.collnet_chain.intra_GBps, 15.0);
  // Direct: 8 heads (a NIC each), 200 / 8 = 25 GB/s: 24, below 25, not duplicated; each GPU carries its head's bwIntra
  // and 1/7 of the 7 others', 2 bwIntra <= 240: bwIntra raised through 28 and 30 to 48, the table's top.
  EXPECT_EQ(comm.collnet_direct.channels, 8);
  EXPECT_DOUBLE_EQ(comm.collnet_direct.inter_GBps, 24.0);
  EXPECT_DOUBLE_EQ(comm.collnet_direct.intra_GBps, 48.0);
  // 4 NICs for 8 GPUs at 200 GB/s: 4 heads of 50 GB/s, 48 in the table, duplicated (48 >= 25) to 8 channels of 24;
  // the second pass cannot find 8 Direct channels on 4 NICs, so bwIntra stays 24.
  const NcclGraph four_nics = nccl_collnet_direct_graph(8, 4, 200, 240, 80);
  EXPECT_EQ(four_nics.channels, 8);
  EXPECT_DOUBLE_EQ(four_nics.inter_GBps, 24.0);
  EXPECT_DOUBLE_EQ(four_nics.intra_GBps, 24.0);
  // Hopper, 8 NICs, 320 GB/s: 40 GB/s per head (in the SM90 table), below 50 with more than 4 channels: not
  // duplicated; bwIntra raised through 42 and 45 to 48, the table's top, short of 80.
  const NcclGraph hopper = nccl_collnet_direct_graph(8, 8, 320, 370.8, 90);
  EXPECT_EQ(hopper.channels, 8);
  EXPECT_DOUBLE_EQ(hopper.inter_GBps, 40.0);
  EXPECT_DOUBLE_EQ(hopper.intra_GBps, 48.0);
  // PCIe: 24 GB/s per GPU inside the node bounds a Direct channel at 12 (its own head's and 1/7 of 7 others'): from
  // 10 GB/s per NIC, 12 fits, 15 does not.
  EXPECT_DOUBLE_EQ(nccl_collnet_direct_graph(8, 8, 80, 24, 80).intra_GBps, 12.0);
  // More NICs than GPUs: a head per GPU, each at its own NIC's speed: 4 GPUs, 8 NICs of 25 GB/s: 24.
  EXPECT_EQ(nccl_collnet_direct_graph(4, 8, 200, 240, 80).channels, 4);
  EXPECT_DOUBLE_EQ(nccl_collnet_direct_graph(4, 8, 200, 240, 80).inter_GBps, 24.0);
  EXPECT_EQ(nccl_collnet_direct_graph(8, 0, 80, 24, 80).channels, 0);  // no NIC, no head
}

TEST(NcclCollnet, TableMatchesTheHandDerivation) {
  const NcclCostTable table = nccl_allreduce_costs(two_dgx_a100_with_sharp());
  const std::size_t simple = at(NcclProtocol::simple);
  // Chain: 16 x 15 x 0.5 = 120 GB/s; 2 x (8 - 1) x 2.8 + 30 = 69.2 us.
  EXPECT_NEAR(table.bandwidth_GBps[at(NcclAlgorithm::collnet_chain)][simple], 120.0, 1e-9);
  EXPECT_NEAR(table.latency_us[at(NcclAlgorithm::collnet_chain)][simple], 69.2, 1e-9);
  // Direct: 8 GPUs on 8 NICs, factor 1: 8 x 48 x 0.5 = 192 GB/s; 2 x (3.7 + 7 x 0.4) + 31 = 44 us.
  EXPECT_NEAR(table.bandwidth_GBps[at(NcclAlgorithm::collnet_direct)][simple], 192.0, 1e-9);
  EXPECT_NEAR(table.latency_us[at(NcclAlgorithm::collnet_direct)][simple], 44.0, 1e-9);
  for (NcclAlgorithm collnet : {NcclAlgorithm::collnet_direct, NcclAlgorithm::collnet_chain}) {
    EXPECT_EQ(table.bandwidth_GBps[at(collnet)][at(NcclProtocol::ll)], 0);
    EXPECT_EQ(table.bandwidth_GBps[at(collnet)][at(NcclProtocol::ll128)], 0);
  }
}

TEST(NcclCollnet, HopperDirectTakesItsEfficiencyAndFewerNicsDivideIt) {
  NcclCommunicator comm = two_dgx_a100_with_sharp();
  comm.compute_capability = 90;
  const std::size_t direct = at(NcclAlgorithm::collnet_direct);
  const std::size_t simple = at(NcclProtocol::simple);
  EXPECT_NEAR(nccl_allreduce_costs(comm).bandwidth_GBps[direct][simple], 192.0 * 0.85, 1e-9);
  // 2 NICs of 50 GB/s for 8 GPUs: 2 heads at 48, duplicated to 4 channels of 24 GB/s, bwIntra 24; GPUs per channel
  // 8 / 4 = 2, less half the excess over 1: 1.5; 4 x 24 / 1.5 x 0.5 = 32 GB/s.
  comm.compute_capability = 80;
  comm.collnet_direct = nccl_collnet_direct_graph(8, 2, 100, 240, 80);
  EXPECT_EQ(comm.collnet_direct.channels, 4);
  EXPECT_NEAR(nccl_allreduce_costs(comm).bandwidth_GBps[direct][simple], 4 * 24.0 / 1.5 * 0.5, 1e-9);
}

TEST(NcclCollnet, OnlyWhereNcclOffersIt) {
  const std::size_t simple = at(NcclProtocol::simple);
  const auto offered = [&](const NcclCommunicator& comm, NcclAlgorithm algorithm) {
    return nccl_allreduce_costs(comm).bandwidth_GBps[at(algorithm)][simple] > 0;
  };
  NcclCommunicator comm = two_dgx_a100_with_sharp();
  EXPECT_TRUE(offered(comm, NcclAlgorithm::collnet_direct));
  EXPECT_TRUE(offered(comm, NcclAlgorithm::collnet_chain));
  comm.collnet = false;  // NCCL_COLLNET_ENABLE unset
  EXPECT_FALSE(offered(comm, NcclAlgorithm::collnet_direct));
  EXPECT_FALSE(offered(comm, NcclAlgorithm::collnet_chain));
  comm = two_dgx_a100_with_sharp();
  comm.nvswitch = false;  // Direct needs an NVSwitch; Chain does not
  EXPECT_FALSE(offered(comm, NcclAlgorithm::collnet_direct));
  EXPECT_TRUE(offered(comm, NcclAlgorithm::collnet_chain));
  comm = two_dgx_a100_with_sharp();
  comm.ranks = 32;  // 16 ranks per node: beyond NCCL_MAX_DIRECT_ARITY + 1
  EXPECT_FALSE(offered(comm, NcclAlgorithm::collnet_chain));
  comm = two_dgx_a100_with_sharp();
  comm.ranks = 8;
  comm.nodes = 1;  // below NCCL_COLLNET_NODE_THRESHOLD
  EXPECT_FALSE(offered(comm, NcclAlgorithm::collnet_chain));
  comm = two_dgx_a100_with_sharp();
  for (NcclCollective collective : {NcclCollective::all_gather, NcclCollective::reduce_scatter,
                                    NcclCollective::broadcast, NcclCollective::reduce}) {
    EXPECT_EQ(nccl_costs(comm, collective).bandwidth_GBps[at(NcclAlgorithm::collnet_direct)][simple], 0);
    EXPECT_EQ(nccl_costs(comm, collective).bandwidth_GBps[at(NcclAlgorithm::collnet_chain)][simple], 0);
  }
}

TEST(NcclCollnet, OneRankPerNodeTimesTheNetworkHopAsATree) {
  NcclCommunicator comm = two_dgx_a100_with_sharp();
  comm.ranks = 2;  // one GPU per node: no hop inside the node; the network's as the tree's Simple, 14 us
  const NcclCostTable table = nccl_allreduce_costs(comm);
  EXPECT_NEAR(table.latency_us[at(NcclAlgorithm::collnet_chain)][at(NcclProtocol::simple)], 14.0, 1e-9);
  EXPECT_NEAR(table.latency_us[at(NcclAlgorithm::collnet_direct)][at(NcclProtocol::simple)], 14.0, 1e-9);
  // Nothing inside the node bounds the chain: bwIntra raised from 12 to 24, twice bwInter.
  EXPECT_DOUBLE_EQ(nccl_collnet_chain_graph(comm, 0).intra_GBps, 24.0);
}

TEST(NcclCollnet, ChosenForLargeMessagesOverTheRings) {
  // 1 GiB: ring Simple's algorithm bandwidth 16 x 12.5 x 16/30 = 106.7 GB/s, CollNet Direct's 192 GB/s: Direct,
  // 44 us + 2^30 B at 192 GB/s. Without NCCL_COLLNET_ENABLE, the ring.
  NcclCommunicator comm = two_dgx_a100_with_sharp();
  expect_gib_choice(comm, NcclAlgorithm::collnet_direct, 44.0, 192.0);
  comm.collnet = false;
  EXPECT_EQ(nccl_allreduce_choice(comm, 1024.0 * 1024 * 1024).algorithm, NcclAlgorithm::ring);
}

TEST(NcclCollnet, NoFasterThanItsDataCrossesTheNodesGpuLinks) {
  // Two DGX A100, 240 GB/s per GPU inside the node. Direct: 2 x 7/8 of the buffer out of each GPU, 1 GiB in
  // 2^30 x 1.75 / 240e9 s: 137.1 GB/s of algorithm bandwidth, under the table's 192, so the time is 44 us plus that.
  // Chain: twice the buffer, 2^30 x 2 / 240e9 s, 120 GB/s, as the table's own 16 x 15 x 0.5.
  NcclCommunicator comm = two_dgx_a100_with_sharp();
  comm.collnet_gpu_intra_GBps = 240;
  const double gib = 1024.0 * 1024 * 1024;
  EXPECT_NEAR(nccl_collnet_intra_time_s(comm, NcclAlgorithm::collnet_direct, gib), gib * 1.75 / 240e9, 1e-12);
  EXPECT_NEAR(nccl_collnet_intra_time_s(comm, NcclAlgorithm::collnet_chain, gib), gib * 2 / 240e9, 1e-12);
  EXPECT_EQ(nccl_collnet_intra_time_s(comm, NcclAlgorithm::ring, gib), 0);
  const NcclChoice direct = nccl_allreduce_choice(comm, gib);
  ASSERT_EQ(direct.algorithm, NcclAlgorithm::collnet_direct);  // NCCL's table still picks it
  EXPECT_NEAR(nccl_analytic_time_s(comm, NcclCollective::all_reduce, direct, gib), 44e-6 + gib * 1.75 / 240e9, 1e-12);
  // 1 MiB, Direct too: 44 us + 2^20 x 1.75 / 240e3 us. 128 KiB runs as a tree, whose time is NCCL's.
  const NcclChoice mib = nccl_allreduce_choice(comm, 1 << 20);
  ASSERT_EQ(mib.algorithm, NcclAlgorithm::collnet_direct);
  EXPECT_NEAR(nccl_analytic_time_s(comm, NcclCollective::all_reduce, mib, 1 << 20),
              (44 + 1048576 * 1.75 / 240e3) * 1e-6, 1e-12);
  const NcclChoice small = nccl_allreduce_choice(comm, 1 << 17);
  ASSERT_EQ(small.algorithm, NcclAlgorithm::tree);
  EXPECT_DOUBLE_EQ(nccl_analytic_time_s(comm, NcclCollective::all_reduce, small, 1 << 17),
                   nccl_running_time_s(comm, NcclCollective::all_reduce, small));
  comm.ranks = 2;  // one GPU per node: nothing crosses GPU links
  EXPECT_EQ(nccl_collnet_intra_time_s(comm, NcclAlgorithm::collnet_direct, gib), 0);
}

TEST(NcclCollnet, ForcingItWhereItIsNotEnabledSaysWhatItNeeds) {
  NcclCommunicator comm = two_dgx_a100_with_sharp();
  comm.collnet = false;
  comm.forced_algorithm = NcclAlgorithm::collnet_direct;
  EXPECT_EQ(nccl_forced_problem(comm, NcclCollective::all_reduce),
            "collnetdirect is not enabled for all_reduce on this communicator (16 ranks on 2 nodes, compute "
            "capability 8.0) and CollNet needs NCCL_COLLNET_ENABLE (jobs[i].nccl.collnet, on the infiniband "
            "transport), 2 nodes or more and at most 8 ranks per node, CollNet Direct an NVSwitch and a NIC in each "
            "node: NCCL fails such a call (\"no algorithm/protocol available\")");
  comm.collnet = true;
  EXPECT_EQ(nccl_forced_problem(comm, NcclCollective::all_reduce), "");
  comm.forced_algorithm = NcclAlgorithm::collnet_chain;
  EXPECT_EQ(nccl_allreduce_choice(comm, 1024).algorithm, NcclAlgorithm::collnet_chain);
}

}  // namespace
}  // namespace vtsim
