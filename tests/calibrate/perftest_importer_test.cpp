#include "calibrate/perftest_importer.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace vtsim::calibrate {
namespace {

using testing::error_of;
using testing::read_fixture;

RdmaSeries import_perftest_fixture(const std::string& name, const std::string& transport = "") {
  return import_perftest(read_fixture(name), name, PerftestOptions{transport});
}

TEST(PerftestImporter, ReadsWriteBandwidthInPerftestMegabytes) {
  const RdmaSeries series = import_perftest_fixture("ib_write_bw_roce.log");
  EXPECT_EQ(series.op, "write");
  EXPECT_EQ(series.test, "bandwidth");
  EXPECT_EQ(series.transport, "roce");  // Link type: Ethernet
  ASSERT_EQ(series.points.size(), 7u);
  EXPECT_EQ(series.points.back().bytes, 8388608);
  // perftest's MB/sec is 2^20 bytes/s (format_factor 0x100000): 11425 x 1048576 B/s.
  ASSERT_TRUE(series.points.back().bandwidth_gBps.has_value());
  EXPECT_DOUBLE_EQ(*series.points.back().bandwidth_gBps, 11425.0 * 1048576.0 / 1e9);
  EXPECT_FALSE(series.points.back().latency_us.has_value());
  EXPECT_EQ(series.provenance.tool, "perftest ib_write_bw");
  EXPECT_EQ(series.provenance.device, "mlx5_0");
  EXPECT_EQ(series.provenance.notes, "link type Ethernet, connection RC, BW average");
}

// Lines of 300,000 characters before the log (a word, blanks, a title's verb followed by blanks) are read as any
// other line, without a crash (std::regex, which matched these lines until 2026-12-04, recursed once per character).
TEST(PerftestImporter, LinesOfHundredsOfThousandsOfCharactersAreReadWithoutACrash) {
  const std::string text = read_fixture("ib_write_bw_roce.log");
  const RdmaSeries plain = import_perftest(text, "plain.log", {});
  for (const std::string& line : {std::string(300000, 'D'), "Device" + std::string(300000, ' '),
                                  "Send" + std::string(300000, ' ') + "x"}) {
    EXPECT_EQ(import_perftest(line + "\n" + text, "plain.log", {}), plain) << line.substr(0, 10);
  }
}

TEST(PerftestImporter, ReadsWriteLatencyTypical) {
  const RdmaSeries series = import_perftest_fixture("ib_write_lat_roce.log");
  EXPECT_EQ(series.test, "latency");
  ASSERT_EQ(series.points.size(), 6u);
  EXPECT_EQ(series.points[0].bytes, 2);
  EXPECT_DOUBLE_EQ(*series.points[0].latency_us, 1.10);  // t_typical, not t_min (1.02) or t_avg (1.12)
  EXPECT_EQ(series.points[5].bytes, 1048576);
  EXPECT_DOUBLE_EQ(*series.points[5].latency_us, 93.30);
  EXPECT_EQ(series.provenance.tool, "perftest ib_write_lat");
}

TEST(PerftestImporter, ReadsSendBandwidthInGigabitsOnPvrdma) {
  const RdmaSeries series = import_perftest_fixture("ib_send_bw_pvrdma_gbits.log");
  EXPECT_EQ(series.op, "send");
  EXPECT_EQ(series.transport, "pvrdma");  // device vmw_pvrdma0
  ASSERT_EQ(series.points.size(), 3u);
  EXPECT_DOUBLE_EQ(*series.points[2].bandwidth_gBps, 39.20 / 8);  // Gb/sec = 1e9 bit/s = 0.125 GB/s
}

TEST(PerftestImporter, MalformedNumberNamesFileLineAndColumn) {
  EXPECT_EQ(error_of([] { import_perftest_fixture("perftest_bad_number.log"); }),
            "perftest_bad_number.log:25: t_min[usec]: expected a number >= 0, got '2,30'");
}

TEST(PerftestImporter, UnknownLinkTypeNeedsTransport) {
  EXPECT_EQ(error_of([] { import_perftest_fixture("perftest_no_link_type.log"); }),
            "perftest_no_link_type.log: cannot tell the transport (no 'Link type : Ethernet|IB' line): pass "
            "--transport");
  EXPECT_EQ(import_perftest_fixture("perftest_no_link_type.log", "roce_v2").transport, "roce_v2");
}

TEST(PerftestImporter, NotAPerftestLogIsAnError) {
  EXPECT_EQ(error_of([] { import_perftest("#bytes 2\n", "x.log", {}); }),
            "x.log: no perftest title line ('RDMA_Write BW Test', 'Send Latency Test', ...)");
}

}  // namespace
}  // namespace vtsim::calibrate
