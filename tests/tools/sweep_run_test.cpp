// End-to-end sweeps through the vtsim executable: an uninterrupted run, a run killed with SIGKILL then resumed, and
// shards merged, must give the same bytes.

#include <signal.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "models/core/csv.hpp"
#include "sweep_test_support.hpp"

namespace vtsim::tools {
namespace {

using testing::count_lines;
using testing::TempDir;
using testing::read_text;
using testing::run_vtsim;
using testing::start_vtsim;
using testing::wait_exit;
using testing::write_text;

// 12 points of T4 hosts, each some tens of milliseconds: long enough to kill the sweep halfway.
std::string write_sweep(const std::string& dir) {
  const std::string file = dir + "/sweep.json";
  write_text(file, R"({
    "scenario": ")" VTSIM_SOURCE_DIR R"(/scenarios/t4-pvrdma-horovod.json",
    "set": ["jobs[0].iterations=30", "jobs[0].warmup_iterations=1"],
    "axes": [{"grid": {"cluster.transport": ["pvrdma", "roce_v2", "tcp"], "cluster.hosts_per_rack": [1, 2, 3, 4]}}]
  })");
  return file;
}

// The point column of a results.csv.
std::vector<std::string> points_of(const std::string& csv_file) {
  std::vector<std::string> points;
  const auto rows = parse_csv(read_text(csv_file), csv_file);
  for (std::size_t r = 1; r < rows.size(); ++r) points.push_back(rows[r][0]);
  return points;
}

const std::vector<std::string> kAllPoints = {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"};

TEST(SweepResume, KillNineThenResumeRunsEveryPointOnceWithTheSameNumbers) {
  const TempDir temp("resume");
  const std::string& dir = temp.path();
  const std::string sweep = write_sweep(dir);
  std::string output;
  ASSERT_EQ(run_vtsim({"sweep", sweep, "--out", dir + "/whole", "--jobs", "2"}, output, dir + "/whole.log"), 0)
      << output;
  EXPECT_EQ(points_of(dir + "/whole/results.csv"), kAllPoints);

  // Kill the sweep with SIGKILL as soon as two points are recorded.
  const std::string records = dir + "/killed/records.jsonl";
  const pid_t pid = start_vtsim({"sweep", sweep, "--out", dir + "/killed", "--jobs", "2"}, dir + "/killed.log");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (count_lines(records) < 2 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(pid, SIGKILL);
  ASSERT_EQ(wait_exit(pid), 128 + SIGKILL) << read_text(dir + "/killed.log");
  ASSERT_GE(count_lines(records), 2u);
  // Outputs come at the end only: a sweep killed before its last point has none.
  if (count_lines(records) < 12) {
    EXPECT_EQ(read_text(dir + "/killed/results.csv"), "");
  }
  // However fast the machine (the kill may come after the last point), continue as if it had come after at most 6
  // records, in the middle of writing the next: keep the first ones whole and tear the line after them.
  const std::string whole_records = read_text(records);
  std::size_t recorded = 0;
  std::size_t cut = 0;
  while (recorded < 6 && cut < whole_records.size()) {
    const std::size_t end = whole_records.find('\n', cut);
    if (end == std::string::npos) break;
    cut = end + 1;
    ++recorded;
  }
  write_text(records, whole_records.substr(0, cut) + "{\"point\":11,\"id\":\"00");

  ASSERT_EQ(run_vtsim({"sweep", sweep, "--out", dir + "/killed", "--jobs", "2"}, output, dir + "/resumed.log"), 0)
      << output;
  EXPECT_NE(output.find("(" + std::to_string(12 - recorded) + " run now, " + std::to_string(recorded) +
                        " recorded before)"),
            std::string::npos)
      << output;
  EXPECT_EQ(count_lines(records), 12u);  // each point recorded once, the torn line gone
  EXPECT_EQ(points_of(dir + "/killed/results.csv"), kAllPoints);
  EXPECT_EQ(read_text(dir + "/killed/results.csv"), read_text(dir + "/whole/results.csv"));
  EXPECT_EQ(read_text(dir + "/killed/results.jsonl"), read_text(dir + "/whole/results.jsonl"));

  // Once complete, a rerun runs nothing and rewrites the same outputs.
  ASSERT_EQ(run_vtsim({"sweep", sweep, "--out", dir + "/killed"}, output, dir + "/rerun.log"), 0) << output;
  EXPECT_NE(output.find("(0 run now, 12 recorded before)"), std::string::npos) << output;
  EXPECT_EQ(read_text(dir + "/killed/results.csv"), read_text(dir + "/whole/results.csv"));
}

TEST(SweepShards, MergedShardsEqualTheWholeAndMissingShardsAreReported) {
  const TempDir temp("shards");
  const std::string& dir = temp.path();
  const std::string sweep = write_sweep(dir);
  std::string output;
  ASSERT_EQ(run_vtsim({"sweep", sweep, "--out", dir + "/whole", "--set", "jobs[0].iterations=2"}, output,
                      dir + "/whole.log"),
            0)
      << output;
  for (const std::string shard : {"0", "1", "2"}) {
    ASSERT_EQ(run_vtsim({"sweep", sweep, "--out", dir + "/shard-" + shard, "--shard", shard + "/3", "--set",
                         "jobs[0].iterations=2"},
                        output, dir + "/shard.log"),
              0)
        << output;
  }
  // Shard 1 of 3 holds points 1, 4, 7, 10.
  EXPECT_EQ(points_of(dir + "/shard-1/results.csv"), (std::vector<std::string>{"1", "4", "7", "10"}));

  ASSERT_EQ(run_vtsim({"merge", dir + "/shard-0", dir + "/shard-1", dir + "/shard-2", "--out", dir + "/merged"}, output,
                      dir + "/merge.log"),
            0)
      << output;
  EXPECT_EQ(read_text(dir + "/merged/results.csv"), read_text(dir + "/whole/results.csv"));
  EXPECT_EQ(read_text(dir + "/merged/results.jsonl"), read_text(dir + "/whole/results.jsonl"));

  // Without shard 2: points 2, 5, 8, 11 are missing, and exit status 1; the same folder twice: duplicates.
  EXPECT_EQ(run_vtsim({"merge", dir + "/shard-0", dir + "/shard-1", dir + "/shard-1", "--out", dir + "/partial"},
                      output, dir + "/partial.log"),
            1);
  EXPECT_NE(output.find("4 points in more than one folder (kept the first): 1, 4, 7, 10"), std::string::npos) << output;
  EXPECT_NE(output.find("vtsim: merge: 4 of 12 points missing: 2, 5, 8, 11"), std::string::npos) << output;
  // The partial merge is a whole-sweep folder: resuming the sweep into it runs only the missing points.
  ASSERT_EQ(run_vtsim({"sweep", sweep, "--out", dir + "/partial", "--set", "jobs[0].iterations=2"}, output,
                      dir + "/fill.log"),
            0)
      << output;
  EXPECT_NE(output.find("(4 run now, 8 recorded before)"), std::string::npos) << output;
  EXPECT_EQ(read_text(dir + "/partial/results.csv"), read_text(dir + "/whole/results.csv"));
  // Merging the two shards again into it keeps the points it filled in: nothing is missing.
  ASSERT_EQ(run_vtsim({"merge", dir + "/shard-0", dir + "/shard-1", "--out", dir + "/partial"}, output,
                      dir + "/remerge.log"),
            0)
      << output;
  EXPECT_EQ(read_text(dir + "/partial/results.csv"), read_text(dir + "/whole/results.csv"));

  // Another sweep (other --set) is refused in a folder and in a merge.
  EXPECT_EQ(run_vtsim({"sweep", sweep, "--out", dir + "/whole"}, output, dir + "/other.log"), 1);
  EXPECT_NE(output.find("holds the results of another sweep"), std::string::npos) << output;
  ASSERT_EQ(run_vtsim({"sweep", sweep, "--out", dir + "/full-iterations", "--shard", "0/3"}, output, dir + "/o.log"), 0);
  EXPECT_EQ(run_vtsim({"merge", dir + "/shard-1", dir + "/full-iterations", "--out", dir + "/mixed"}, output,
                      dir + "/mixed.log"),
            1);
  EXPECT_NE(output.find("holds another sweep"), std::string::npos) << output;
}

}  // namespace
}  // namespace vtsim::tools
