// DDP's bucket assignment against buckets worked out by hand with its rule (models/parallel/ddp_buckets.hpp).

#include <gtest/gtest.h>

#include "models/parallel/ddp_buckets.hpp"

namespace vtsim {
namespace {

constexpr double kMiB = 1024.0 * 1024;

TEST(DdpBuckets, FirstLayersGetTheSmallBucketReducedLast) {
  // Registration order, MiB: 0.5, 0.75, 10, 20, 3, 30, 1. Walking forward with cap 1 MiB first: 0.5 + 0.75 = 1.25
  // >= 1 closes {0, 1}; then cap 25: 10 + 20 = 30 >= 25 closes {2, 3}; 3 + 30 = 33 closes {4, 5}; {6} is left.
  // Reversed for backward order: {6}, {4, 5}, {2, 3}, {0, 1}.
  const std::vector<double> tensors = {0.5 * kMiB, 0.75 * kMiB, 10 * kMiB, 20 * kMiB, 3 * kMiB, 30 * kMiB, 1 * kMiB};
  const std::vector<std::vector<int>> expected = {{6}, {4, 5}, {2, 3}, {0, 1}};
  EXPECT_EQ(ddp_buckets(tensors, 1 * kMiB, 25 * kMiB), expected);
}

TEST(DdpBuckets, ExactCapClosesTheBucketAndZeroCapsSplitEveryTensor) {
  // 1 MiB reaches the first cap exactly; 25 MiB reaches the second exactly.
  EXPECT_EQ(ddp_buckets({1 * kMiB, 5 * kMiB, 20 * kMiB, 2 * kMiB}, 1 * kMiB, 25 * kMiB),
            (std::vector<std::vector<int>>{{3}, {1, 2}, {0}}));
  EXPECT_EQ(ddp_buckets({4, 5, 6}, 0, 0), (std::vector<std::vector<int>>{{2}, {1}, {0}}));
  EXPECT_TRUE(ddp_buckets({}, kMiB, 25 * kMiB).empty());
}

}  // namespace
}  // namespace vtsim
