#include "calibrate/nccl_tests_importer.hpp"

#include <algorithm>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace vtsim::calibrate {
namespace {

using testing::error_of;
using testing::read_fixture;
using ::testing::HasSubstr;
using ::testing::StartsWith;

CollectiveSeries import_nccl_fixture(const std::string& name, const std::string& op = "") {
  return import_nccl_tests(read_fixture(name), name, NcclTestsOptions{op});
}

// The fixture follows time = 12 us + S x 2(n-1)/n / 230 GB/s for n = 8 ranks, printed as nccl-tests prints it.
TEST(NcclTestsImporter, ReadsAllReduceTableRanksHostAndDevices) {
  const CollectiveSeries series = import_nccl_fixture("all_reduce_perf_8xa100.log");
  EXPECT_EQ(series.op, "all_reduce");
  EXPECT_EQ(series.ranks, 8);
  EXPECT_EQ(series.hosts, 1);
  EXPECT_EQ(series.gpus, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  ASSERT_EQ(series.points.size(), 28u);  // 8 B to 1 GiB, doubling
  EXPECT_EQ(series.points.front().bytes, 8);
  EXPECT_DOUBLE_EQ(series.points.front().time_us, 12.00);
  const CollectivePoint& last = series.points.back();
  EXPECT_EQ(last.bytes, 1073741824);
  const double time_us = 12 + 1073741824.0 * 1.75 / 230e9 * 1e6;  // 8181.77
  EXPECT_NEAR(last.time_us, time_us, 0.005);
  EXPECT_NEAR(last.algbw_gBps, 1073741824.0 / 1e9 / (time_us * 1e-6), 0.005);
  EXPECT_NEAR(last.busbw_gBps, last.algbw_gBps * 1.75, 0.005 + 0.005 * 1.75);  // both printed to 0.01
  ASSERT_TRUE(last.in_place_time_us.has_value());
  EXPECT_NEAR(*last.in_place_time_us, time_us * 1.01, 0.01);
  EXPECT_EQ(series.provenance.tool, "nccl-tests all_reduce_perf");
  EXPECT_EQ(series.provenance.device, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(series.provenance.driver, "NCCL 2.19.3");  // nccl-library=21903
  EXPECT_EQ(series.provenance.host, "node01");
  EXPECT_EQ(series.provenance.date, "");
}

TEST(NcclTestsImporter, ReadsOlderFormatAndTakesTheCollectiveFromTheFileName) {
  // No "root" column, "error" for "#wrong", no "Collective test starting" line, "# Rank N Pid" device lines.
  const CollectiveSeries series = import_nccl_fixture("all_gather_perf_4xv100.log");
  EXPECT_EQ(series.op, "all_gather");
  EXPECT_EQ(series.ranks, 4);
  EXPECT_EQ(series.gpus, (std::vector<int>{0, 1, 2, 3}));
  ASSERT_EQ(series.points.size(), 9u);
  EXPECT_EQ(series.points[8].bytes, 67108864);
  EXPECT_DOUBLE_EQ(series.points[8].time_us, 466.56);
  EXPECT_DOUBLE_EQ(series.points[8].busbw_gBps, 107.88);
  EXPECT_EQ(series.provenance.tool, "nccl-tests all_gather_perf");
  EXPECT_EQ(series.provenance.device, "Tesla V100-SXM2-16GB");
  EXPECT_EQ(series.provenance.driver, "");
}

TEST(NcclTestsImporter, RanksOnTwoHostsHaveNoGpuList) {
  const CollectiveSeries series = import_nccl_fixture("all_reduce_perf_2hosts.log");
  EXPECT_EQ(series.ranks, 8);
  EXPECT_EQ(series.hosts, 2);
  EXPECT_TRUE(series.gpus.empty());
  EXPECT_EQ(series.provenance.host, "2 hosts: node01, node02");
}

TEST(NcclTestsImporter, InfersRanksFromBusFactorWithoutRankLines) {
  std::string text = read_fixture("all_reduce_perf_8xa100.log");
  std::string kept;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("Rank") == std::string::npos) kept += line + "\n";
  }
  const CollectiveSeries series = import_nccl_tests(kept, "x.log", {});
  EXPECT_EQ(series.ranks, 8);  // busbw / algbw = 2(n-1)/n = 1.75
  EXPECT_FALSE(series.hosts.has_value());
}

TEST(NcclTestsImporter, MalformedNumberNamesFileLineAndColumn) {
  EXPECT_EQ(error_of([] { import_nccl_fixture("nccl_bad_time.log"); }),
            "nccl_bad_time.log:25: time: expected a number >= 0, got '12.x0'");
}

TEST(NcclTestsImporter, ShortRowIsAnError) {
  EXPECT_EQ(error_of([] { import_nccl_fixture("nccl_short_row.log"); }),
            "nccl_short_row.log:26: expected at least 13 columns as the header says, got 7");
}

TEST(NcclTestsImporter, ARowWithAColumnTheHeaderDoesNotNameIsAnError) {
  // An extra column would shift the columns read by position (issue 31: it was accepted).
  std::string text = read_fixture("all_reduce_perf_8xa100.log");
  const std::size_t row = text.find("\n        4096 ");
  ASSERT_NE(row, std::string::npos);
  const std::size_t end = text.find('\n', row + 1);
  text.insert(end, "  7");
  const auto line = 2 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(row), '\n');
  EXPECT_EQ(error_of([&] { import_nccl_tests(text, "extra.log", NcclTestsOptions{""}); }),
            "extra.log:" + std::to_string(line) +
                ": expected at most 13 columns as the header has, got 14: a column the header does not name would "
                "shift the others");
}

TEST(NcclTestsImporter, RowsWithoutHeaderAreAnError) {
  EXPECT_EQ(error_of([] { import_nccl_fixture("nccl_no_header.log"); }),
            "nccl_no_header.log:1: data row before the nccl-tests column header ('#  size  count  type ...')");
}

TEST(NcclTestsImporter, NotALogIsAnError) {
  EXPECT_EQ(error_of([] { import_nccl_tests("hello\n", "notes.txt", {}); }),
            "notes.txt: no nccl-tests result table (no '#  size  count  type ... busbw' header line)");
}

TEST(NcclTestsImporter, BusBandwidthOfAnotherCollectiveIsAnError) {
  // An all_reduce table (busbw = 1.75 algbw) read as all_gather (busbw would be 0.875 algbw).
  const std::string message = error_of([] { import_nccl_fixture("all_reduce_perf_8xa100.log", "all_gather"); });
  EXPECT_THAT(message, StartsWith("all_reduce_perf_8xa100.log:"));
  EXPECT_THAT(message, HasSubstr("(all_gather over 8 ranks, nccl-tests doc/PERFORMANCE.md): is this log from another"));
}

TEST(NcclTestsImporter, AnUnnamedCollectiveIsInferredFromItsBusFactor) {
  // 8 ranks, busbw / algbw = 1.75 = 2 x 7/8, a reduction: all_reduce.
  std::string text = read_fixture("all_reduce_perf_8xa100.log");
  const std::string program_line = "# Collective test starting: all_reduce_perf\n";
  text.erase(text.find(program_line), program_line.size());
  EXPECT_EQ(import_nccl_tests(text, "run7.log", {}).op, "all_reduce");
  EXPECT_EQ(import_nccl_tests(text, "run7.log", {"all_reduce"}).op, "all_reduce");
}

TEST(NcclTestsImporter, AllGatherAndAlltoallCannotBeToldApartWithoutAName) {
  // 4 ranks, busbw / algbw = 3/4, no reduction, no root: all_gather or alltoall.
  EXPECT_EQ(error_of([] { import_nccl_tests(read_fixture("all_gather_perf_4xv100.log"), "run8.log", {}); }),
            "run8.log: cannot tell which collective this log measured (no 'Collective test starting' line, no "
            "collective in the file name, and busbw / algbw with its reduction and root columns does not say): "
            "pass --op");
  EXPECT_EQ(import_nccl_tests(read_fixture("all_gather_perf_4xv100.log"), "run8.log", {"all_gather"}).op,
            "all_gather");
}

TEST(NcclTestsImporter, AMalformedSizeIsAnErrorNotADroppedRow) {
  const std::string text = read_fixture("all_reduce_perf_8xa100.log");
  const std::string row = "        1024           256     float     sum      -1    12.01";
  ASSERT_NE(text.find(row), std::string::npos);
  for (const std::string size : {"NaN", "x", "-1", "0x10", "1,5"}) {
    std::string bad = text;
    bad.replace(bad.find(row), 12, std::string(12 - size.size(), ' ') + size);
    EXPECT_THAT(error_of([&] { import_nccl_tests(bad, "bad.log", {}); }),
                HasSubstr(": size: expected a whole number of bytes, got '" + size + "'"))
        << size;
  }
}

TEST(NcclTestsImporter, TimeAndAlgbwThatContradictEachOtherAreRefused) {
  // 1 GiB in 8181.77 us is 131.24 GB/s; the row says 200.00.
  std::string text = read_fixture("all_reduce_perf_8xa100.log");
  const std::size_t at = text.find("  1073741824");
  ASSERT_NE(at, std::string::npos);
  const std::size_t algbw = text.find("131.", at);
  ASSERT_NE(algbw, std::string::npos);
  text.replace(algbw, 6, "200.00");
  EXPECT_THAT(error_of([&] { import_nccl_tests(text, "bad.log", {}); }),
              HasSubstr("algbw 200 GB/s is not size / time = 1073741824 B / "));
}

TEST(NcclTestsImporter, TwoRunsInOneLogAreRefused) {
  const std::string text = read_fixture("all_reduce_perf_8xa100.log");
  EXPECT_THAT(error_of([&] { import_nccl_tests(text + text, "twice.log", {}); }),
              HasSubstr("a second nccl-tests result table: import one run per log"));
  // The same rows twice under one header.
  const std::size_t first = text.find("\n           8 ") + 1;
  const std::size_t end = text.find("# Out of bounds");
  const std::string doubled = text.substr(0, end) + text.substr(first, end - first) + text.substr(end);
  EXPECT_THAT(error_of([&] { import_nccl_tests(doubled, "twice.log", {}); }),
              HasSubstr("size 8 again (first on line "));
}

TEST(NcclTestsImporter, LogsWithLauncherRankPrefixesImport) {
  const std::string text = read_fixture("all_reduce_perf_8xa100.log");
  const CollectiveSeries plain = import_nccl_tests(text, "plain.log", {});
  for (const std::string prefix : {"0: ", "  0: ", "[1,0]<stdout>:"}) {
    std::string tagged;
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = text.find('\n', start);
      tagged += prefix + text.substr(start, end - start + 1);
      start = end + 1;
    }
    CollectiveSeries series = import_nccl_tests(tagged, "plain.log", {});
    EXPECT_EQ(series, plain) << prefix;
  }
}

// A line of 300,000 digits, blanks or one long word before the log is read as any other line, without a crash
// (std::regex, which matched these lines until 2026-12-04, recursed once per character and overflowed the stack).
TEST(NcclTestsImporter, LinesOfHundredsOfThousandsOfCharactersAreReadWithoutACrash) {
  const std::string text = read_fixture("all_reduce_perf_8xa100.log");
  const CollectiveSeries plain = import_nccl_tests(text, "plain.log", {});
  const std::string many(300000, '7');
  for (const std::string& line : {many + ": ", "#  Rank " + many, std::string(300000, ' ') + "x",
                                  "# Collective test starting: " + many, "NCCL version " + many}) {
    // The log's own program and version lines come later and are the ones kept.
    EXPECT_EQ(import_nccl_tests(line + "\n" + text, "plain.log", {}), plain) << line.substr(0, 20);
  }
}

TEST(NcclTestsImporter, ARootWordAfterTheTimesIsNotTheRootColumn) {
  // Found by the fuzzer (tests/fuzz/corpus/nccl_tests/crash-root-column-after-the-times): a header with "root" after
  // the time columns made every row's root read past its last token. Only a "root" before the times is the column.
  std::string text = read_fixture("all_gather_perf_4xv100.log");
  const std::string header = "busbw  error";
  const std::size_t at = text.rfind(header);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + header.size(), "  root");
  const CollectiveSeries series = import_nccl_tests(text, "all_gather_perf.log", {});
  EXPECT_EQ(series.points.size(), 9u);
}

TEST(NcclTestsImporter, AShortRowIsRefusedBeforeItsSizeIsRead) {
  // Found by the fuzzer (tests/fuzz/corpus/nccl_tests/crash-short-row-size-past-its-tokens): a one-number line after
  // a header whose size column is not the first was read past its end. It is a short row, refused as such.
  std::string text = read_fixture("all_reduce_perf_8xa100.log");
  const std::string header = "#       size ";
  const std::size_t at = text.find(header);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, header.size(), "#  x    size ");
  text += "   17\n";
  EXPECT_THAT(error_of([&] { import_nccl_tests(text, "short.log", {}); }),
              HasSubstr("columns as the header says, got 1"));
}

TEST(NcclTestsImporter, ALineOfOtherBlanksIsSkipped) {
  // Found by the fuzzer (tests/fuzz/corpus/nccl_tests/crash-line-of-only-carriage-returns): a line of \f or \v alone
  // has no token, and its first token was read all the same.
  std::string text = read_fixture("all_reduce_perf_8xa100.log");
  text.insert(text.find("# Out of bounds"), "\f\v\f\n");
  EXPECT_EQ(import_nccl_tests(text, "blanks.log", {}).points.size(), 28u);
}

TEST(NcclTestsImporter, ARowMustReachEveryColumnTheHeaderNames) {
  // Found by the fuzzer (tests/fuzz/corpus/nccl_tests/crash-type-column-after-the-times): a header naming its type
  // column after the times let a row shorter than that be read past its end. Such a row is short, and refused.
  std::string text = read_fixture("all_gather_perf_4xv100.log");
  const std::string header = "#       size         count    type   redop";
  const std::size_t at = text.find(header);
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, header.size(), "#       size         count    tipe   redop");
  const std::string last = "busbw  error";
  text.insert(text.rfind(last) + last.size(), "  type");
  EXPECT_THAT(error_of([&] { import_nccl_tests(text, "odd.log", {}); }), HasSubstr("columns as the header says"));
}

}  // namespace
}  // namespace vtsim::calibrate
