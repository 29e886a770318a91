// DDP's reducer (sim/training/ddp_reducer.hpp) on its own: gradients reported in a chosen order, the buckets it
// launches worked out by hand. It waits on nothing, so no engine runs.

#include "sim/training/ddp_reducer.hpp"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

namespace vtsim::sim {
namespace {

/// A launched bucket: [rank position, iteration, gradients, bytes].
using Launch = std::tuple<int, int, int, double>;

/// A reducer over `layouts` whose launches go to `launches`.
DdpReducer reducer_into(std::vector<Launch>& launches, std::vector<DdpReducer::Layout> layouts,
                        std::vector<int> layout_of) {
  return DdpReducer(std::move(layouts), std::move(layout_of), [&launches](int position, const FusionBuffer& bucket) {
    launches.emplace_back(position, bucket.iteration, bucket.tensor_count, bucket.bytes);
  });
}

TEST(DdpReducer, LaunchesFullBucketsInOrderAndABucketWaitsForTheOneBeforeIt) {
  // Gradients of 1, 2, 4 and 8 bytes; buckets {3, 2}, {0}, {1} (launch order).
  std::vector<Launch> launches;
  DdpReducer reducer = reducer_into(launches, {DdpReducer::Layout({{3, 2}, {0}, {1}}, {1, 2, 4, 8})}, {0});
  reducer.gradient_ready({.iteration = 0, .tensor = 3});  // bucket 0 has 1 of 2
  EXPECT_TRUE(launches.empty());
  reducer.gradient_ready({.iteration = 0, .tensor = 0});  // bucket 1 is full, but bucket 0 goes first
  EXPECT_TRUE(launches.empty());
  reducer.gradient_ready({.iteration = 0, .tensor = 2});  // bucket 0 full: it goes (8 + 4 bytes), then bucket 1 (1)
  EXPECT_EQ(launches, (std::vector<Launch>{{0, 0, 2, 12.0}, {0, 0, 1, 1.0}}));
  reducer.gradient_ready({.iteration = 0, .tensor = 1});  // bucket 2 (2 bytes)
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_EQ(launches[2], (Launch{0, 0, 1, 2.0}));
  // The next iteration starts with empty buckets.
  reducer.gradient_ready({.iteration = 1, .tensor = 0});
  EXPECT_EQ(launches.size(), 3u);
  reducer.gradient_ready({.iteration = 1, .tensor = 3});
  reducer.gradient_ready({.iteration = 1, .tensor = 2});
  ASSERT_EQ(launches.size(), 5u);
  EXPECT_EQ(launches[3], (Launch{0, 1, 2, 12.0}));
  EXPECT_EQ(launches[4], (Launch{0, 1, 1, 1.0}));
}

TEST(DdpReducer, ABucketsBytesAreItsGradientsSummedInItsOrder) {
  // As the loop that summed them at launch did: (0.1 + 0.2) + 0.3, which is not 0.1 + (0.2 + 0.3) in doubles.
  std::vector<Launch> launches;
  DdpReducer reducer = reducer_into(launches, {DdpReducer::Layout({{0, 1, 2}}, {0.1, 0.2, 0.3})}, {0});
  for (int tensor : {2, 1, 0}) reducer.gradient_ready({.tensor = tensor});
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(std::get<3>(launches[0]), 0.1 + 0.2 + 0.3);
  EXPECT_NE(std::get<3>(launches[0]), 0.3 + 0.2 + 0.1);
}

TEST(DdpReducer, EachMicroBatchAndEachRankFillsBucketsOfItsOwn) {
  // Two ranks of the same layout, buckets {1}, {0} over gradients of 3 and 5 bytes; a third rank reports nothing.
  std::vector<Launch> launches;
  DdpReducer reducer = reducer_into(launches, {DdpReducer::Layout({{1}, {0}}, {3, 5})}, {0, 0, -1});
  // Micro-batch 0 of rank 0 and micro-batch 1 of rank 0 interleave (ZeRO-2/3 reduce each); rank 1 too.
  reducer.gradient_ready({.iteration = 2, .micro_batch = 0, .position = 0, .tensor = 0});  // waits for bucket 0
  reducer.gradient_ready({.iteration = 2, .micro_batch = 1, .position = 0, .tensor = 1});  // its own bucket 0
  reducer.gradient_ready({.iteration = 2, .micro_batch = 0, .position = 1, .tensor = 1});
  EXPECT_EQ(launches, (std::vector<Launch>{{0, 2, 1, 5.0}, {1, 2, 1, 5.0}}));
  reducer.gradient_ready({.iteration = 2, .micro_batch = 0, .position = 0, .tensor = 1});  // both of micro-batch 0
  EXPECT_EQ(launches.size(), 4u);
  EXPECT_EQ(launches[2], (Launch{0, 2, 1, 5.0}));
  EXPECT_EQ(launches[3], (Launch{0, 2, 1, 3.0}));
}

TEST(DdpReducer, ALayoutPerRankUnderModelParallelism) {
  // Rank 0: one bucket of both its gradients (2 + 6 bytes); rank 1: gradients of 10 bytes each in buckets of one.
  std::vector<Launch> launches;
  DdpReducer reducer =
      reducer_into(launches, {DdpReducer::Layout({{0, 1}}, {2, 6}), DdpReducer::Layout({{0}, {1}}, {10, 10})}, {0, 1});
  reducer.gradient_ready({.position = 1, .tensor = 0});
  reducer.gradient_ready({.position = 0, .tensor = 1});
  reducer.gradient_ready({.position = 0, .tensor = 0});
  EXPECT_EQ(launches, (std::vector<Launch>{{1, 0, 1, 10.0}, {0, 0, 2, 8.0}}));
}

}  // namespace
}  // namespace vtsim::sim
