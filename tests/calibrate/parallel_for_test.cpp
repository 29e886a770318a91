// parallel_for: every piece runs exactly once, whatever the threads, and a failing piece's exception reaches the
// caller.

#include "calibrate/parallel_for.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

namespace vtsim::calibrate {
namespace {

TEST(ParallelFor, RunsEveryPieceExactlyOnce) {
  for (const std::size_t count : {0u, 1u, 2u, 7u, 1000u}) {
    std::vector<std::atomic<int>> runs(count);
    parallel_for(count, [&](std::size_t i) { ++runs[i]; });
    for (std::size_t i = 0; i < count; ++i) EXPECT_EQ(runs[i].load(), 1) << "piece " << i << " of " << count;
  }
}

TEST(ParallelFor, EachPieceWritesItsOwnResult) {
  // sum of i^2 for i < 500 = 499 x 500 x 999 / 6
  std::vector<long> squares(500);
  parallel_for(squares.size(), [&](std::size_t i) { squares[i] = static_cast<long>(i * i); });
  long sum = 0;
  for (long value : squares) sum += value;
  EXPECT_EQ(sum, 499L * 500 * 999 / 6);
}

TEST(ParallelFor, RethrowsAPiecesException) {
  EXPECT_THROW(parallel_for(50, [](std::size_t i) {
                 if (i == 17) throw std::runtime_error("piece 17");
               }),
               std::runtime_error);
}

}  // namespace
}  // namespace vtsim::calibrate
