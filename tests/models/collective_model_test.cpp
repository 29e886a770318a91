// Closed forms of the ring and hierarchical collectives, by hand, and nccl-tests' bandwidth conventions.

#include "models/collective_model.hpp"

#include <gtest/gtest.h>

namespace vtsim {
namespace {

constexpr double kBytes = 1e9;       // 1 GB buffer
constexpr double kBandwidth = 1e10;  // 10 GB/s: S/B = 0.1 s
constexpr double kLatency = 1e-5;    // 10 us per step

TEST(RingAllreduce, MatchesAlphaBetaByHand) {
  EXPECT_DOUBLE_EQ(ring_allreduce_time_s(1, kBytes, kBandwidth, kLatency), 0.0);
  EXPECT_NEAR(ring_allreduce_time_s(2, kBytes, kBandwidth, kLatency), 0.1 + 2e-5, 1e-15);     // 2(1)/2 S/B + 2 a
  EXPECT_NEAR(ring_allreduce_time_s(4, kBytes, kBandwidth, kLatency), 0.15 + 6e-5, 1e-15);    // 2(3)/4 S/B + 6 a
  EXPECT_NEAR(ring_allreduce_time_s(8, kBytes, kBandwidth, kLatency), 0.175 + 14e-5, 1e-15);  // 2(7)/8 S/B + 14 a
}

TEST(RingReduceScatterAndAllgather, AreHalfAnAllreduceByHand) {
  for (auto time_s : {ring_reduce_scatter_time_s, ring_allgather_time_s}) {
    EXPECT_DOUBLE_EQ(time_s(1, kBytes, kBandwidth, kLatency), 0.0);
    EXPECT_NEAR(time_s(2, kBytes, kBandwidth, kLatency), 0.05 + 1e-5, 1e-15);
    EXPECT_NEAR(time_s(4, kBytes, kBandwidth, kLatency), 0.075 + 3e-5, 1e-15);
    EXPECT_NEAR(time_s(8, kBytes, kBandwidth, kLatency), 0.0875 + 7e-5, 1e-15);
  }
  for (int n : {1, 2, 4, 8}) {
    EXPECT_NEAR(ring_reduce_scatter_time_s(n, kBytes, kBandwidth, kLatency) +
                    ring_allgather_time_s(n, kBytes, kBandwidth, kLatency),
                ring_allreduce_time_s(n, kBytes, kBandwidth, kLatency), 1e-15);
  }
}

TEST(RingSteps, AreTwoPassesOfNMinusOneForAnAllreduceAndOneForItsHalves) {
  // An allreduce over 8 ranks: a reduce-scatter of 7 steps, then an allgather of 7; one rank takes no step.
  EXPECT_EQ(ring_steps(Collective::allreduce, 8), 14);
  EXPECT_EQ(ring_steps(Collective::reduce_scatter, 8), 7);
  EXPECT_EQ(ring_steps(Collective::allgather, 8), 7);
  EXPECT_EQ(ring_steps(Collective::allreduce, 1), 0);
}

TEST(HierarchicalAllreduce, IsIntraReduceScatterInterAllreduceOfAShardIntraAllgather) {
  // 2 hosts x 4 GPUs; NVLink-like 100 GB/s, 1 us inside a host; 10 GB/s, 10 us across hosts.
  // Intra reduce-scatter and allgather: 3/4 x 1e9 / 1e11 + 3 x 1e-6 each; inter allreduce of 2.5e8 B over 2 hosts:
  // 2 x 1/2 x 2.5e8 / 1e10 + 2 x 1e-5.
  const double expected = 2 * (7.5e-3 + 3e-6) + (0.025 + 2e-5);
  EXPECT_NEAR(hierarchical_allreduce_time_s(2, 4, kBytes, 1e11, 1e-6, 1e10, 1e-5), expected, 1e-15);
}

TEST(HierarchicalAllreduce, ReducesToTheFlatRingWithOneGpuPerHostOrOneHost) {
  for (int n : {1, 2, 4, 8}) {
    EXPECT_DOUBLE_EQ(hierarchical_allreduce_time_s(n, 1, kBytes, 1e11, 1e-6, kBandwidth, kLatency),
                     ring_allreduce_time_s(n, kBytes, kBandwidth, kLatency));
    EXPECT_NEAR(hierarchical_allreduce_time_s(1, n, kBytes, kBandwidth, kLatency, 1e9, 1e-3),
                ring_allreduce_time_s(n, kBytes, kBandwidth, kLatency), 1e-15);
  }
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
    const double t = ring_allreduce_time_s(n, kBytes, kBandwidth, 0.0);
    EXPECT_NEAR(busbw_Bps(Collective::allreduce, n, algbw_Bps(kBytes, t)), kBandwidth, 1e-3);
  }
}

}  // namespace
}  // namespace vtsim
