// The collective algorithms' closed forms, bytes and engine schedules, by hand, and nccl-tests' bandwidth conventions.

#include "models/collectives/collective_model.hpp"

#include <gtest/gtest.h>

#include "models/collectives/nccl_tuning.hpp"

namespace vtsim {
namespace {

constexpr double kBytes = 1e9;       // 1 GB buffer
constexpr double kBandwidth = 1e10;  // 10 GB/s: S/B = 0.1 s
constexpr double kLatency = 1e-5;    // 10 us per step

double allreduce_s(int ranks, double bytes, double bandwidth_Bps, double latency_s) {
  return RingAlgorithm(Collective::allreduce, ranks).time_s(bytes, bandwidth_Bps, latency_s);
}

TEST(RingAllreduce, MatchesAlphaBetaByHand) {
  EXPECT_DOUBLE_EQ(allreduce_s(1, kBytes, kBandwidth, kLatency), 0.0);
  EXPECT_NEAR(allreduce_s(2, kBytes, kBandwidth, kLatency), 0.1 + 2e-5, 1e-15);     // 2(1)/2 S/B + 2 a
  EXPECT_NEAR(allreduce_s(4, kBytes, kBandwidth, kLatency), 0.15 + 6e-5, 1e-15);    // 2(3)/4 S/B + 6 a
  EXPECT_NEAR(allreduce_s(8, kBytes, kBandwidth, kLatency), 0.175 + 14e-5, 1e-15);  // 2(7)/8 S/B + 14 a
}

TEST(RingReduceScatterAndAllgather, AreHalfAnAllreduceByHand) {
  for (Collective half : {Collective::reduce_scatter, Collective::allgather}) {
    const auto time_s = [half](int n) { return RingAlgorithm(half, n).time_s(kBytes, kBandwidth, kLatency); };
    EXPECT_DOUBLE_EQ(time_s(1), 0.0);
    EXPECT_NEAR(time_s(2), 0.05 + 1e-5, 1e-15);
    EXPECT_NEAR(time_s(4), 0.075 + 3e-5, 1e-15);
    EXPECT_NEAR(time_s(8), 0.0875 + 7e-5, 1e-15);
  }
  for (int n : {1, 2, 4, 8}) {
    EXPECT_NEAR(RingAlgorithm(Collective::reduce_scatter, n).time_s(kBytes, kBandwidth, kLatency) +
                    RingAlgorithm(Collective::allgather, n).time_s(kBytes, kBandwidth, kLatency),
                allreduce_s(n, kBytes, kBandwidth, kLatency), 1e-15);
  }
}

TEST(RingSteps, AreTwoPassesOfNMinusOneForAnAllreduceAndOneForItsHalves) {
  // An allreduce over 8 ranks: a reduce-scatter of 7 steps, then an allgather of 7; one rank takes no step.
  EXPECT_EQ(RingAlgorithm(Collective::allreduce, 8).steps(), 14);
  EXPECT_EQ(RingAlgorithm(Collective::allreduce, 8).passes(), 2);
  EXPECT_EQ(RingAlgorithm(Collective::reduce_scatter, 8).steps(), 7);
  EXPECT_EQ(RingAlgorithm(Collective::allgather, 8).steps(), 7);
  EXPECT_EQ(RingAlgorithm(Collective::allgather, 8).passes(), 1);
  EXPECT_EQ(RingAlgorithm(Collective::allreduce, 1).steps(), 0);
  EXPECT_DOUBLE_EQ(RingAlgorithm(Collective::allreduce, 8).step_bytes(kBytes), 1.25e8);  // S/8
}

TEST(RingSteps, AtFlowFidelityAPassIsOneTransferThenTheLatenciesItsOtherStepsPay) {
  // 5 ranks, 2 us per link, 0.5 us of protocol per step. A pass moves 4 steps of S/5 (one transfer of 4/5 S), which
  // pays one link latency; the other 3 link latencies and 4 protocol latencies follow it.
  const RingAlgorithm ring(Collective::reduce_scatter, 5);
  EXPECT_DOUBLE_EQ(ring.flow_pass_bytes(ring.step_bytes(kBytes)), 8e8);
  EXPECT_NEAR(ring.flow_pass_tail_s(2e-6, 0.5e-6), 3 * 2e-6 + 4 * 0.5e-6, 1e-18);
  // Transfer (latency + bytes / B) plus the tail is the closed form with alpha = link + protocol latency.
  const double transfer_s = 2e-6 + 8e8 / kBandwidth;
  EXPECT_NEAR(transfer_s + ring.flow_pass_tail_s(2e-6, 0.5e-6), ring.time_s(kBytes, kBandwidth, 2.5e-6), 1e-15);
  // Two ranks: the one step's own transfer paid its latency; only its protocol latency follows.
  EXPECT_DOUBLE_EQ(RingAlgorithm(Collective::allgather, 2).flow_pass_tail_s(2e-6, 0.5e-6), 0.5e-6);
}

TEST(ChainAlgorithm, CrossesOneLinkOnceAndPaysEveryHopsLatency) {
  // 4 ranks: S/B + 3 alpha; a lone rank moves nothing.
  EXPECT_NEAR(ChainAlgorithm(4).time_s(kBytes, kBandwidth, kLatency), 0.1 + 3e-5, 1e-15);
  EXPECT_DOUBLE_EQ(ChainAlgorithm(1).time_s(kBytes, kBandwidth, kLatency), 0.0);
  // After the one transfer (one link latency), 2 link and 3 protocol latencies.
  EXPECT_NEAR(ChainAlgorithm(4).tail_s(2e-6, 0.5e-6), 2 * 2e-6 + 3 * 0.5e-6, 1e-18);
  EXPECT_DOUBLE_EQ(ChainAlgorithm(4).sent_fraction(), 1.0);
}

TEST(HierarchicalAllreduce, IsIntraReduceScatterInterAllreduceOfAShardIntraAllgather) {
  // 2 hosts x 4 GPUs; NVLink-like 100 GB/s, 1 us inside a host; 10 GB/s, 10 us across hosts.
  // Intra reduce-scatter and allgather: 3/4 x 1e9 / 1e11 + 3 x 1e-6 each; inter allreduce of 2.5e8 B over 2 hosts:
  // 2 x 1/2 x 2.5e8 / 1e10 + 2 x 1e-5.
  const double expected = 2 * (7.5e-3 + 3e-6) + (0.025 + 2e-5);
  const HierarchicalAllreduceAlgorithm algorithm(2, 4);
  EXPECT_NEAR(algorithm.time_s(kBytes, 1e11, 1e-6, 1e10, 1e-5), expected, 1e-15);
  EXPECT_DOUBLE_EQ(algorithm.shard_bytes(kBytes), 2.5e8);
  EXPECT_EQ(algorithm.intra_reduce_scatter().steps(), 3);
  EXPECT_EQ(algorithm.inter_allreduce().steps(), 2);
  EXPECT_EQ(algorithm.intra_allgather().steps(), 3);
}

TEST(HierarchicalAllreduce, ReducesToTheFlatRingWithOneGpuPerHostOrOneHost) {
  for (int n : {1, 2, 4, 8}) {
    EXPECT_DOUBLE_EQ(HierarchicalAllreduceAlgorithm(n, 1).time_s(kBytes, 1e11, 1e-6, kBandwidth, kLatency),
                     allreduce_s(n, kBytes, kBandwidth, kLatency));
    EXPECT_NEAR(HierarchicalAllreduceAlgorithm(1, n).time_s(kBytes, kBandwidth, kLatency, 1e9, 1e-3),
                allreduce_s(n, kBytes, kBandwidth, kLatency), 1e-15);
  }
}

TEST(Alltoall, IsNMinusOneShiftsOfANthEach) {
  const AlltoallAlgorithm alltoall(4);
  EXPECT_EQ(alltoall.shifts(), 3);
  EXPECT_DOUBLE_EQ(alltoall.shift_fraction(), 0.25);
  EXPECT_DOUBLE_EQ(alltoall.sent_fraction(), 0.75);
  EXPECT_EQ(AlltoallAlgorithm(1).shifts(), 0);
}

TEST(CollectiveSentFraction, IsWhatEachRankSendsUnderTheAlgorithmThatRunsIt) {
  // Over 4 ranks: a ring allreduce sends 2 x 3/4 of the buffer, its halves and the alltoall 3/4, a chain and a
  // sendrecv all of it.
  EXPECT_DOUBLE_EQ(collective_sent_fraction(Collective::allreduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(collective_sent_fraction(Collective::reduce_scatter, 4), 0.75);
  EXPECT_DOUBLE_EQ(collective_sent_fraction(Collective::allgather, 4), 0.75);
  EXPECT_DOUBLE_EQ(collective_sent_fraction(Collective::alltoall, 4), 0.75);
  EXPECT_DOUBLE_EQ(collective_sent_fraction(Collective::broadcast, 4), 1.0);
  EXPECT_DOUBLE_EQ(collective_sent_fraction(Collective::reduce, 4), 1.0);
  EXPECT_DOUBLE_EQ(collective_sent_fraction(Collective::sendrecv, 4), 1.0);
}

TEST(CollectiveOf, NamesNcclsCollectivesAsTheAlgorithmsDo) {
  EXPECT_EQ(collective_of(NcclCollective::all_reduce), Collective::allreduce);
  EXPECT_EQ(collective_of(NcclCollective::all_gather), Collective::allgather);
  EXPECT_EQ(collective_of(NcclCollective::reduce_scatter), Collective::reduce_scatter);
  EXPECT_EQ(collective_of(NcclCollective::broadcast), Collective::broadcast);
  EXPECT_EQ(collective_of(NcclCollective::reduce), Collective::reduce);
}

TEST(BusBandwidth, FollowsNcclTestsConventions) {
  // nccl-tests doc/PERFORMANCE.md: algbw = S / t; allreduce busbw = algbw x 2(n-1)/n; reduce-scatter and allgather
  // (n-1)/n.
  EXPECT_DOUBLE_EQ(algbw_Bps(kBytes, 0.1), 1e10);
  EXPECT_DOUBLE_EQ(busbw_Bps(Collective::allreduce, 4, 1e10), 1.5e10);
  EXPECT_DOUBLE_EQ(busbw_Bps(Collective::reduce_scatter, 4, 1e10), 0.75e10);
  EXPECT_DOUBLE_EQ(busbw_Bps(Collective::allgather, 8, 1e10), 0.875e10);
  EXPECT_DOUBLE_EQ(busbw_factor(Collective::allreduce, 1), 0.0);
  // Its point: on a ring without latency the bus bandwidth is the link bandwidth, whatever the rank count.
  for (int n : {2, 4, 8}) {
    const double t = allreduce_s(n, kBytes, kBandwidth, 0.0);
    EXPECT_NEAR(busbw_Bps(Collective::allreduce, n, algbw_Bps(kBytes, t)), kBandwidth, 1e-3);
  }
}

}  // namespace
}  // namespace vtsim
