// vtsim collectives' nccl-tests layout round-trips through vtsim's own nccl-tests importer; its bandwidths follow
// nccl-tests' definitions (doc/PERFORMANCE.md).

#include <gtest/gtest.h>

#include "calibrate/nccl_tests_importer.hpp"
#include "tools/commands/collectives_command.hpp"

namespace vtsim::tools {
namespace {

TEST(CollectivesFormat, BandwidthsFollowNcclTestsDefinitions) {
  // 8 ranks, 1 MB in 100 us: algbw 10 GB/s; busbw x 2 x 7/8 = 17.5 for all_reduce, x 7/8 = 8.75 for all_gather.
  const std::vector<sim::CollectiveTiming> timings = {{1e6, 100e-6, "ring/Simple"}};
  EXPECT_DOUBLE_EQ(collective_rows("all_reduce", 8, timings).front().algbw_gBps, 10.0);
  EXPECT_DOUBLE_EQ(collective_rows("all_reduce", 8, timings).front().busbw_gBps, 17.5);
  EXPECT_DOUBLE_EQ(collective_rows("all_gather", 8, timings).front().busbw_gBps, 8.75);
  EXPECT_DOUBLE_EQ(collective_rows("all_reduce", 8, timings).front().time_us, 100.0);
  // Rooted collectives move the whole buffer over each link once: busbw = algbw.
  EXPECT_DOUBLE_EQ(collective_rows("broadcast", 8, timings).front().busbw_gBps, 10.0);
  EXPECT_DOUBLE_EQ(collective_rows("reduce", 8, timings).front().busbw_gBps, 10.0);
}

TEST(CollectivesFormat, NcclTestsLayoutRoundTripsThroughTheImporter) {
  const std::vector<sim::CollectiveTiming> timings = {
      {1024, 20e-6, "ring/LL"}, {1048576, 40e-6, "ring/LL128"}, {134217728, 900e-6, "ring/Simple"}};
  const std::vector<CollectiveRow> rows = collective_rows("all_reduce", 4, timings);
  const std::string text = format_nccl_tests("all_reduce", "float", rows, {"host0", "host0", "host1", "host1"},
                                             {"NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB",
                                              "NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB"});
  const CollectiveSeries series = calibrate::import_nccl_tests(text, "simulated.log", {});
  EXPECT_EQ(series.op, "all_reduce");
  EXPECT_EQ(series.ranks, 4);
  EXPECT_EQ(series.hosts, 2);
  ASSERT_EQ(series.points.size(), 3u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(series.points[i].bytes, static_cast<std::int64_t>(rows[i].bytes));
    EXPECT_NEAR(series.points[i].time_us, rows[i].time_us, 0.005);
    EXPECT_NEAR(series.points[i].busbw_gBps, rows[i].busbw_gBps, 0.005);
  }
  EXPECT_NE(text.find("# Avg bus bandwidth"), std::string::npos);
}

TEST(CollectivesFormat, RootedCollectivesRoundTripWithTheirRootAndReduction) {
  const std::vector<sim::CollectiveTiming> timings = {{1048576, 40e-6, "ring/LL128"}, {8388608, 60e-6, "ring/Simple"}};
  for (const std::string op : {"broadcast", "reduce"}) {
    const std::vector<CollectiveRow> rows = collective_rows(op, 2, timings);
    const std::string text = format_nccl_tests(op, "half", rows, {"host0", "host0"}, {"NVIDIA H100", "NVIDIA H100"});
    EXPECT_NE(text.find(op == "reduce" ? "     sum       0" : "    none       0"), std::string::npos) << text;
    const CollectiveSeries series = calibrate::import_nccl_tests(text, "simulated.log", {});
    EXPECT_EQ(series.op, op);
    ASSERT_EQ(series.points.size(), 2u);
    EXPECT_NEAR(series.points[1].busbw_gBps, 8388608 / 60e-6 / 1e9, 0.005);
  }
}

}  // namespace
}  // namespace vtsim::tools
