#include "tools/sweep/sweep_csv.hpp"

#include <gtest/gtest.h>

#include "models/core/csv.hpp"
#include "models/core/error.hpp"

namespace vtsim::tools {
namespace {

nlohmann::json job(const std::string& name, double samples_per_s, double efficiency, double scheduler_wait_s = -1) {
  nlohmann::json breakdown = {{"compute", 0.25}, {"of_which_interference", 0.01}, {"exposed_communication", 0.05}};
  if (scheduler_wait_s >= 0) breakdown["scheduler_wait"] = scheduler_wait_s;
  return {{"name", name},
          {"workload", "resnet-50"},
          {"device", "GPU"},
          {"ranks", 4},
          {"batch_per_gpu", 32},
          {"step_time_s", {{"mean", 0.3}, {"p50", 0.3}, {"p99", 0.31}}},
          {"samples_per_s", samples_per_s},
          {"single_gpu", {{"samples_per_s", 100.0}}},
          {"scaling_efficiency", efficiency},
          {"breakdown_s", breakdown},
          {"allreduce", {{"bytes_per_step", 1024.0}, {"calls_per_step", 2.0}}},
          {"memory_per_gpu", {{"total_gib", 3.5}, {"device_capacity_gib", 40.0}}}};
}

nlohmann::json record(std::size_t point, const nlohmann::json& jobs) {
  return {{"point", point}, {"id", "00000000000000a" + std::to_string(point)}, {"set", {{"cluster.racks", 2}}},
          {"result", {{"jobs", jobs}}}};
}

TEST(Csv, QuotesOnlyWhatNeedsItAndParsesBack) {
  const std::vector<std::string> fields = {"plain", "a,b", "say \"hi\"", "two\nlines", ""};
  const std::string line = csv_line(fields);
  EXPECT_EQ(line, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\n");
  const auto rows = parse_csv(line + "x,y,z,w,v\n", "t.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0], fields);
  EXPECT_THROW(parse_csv("\"open\n", "t.csv"), InputError);
}

TEST(SweepCsvLayout, OneJobGivesUnprefixedColumns) {
  SweepCsvLayout layout({"cluster.racks"});
  const nlohmann::json ok = record(0, nlohmann::json::array({job("a", 380.0, 0.95)}));
  const nlohmann::json failed = {{"point", 1}, {"id", "00000000000000a1"}, {"set", {{"cluster.racks", 3}}},
                                 {"error", "x.json: jobs[0]: does not fit, 41 GiB > 40"}};
  layout.add(ok);
  layout.add(failed);
  const std::vector<std::string> header = layout.header();
  EXPECT_EQ(header, (std::vector<std::string>{
                        "point", "id", "cluster.racks", "job", "workload", "device", "ranks", "batch_per_gpu",
                        "step_time_mean_s", "step_time_p50_s", "step_time_p99_s", "samples_per_s",
                        "single_gpu_samples_per_s", "scaling_efficiency", "compute_s", "interference_s",
                        "straggler_wait_s", "exposed_communication_s", "allreduce_bytes_per_step", "allreduce_calls_per_step",
                        "memory_total_gib", "memory_capacity_gib", "time_to_train_s",
                        "time_to_train_without_events_s", "parallelism", "model_tflops_per_gpu",
                        "tensor_parallel_s", "pipeline_wait_s", "data_parallel_wait_s", "seed_runs",
                        "seeds_samples_per_s_mean", "seeds_samples_per_s_min", "seeds_samples_per_s_max",
                        "seeds_scaling_efficiency_mean", "seeds_scaling_efficiency_min",
                        "seeds_scaling_efficiency_max", "error"}));
  const std::vector<std::string> row = layout.row(ok);
  EXPECT_EQ(row[2], "2");
  EXPECT_EQ(row[3], "a");
  EXPECT_EQ(row[11], "380.0");
  EXPECT_EQ(row.back(), "");
  const std::vector<std::string> failed_row = layout.row(failed);
  ASSERT_EQ(failed_row.size(), header.size());
  EXPECT_EQ(failed_row[3], "");
  EXPECT_EQ(failed_row.back(), "x.json: jobs[0]: does not fit, 41 GiB > 40");
}

TEST(SweepCsvLayout, SeveralJobsGiveAggregatesAndPrefixedColumns) {
  SweepCsvLayout layout({"cluster.racks"});
  const nlohmann::json two = record(0, nlohmann::json::array({job("t-1", 300.0, 1.0, 0.1), job("t-2", 100.0, 0.5, 0.2)}));
  const nlohmann::json one = record(1, nlohmann::json::array({job("t", 400.0, 1.0, 0.0)}));
  layout.add(two);
  layout.add(one);
  const std::vector<std::string> header = layout.header();
  // point, id, 1 parameter, 3 aggregates, 2 jobs x 35 per-job columns (15 + scheduler_wait_s + 6 + 5 parallelism +
  // 7 across seeds + slowdown_vs_alone), error.
  ASSERT_EQ(header.size(), 2u + 1u + 3u + 2u * 35u + 1u);
  EXPECT_EQ(header[3], "jobs");
  EXPECT_EQ(header[4], "total_samples_per_s");
  EXPECT_EQ(header[5], "jain_fairness");
  EXPECT_EQ(header[6], "job0.job");
  EXPECT_EQ(header[6 + 15], "job0.scheduler_wait_s");
  EXPECT_EQ(header[6 + 22], "job0.parallelism");
  EXPECT_EQ(header[6 + 27], "job0.seed_runs");
  EXPECT_EQ(header[6 + 34], "job0.slowdown_vs_alone");
  EXPECT_EQ(header[6 + 35], "job1.job");
  const std::vector<std::string> row = layout.row(two);
  EXPECT_EQ(row[3], "2");
  EXPECT_EQ(row[4], "400.0");
  EXPECT_EQ(std::stod(row[5]), 0.9);  // Jain's index of the efficiencies 1 and 0.5, as above
  EXPECT_EQ(row[6 + 35], "t-2");
  const std::vector<std::string> short_row = layout.row(one);
  EXPECT_EQ(short_row[6 + 35], "");  // a point with one job leaves job1's columns empty
}

TEST(SweepCsvLayout, UsesTheResultsOwnFairnessWhenItHasOne) {
  SweepCsvLayout layout({});
  nlohmann::json two = record(0, nlohmann::json::array({job("t-1", 300.0, 1.0), job("t-2", 100.0, 0.5)}));
  two["result"]["fairness"] = {{"jain", 0.75}};
  layout.add(two);
  EXPECT_EQ(layout.row(two)[4], "0.75");
}

TEST(SweepCsvLayout, TimeSlicedGpusGiveBusyFractionAndSwitchColumns) {
  // Two time-sliced GPUs, busy 0.9 and 0.7 with 10 and 30 switches of 100 us: mean 0.8, 40 switches, 4 ms.
  SweepCsvLayout layout({});
  nlohmann::json sliced = record(0, nlohmann::json::array({job("t-1", 300.0, 1.0)}));
  sliced["result"]["time_sliced_gpus"] = {{{"gpu", 0}, {"busy_fraction", 0.9}, {"switches", 10}, {"switch_time_s", 1e-3}},
                                          {{"gpu", 1}, {"busy_fraction", 0.7}, {"switches", 30}, {"switch_time_s", 3e-3}}};
  const nlohmann::json bare = record(1, nlohmann::json::array({job("t-1", 300.0, 1.0)}));
  layout.add(sliced);
  layout.add(bare);
  const std::vector<std::string> header = layout.header();
  ASSERT_GE(header.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(header.end() - 4, header.end()),
            (std::vector<std::string>{"gpu_busy_fraction", "context_switches", "context_switch_time_s", "error"}));
  const std::vector<std::string> row = layout.row(sliced);
  EXPECT_NEAR(std::stod(row[row.size() - 4]), 0.8, 1e-12);
  EXPECT_EQ(row[row.size() - 3], "40");
  EXPECT_NEAR(std::stod(row[row.size() - 2]), 4e-3, 1e-15);
  const std::vector<std::string> empty = layout.row(bare);  // a point without time-slicing leaves them empty
  EXPECT_EQ(std::vector<std::string>(empty.end() - 4, empty.end() - 1), (std::vector<std::string>{"", "", ""}));
  // Without any time-sliced GPU the columns are not there.
  SweepCsvLayout plain({});
  plain.add(bare);
  EXPECT_EQ(plain.header().back(), "error");
  EXPECT_NE(plain.header()[plain.header().size() - 2], "context_switch_time_s");
}

}  // namespace
}  // namespace vtsim::tools
