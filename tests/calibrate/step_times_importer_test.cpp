// Step-time logs: DLLogger (DeepLearningExamples), JSON lines and CSV, against spreads worked out by hand from the
// fixtures' numbers. The fixtures are written in each format as documented; their numbers are chosen for the test.

#include "calibrate/step_times_importer.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace vtsim::calibrate {
namespace {

using testing::error_of;
using testing::read_fixture;

/// Sample standard deviation / mean, written out for the few values of each case.
double spread(const std::vector<double>& values) {
  double mean = 0;
  for (double v : values) mean += v / static_cast<double>(values.size());
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1)) / mean;
}

TEST(StepTimesImporter, ReadsDlloggerThroughputAsSecondsPerSample) {
  // Six per-iteration records (train.total_ips 800, 1000 x 4, 1200); the PARAMETER record, the plain "DLL" line and
  // the summary (step []) are skipped.
  const StepTimeSeries series = import_step_times(read_fixture("dllogger_resnet50_1gpu.log"), "dl.log", 0);
  EXPECT_EQ(series.log_format, "dllogger");
  EXPECT_EQ(series.field, "train.total_ips");
  ASSERT_EQ(series.times_s.size(), 6u);
  EXPECT_DOUBLE_EQ(series.times_s.front(), 1.0 / 800);
  // Mean 6.0833e-3 / 6 = 1.01389e-3 s per sample; deviations 0.2361, -0.0139 x 4, -0.1806 (1e-3 s): sd 0.13351e-3.
  EXPECT_NEAR(spread(series.times_s), 0.13351 / 1.01389, 1e-4);
  const StepTimeSeries skipped = import_step_times(read_fixture("dllogger_resnet50_1gpu.log"), "dl.log", 1);
  EXPECT_EQ(skipped.times_s.size(), 5u);
  EXPECT_DOUBLE_EQ(skipped.times_s.front(), 1.0 / 1000);
}

TEST(StepTimesImporter, ReadsCsvWithAHeaderAndJsonLines) {
  const StepTimeSeries csv = import_step_times(read_fixture("step_times.csv"), "t.csv", 0);
  EXPECT_EQ(csv.log_format, "csv");
  EXPECT_EQ(csv.field, "step_time");
  EXPECT_EQ(csv.times_s, (std::vector<double>{0.100, 0.110, 0.090, 0.100}));
  // Mean 0.1, deviations 0, 0.01, -0.01, 0: sd sqrt(2e-4 / 3) = 0.008165.
  EXPECT_NEAR(spread(csv.times_s), 0.08165, 1e-5);
  const StepTimeSeries lines = import_step_times(read_fixture("step_times.jsonl"), "t.jsonl", 0);
  EXPECT_EQ(lines.log_format, "json-lines");
  EXPECT_EQ(lines.times_s, (std::vector<double>{0.5, 0.6, 0.4}));  // the note line has no step time
  const StepTimeSeries column = import_step_times("0.2\n0.3\n", "c.csv", 0);
  EXPECT_EQ(column.times_s, (std::vector<double>{0.2, 0.3}));
}

TEST(StepTimesImporter, BadLogsGiveOneLineNamingFileAndLine) {
  EXPECT_EQ(error_of([] { import_step_times(read_fixture("step_times_bad.csv"), "bad.csv", 0); }),
            "bad.csv:3: step_time: expected a number >= 0, got 'fast'");
  EXPECT_EQ(error_of([] { import_step_times("a,b\n1,2\n", "x.csv", 0); }),
            "x.csv:1: no time or throughput column (e.g. step_time, train.total_ips)");
  EXPECT_EQ(error_of([] { import_step_times("{\"step_time\": -1}\n{\"step_time\": 1}\n", "n.jsonl", 0); }),
            "n.jsonl:1: 'step_time' must be a positive number");
  EXPECT_EQ(error_of([] { import_step_times("0.2\n0.3\n", "c.csv", 1); }),
            "c.csv: fewer than two step times after skipping the first 1");
  EXPECT_EQ(error_of([] { import_step_times("{\"loss\": 1}\n", "l.jsonl", 0); }),
            "l.jsonl: no step times found (fields looked for: step_time, train.total_ips, ...)");
}

}  // namespace
}  // namespace vtsim::calibrate
