// The analytic fidelity's collectives on a hand-written topology, without a scenario or an engine: the closed forms
// at the bottleneck and latency worked out by hand.

#include "models/network/analytic_collectives.hpp"

#include <gtest/gtest.h>

#include "models/network/rings.hpp"
#include "models/network/topology.hpp"
#include "tests/models/network/network_test_support.hpp"

namespace vtsim {
namespace {

// Two one-GPU hosts in one rack, one NIC each, no NVLink: the ring's two flows (0 to 1, 1 to 0) cross each link in
// opposite directions, so each gets the slower class whole, the NIC's 12 GB/s; a step's latency is both PCIe links'
// (0.5 us each), the NIC message's (2 us) and the leaf switch's (0.3 us) once: 3.3 us.
constexpr double kRate_Bps = 12e9;
constexpr double kStep_s = 2 * 0.5e-6 + 2e-6 + 0.3e-6;
constexpr double kBufferBytes = 1e9;

Topology two_hosts() { return Topology(test_support::two_one_gpu_hosts()); }

TEST(AnalyticCollectives, AFlatRingIsTheClosedFormAtTheBottleneckByHand) {
  const Topology topology = two_hosts();
  const JobRings rings = group_rings({0, 1}, 1, topology);
  ASSERT_EQ(rings.channels.size(), 1u);
  const NcclCommunicator nccl =
      nccl_communicator({.compute_capability = 80, .nvlink_links = 0, .gpudirect_rdma = true}, rings, topology);
  // LL adds nothing to a step's latency (NCCL's extra latencies are counted from LL's). An allreduce of 2 ranks is 2
  // steps of S/2; a reduce-scatter or an allgather 1; a broadcast passes all of S once and pays one hop.
  const double allreduce = 2 * (kBufferBytes / 2 / kRate_Bps + kStep_s);
  EXPECT_NEAR(flat_collective_time(NcclCollective::all_reduce, rings, topology, nccl)(kBufferBytes, NcclProtocol::ll),
              allreduce, 1e-12);
  for (NcclCollective half : {NcclCollective::all_gather, NcclCollective::reduce_scatter}) {
    EXPECT_NEAR(flat_collective_time(half, rings, topology, nccl)(kBufferBytes, NcclProtocol::ll), allreduce / 2,
                1e-12);
  }
  for (NcclCollective chain : {NcclCollective::broadcast, NcclCollective::reduce}) {
    EXPECT_NEAR(flat_collective_time(chain, rings, topology, nccl)(kBufferBytes, NcclProtocol::ll),
                kBufferBytes / kRate_Bps + kStep_s, 1e-12);
  }
  // Simple adds NCCL's extra latency of a network hop to each of the allreduce's 2 steps: 14.0 - 2.7 = 11.3 us
  // (NCCL's hwLat, NET ring, Simple less LL).
  EXPECT_NEAR(
      flat_collective_time(NcclCollective::all_reduce, rings, topology, nccl)(kBufferBytes, NcclProtocol::simple),
      allreduce + 2 * 11.3e-6, 1e-12);
}

TEST(AnalyticCollectives, TwoNicsCarryARingEachAndForcedChannelsTakeTheirShareByHand) {
  // Two hosts of two GPUs and two NICs each (no NVLink: PCIe peer to peer inside a host). NCCL runs a ring per NIC
  // (rail), each leaving a host by its own NIC and carrying half of the data. A ring's flow between hosts has its NIC's
  // direction to itself (12 GB/s); each GPU sends one flow per ring up its PCIe link and receives one down (25 / 2 =
  // 12.5 GB/s each), so the NIC binds: 12 GB/s. A step's latency is the flow between hosts': 3.3 us, as above.
  TopologySpec spec = test_support::two_one_gpu_hosts();
  spec.gpus_per_host = 2;
  spec.nics_per_host = 2;
  const Topology topology(spec);
  const JobRings rings = group_rings({0, 1, 2, 3}, 2, topology);
  ASSERT_EQ(rings.channels.size(), 2u);
  NcclCommunicator nccl =
      nccl_communicator({.compute_capability = 80, .nvlink_links = 0, .gpudirect_rdma = true}, rings, topology);
  // The rings move 2 x 12 GB/s; NCCL's network channel is 12 GB/s: 2 channels, which it runs twice (4).
  ASSERT_EQ(nccl.channels, 2);
  // An allreduce of 4 ranks: 6 steps of each ring's S/2 over 4.
  const double step_bytes = kBufferBytes / 2 / 4;
  EXPECT_NEAR(flat_collective_time(NcclCollective::all_reduce, rings, topology, nccl)(kBufferBytes, NcclProtocol::ll),
              6 * (step_bytes / kRate_Bps + kStep_s), 1e-12);
  // Forcing 2 of NCCL's 4 running channels leaves each ring half of its rate.
  nccl.forced_channels = 2;
  EXPECT_NEAR(flat_collective_time(NcclCollective::all_reduce, rings, topology, nccl)(kBufferBytes, NcclProtocol::ll),
              6 * (step_bytes / (kRate_Bps / 2) + kStep_s), 1e-12);
}

TEST(AnalyticCollectives, AHierarchicalAllreduceOverOneGpuPerHostIsTheFlatRing) {
  // With one GPU per host the intra-host rings are single ranks (no steps): only the inter-host ring of 2 ranks runs.
  const Topology topology = two_hosts();
  const JobRings rings = hierarchical_rings(group_rings({0, 1}, 1, topology), topology);
  EXPECT_NEAR(hierarchical_allreduce_time(rings, topology)(kBufferBytes, NcclProtocol::ll),
              2 * (kBufferBytes / 2 / kRate_Bps + kStep_s), 1e-12);
}

TEST(AnalyticCollectives, AHierarchicalAllreduceIsIntraHostHalvesAroundAnInterHostAllreduceByHand) {
  // Two hosts of two GPUs each (bare metal, no NVLink: PCIe peer to peer inside a host), one NIC each. Inside a host
  // the ring 0 -> 1 -> 0 crosses the two GPUs' PCIe links, one flow each way: 25 GB/s, 2 x 0.5 us a step. Between
  // hosts the rings of local index 0 (GPUs 0, 2) and 1 (GPUs 1, 3) both leave each host by its one NIC: 12 / 2 =
  // 6 GB/s each, 3.3 us a step. Reduce-scatter of S inside (1 step of S/2), allreduce of the S/2 shard across (2 steps
  // of S/4), allgather of S inside (1 step of S/2).
  TopologySpec spec = test_support::two_one_gpu_hosts();
  spec.gpus_per_host = 2;
  const Topology topology(spec);
  const JobRings rings = hierarchical_rings(group_rings({0, 1, 2, 3}, 1, topology), topology);
  ASSERT_EQ(rings.intra_host_channels.front().size(), 1u);
  const double intra_step_s = kBufferBytes / 2 / 25e9 + 2 * 0.5e-6;
  const double inter_step_s = kBufferBytes / 4 / 6e9 + kStep_s;
  EXPECT_NEAR(hierarchical_allreduce_time(rings, topology)(kBufferBytes, NcclProtocol::ll),
              2 * intra_step_s + 2 * inter_step_s, 1e-12);
}

}  // namespace
}  // namespace vtsim
