#include "tools/sweep/sweep_spec.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "models/core/error.hpp"
#include "tools/sweep/sweep_shard.hpp"

namespace vtsim::tools {
namespace {

// A small valid scenario, inline, so that the tests depend on no file.
constexpr const char* kScenario = R"({
  "cluster": {"racks": 1, "hosts_per_rack": 2, "host": {"gpus": 4, "gpu_model": "a100-40gb-sxm4"}},
  "jobs": [{"workload": "resnet-50", "batch_per_gpu": 32}]
})";

std::string sweep_text(const std::string& rest) {
  return std::string("{\"scenario\": ") + kScenario + (rest.empty() ? "" : ", " + rest) + "}";
}

Sweep sweep_of(const std::string& rest) { return parse_sweep(sweep_text(rest), "test-sweep.json", "."); }

std::string error_of(const std::string& rest) {
  try {
    sweep_of(rest);
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

// The points as "v1 v2 ..." strings of their values' JSON.
std::vector<std::string> rows_of(const Sweep& sweep) {
  std::vector<std::string> rows;
  for (const SweepPoint& point : sweep.points) {
    std::string row;
    for (const nlohmann::json& value : point.values) row += (row.empty() ? "" : " ") + value.dump();
    rows.push_back(row);
  }
  return rows;
}

TEST(SweepSpec, GridIsCartesianWithTheFirstPathSlowest) {
  const Sweep sweep = sweep_of(R"("axes": [{"grid": {"cluster.racks": [1, 2], "jobs[0].batch_per_gpu": [8, 16, 32]}}])");
  EXPECT_EQ(sweep.swept_columns, (std::vector<std::string>{"cluster.racks", "jobs[0].batch_per_gpu"}));
  // 2 x 3 = 6 points, written out by hand.
  EXPECT_EQ(rows_of(sweep), (std::vector<std::string>{"1 8", "1 16", "1 32", "2 8", "2 16", "2 32"}));
  for (std::size_t i = 0; i < sweep.points.size(); ++i) EXPECT_EQ(sweep.points[i].index, i);
}

TEST(SweepSpec, KeysKeepTheirFileOrderNotAlphabetical) {
  const Sweep sweep = sweep_of(R"("axes": [{"grid": {"jobs[0].batch_per_gpu": [8, 16], "cluster.racks": [1, 2]}}])");
  EXPECT_EQ(sweep.swept_columns, (std::vector<std::string>{"jobs[0].batch_per_gpu", "cluster.racks"}));
  EXPECT_EQ(rows_of(sweep), (std::vector<std::string>{"8 1", "8 2", "16 1", "16 2"}));
}

TEST(SweepSpec, ZipWalksItsListsTogether) {
  const Sweep sweep = sweep_of(
      R"("axes": [{"zip": {"jobs[0].workload": ["resnet-50", "bert-large-squad-seq384", "vgg-16"],
                           "jobs[0].batch_per_gpu": [64, 32, 16]}}])");
  EXPECT_EQ(rows_of(sweep), (std::vector<std::string>{"\"resnet-50\" 64", "\"bert-large-squad-seq384\" 32",
                                                      "\"vgg-16\" 16"}));
}

TEST(SweepSpec, BlocksCombineAsACartesianProductFirstBlockSlowest) {
  const Sweep sweep = sweep_of(R"("axes": [
      {"zip": {"jobs[0].workload": ["resnet-50", "vgg-16"], "jobs[0].batch_per_gpu": [64, 16]}},
      {"grid": {"cluster.racks": [1, 2, 3]}},
      {"points": [{"cluster.host.gpus": 2}, {"cluster.host.gpus": 4}]}])");
  // 2 zip rows x 3 grid rows x 2 points = 12.
  ASSERT_EQ(sweep.points.size(), 12u);
  EXPECT_EQ(rows_of(sweep)[0], "\"resnet-50\" 64 1 2");
  EXPECT_EQ(rows_of(sweep)[1], "\"resnet-50\" 64 1 4");
  EXPECT_EQ(rows_of(sweep)[2], "\"resnet-50\" 64 2 2");
  EXPECT_EQ(rows_of(sweep)[6], "\"vgg-16\" 16 1 2");
  EXPECT_EQ(rows_of(sweep)[11], "\"vgg-16\" 16 3 4");
}

TEST(SweepSpec, ExplicitPointsKeepTheirOrder) {
  const Sweep sweep = sweep_of(R"("axes": [{"points": [{"cluster.racks": 4, "jobs[0].batch_per_gpu": 8},
                                                       {"cluster.racks": 1, "jobs[0].batch_per_gpu": 64}]}])");
  EXPECT_EQ(rows_of(sweep), (std::vector<std::string>{"4 8", "1 64"}));
}

TEST(SweepSpec, NoAxesIsOnePoint) {
  const Sweep sweep = sweep_of("");
  ASSERT_EQ(sweep.points.size(), 1u);
  EXPECT_TRUE(sweep.points[0].values.empty());
}

TEST(SweepSpec, SetAppliesToEveryPointAndAxesOverrideIt) {
  const Sweep sweep =
      sweep_of(R"("set": ["jobs[0].iterations=3", "cluster.racks=5"], "axes": [{"grid": {"cluster.racks": [1, 2]}}])");
  EXPECT_EQ(sweep.base_scenario["jobs"][0]["iterations"], 3);
  EXPECT_EQ(point_scenario_json(sweep, sweep.points[1])["cluster"]["racks"], 2);
  EXPECT_EQ(point_scenario_json(sweep, sweep.points[1])["jobs"][0]["iterations"], 3);
}

TEST(SweepSpec, ZipOfUnequalLengthsIsAnError) {
  EXPECT_EQ(error_of(R"("axes": [{"zip": {"cluster.racks": [1, 2, 3], "jobs[0].batch_per_gpu": [8, 16]}}])"),
            "test-sweep.json: axes[0].zip[\"jobs[0].batch_per_gpu\"]: has 2 values but \"cluster.racks\" has 3; the "
            "lists of a zip are walked together and must have equal lengths");
}

TEST(SweepSpec, MalformedSweepsFailNamingThePath) {
  EXPECT_EQ(error_of(R"("axis": [])"), "test-sweep.json: axis: unknown key; did you mean 'axes'?");
  EXPECT_EQ(error_of(R"("axes": [{"grid": {"cluster.racks": []}}])"),
            "test-sweep.json: axes[0].grid[\"cluster.racks\"]: expected a non-empty array of values");
  EXPECT_EQ(error_of(R"("axes": [{"grid": {"cluster.racks": [1]}, "zip": {"cluster.racks": [1]}}])"),
            "test-sweep.json: axes[0]: expected exactly one of \"grid\", \"zip\" or \"points\"");
  EXPECT_EQ(error_of(R"("axes": [{"grid": {"cluster.racks": [1, 2]}}, {"grid": {"cluster.racks": [3]}}])"),
            "test-sweep.json: axes[1].grid[\"cluster.racks\"]: is swept twice (also at "
            "axes[0].grid[\"cluster.racks\"])");
  EXPECT_EQ(error_of(R"("axes": [{"points": [{"cluster.racks": 1}, {"cluster.racks": 1}]}])"),
            "test-sweep.json: axes: points 0 and 1 are the same point ({\"cluster.racks\":1})");
  EXPECT_EQ(error_of(R"("axes": [{"points": [{"cluster.racks": 1}, {"jobs[0].gpus": 1}]}])"),
            "test-sweep.json: axes[0].points[1]: sets other paths than axes[0].points[0]; every point of a block "
            "must set the same paths");
  EXPECT_EQ(error_of(R"("axes": [{"grid": {"jobs[3].gpus": [1]}}])"),
            "test-sweep.json: axes[0].grid[\"jobs[3].gpus\"]: --set jobs[3].gpus: jobs has 1 element");
  EXPECT_EQ(error_of(R"("set": ["cluster.racks"])"),
            "test-sweep.json: set[0]: --set cluster.racks: expected PATH=VALUE, e.g. jobs[0].batch_per_gpu=32");
}

TEST(SweepSpec, OneGridOfMoreThanAMillionPointsIsRefusedBeforeItIsExpanded) {
  // Three lists of 1,000 values: 10^9 rows in one block, which used to be expanded until memory ran out.
  std::string values;
  for (int i = 1; i <= 1000; ++i) values += (i > 1 ? ", " : "") + std::to_string(i);
  const std::string grid = R"("axes": [{"grid": {"cluster.racks": [)" + values + R"(], "jobs[0].batch_per_gpu": [)" +
                           values + R"(], "jobs[0].iterations": [)" + values + "]}}]";
  EXPECT_EQ(error_of(grid), "test-sweep.json: axes[0].grid: makes more than 1000000 points");
}

// Axis values become scenario fields, CSV cells and plot labels: text with control characters is refused where it
// is written, however deep in the value.
TEST(SweepSpec, AxisTextWithControlCharactersIsRefused) {
  const std::string refused = ": expected text without control characters (newline, tab, escape, ...), got ";
  EXPECT_EQ(error_of(R"("axes": [{"grid": {"jobs[0].name": ["a", "x\nsystem \"touch PWNED\"\n#"]}}])"),
            "test-sweep.json: axes[0].grid[\"jobs[0].name\"][1]" + refused + "'x\\nsystem \\\"touch PWNED\\\"\\n#'");
  EXPECT_EQ(error_of(R"("axes": [{"zip": {"jobs[0]": [{"name": "\u001b[2J", "workload": "resnet-50"}]}}])"),
            "test-sweep.json: axes[0].zip[\"jobs[0]\"][0][\"name\"]" + refused + "'\\u001b[2J'");
  EXPECT_EQ(error_of(R"("axes": [{"points": [{"jobs[0].name": "a"}, {"jobs[0].name": "b\u0007"}]}])"),
            "test-sweep.json: axes[0].points[1][\"jobs[0].name\"]" + refused + "'b\\u0007'");
  EXPECT_EQ(error_of(R"("axes": [{"grid": {"jobs[0].name": ["a\u007f"]}}])"),
            "test-sweep.json: axes[0].grid[\"jobs[0].name\"][0]" + refused + "'a\\x7f'");
  // Printable text, quotes and backslashes included, is a value like any other.
  EXPECT_EQ(sweep_of(R"("axes": [{"grid": {"jobs[0].name": ["it's \"q\" \\ `x`"]}}])").points.size(), 1u);
}

TEST(SweepSpec, DerivedFieldsMultiplyAndAddResolvedValues) {
  const Sweep sweep = sweep_of(R"("axes": [{"grid": {"cluster.racks": [1, 3], "cluster.host.gpus": [2, 8]}}],
      "derived": {"jobs[0].gpus": "cluster.racks * cluster.hosts_per_rack * cluster.host.gpus",
                  "jobs[0].iterations": "2 * cluster.racks + 1"})");
  EXPECT_EQ(sweep.derived_columns, (std::vector<std::string>{"jobs[0].gpus", "jobs[0].iterations"}));
  // racks x hosts_per_rack (2, from the scenario) x gpus; 2 x racks + 1.
  EXPECT_EQ(rows_of(sweep), (std::vector<std::string>{"1 2 4 3", "1 8 16 3", "3 2 12 7", "3 8 48 7"}));
  EXPECT_EQ(point_scenario_json(sweep, sweep.points[3])["jobs"][0]["gpus"], 48);
}

TEST(SweepSpec, DerivedFromANumberIsANumber) {
  const Sweep sweep = sweep_of(R"("axes": [{"grid": {"cluster.fabric.oversubscription": [1.5]}}],
      "derived": {"jobs[0].batch_per_gpu": "cluster.fabric.oversubscription * 4"})");
  EXPECT_EQ(sweep.points[0].values[1], nlohmann::json(6.0));
  EXPECT_TRUE(sweep.points[0].values[1].is_number_float());
}

TEST(SweepSpec, DerivedErrorsNameTheFieldAndThePoint) {
  EXPECT_EQ(error_of(R"("derived": {"jobs[0].gpus": "cluster.fabric.spines * 2"})"),
            "test-sweep.json: derived[\"jobs[0].gpus\"]: point 0: cluster.fabric.spines is not in the scenario; set "
            "it in the sweep's \"set\"");
  EXPECT_EQ(error_of(R"("derived": {"jobs[0].gpus": "cluster.racks - 1"})"),
            "test-sweep.json: derived[\"jobs[0].gpus\"]: expected * or + at character 15 of \"cluster.racks - 1\"; "
            "allowed: numbers and paths joined by * and +");
  EXPECT_EQ(error_of(R"("derived": {"jobs[0].gpus": "cluster.racks *"})"),
            "test-sweep.json: derived[\"jobs[0].gpus\"]: expression ends with an operator at character 16 of "
            "\"cluster.racks *\"; allowed: numbers and paths joined by * and +");
  EXPECT_EQ(error_of(R"("derived": {"jobs[0].gpus": "jobs[0].batch_per_gpu", "jobs[0].batch_per_gpu": "4"})"),
            "test-sweep.json: derived[\"jobs[0].gpus\"]: reads the derived path jobs[0].batch_per_gpu; a derived "
            "path may read only the scenario and swept paths");
  EXPECT_EQ(error_of(R"("axes": [{"grid": {"cluster.racks": [1]}}], "derived": {"cluster.racks": "2"})"),
            "test-sweep.json: derived[\"cluster.racks\"]: is also swept in \"axes\"; a path is either swept or derived");
  EXPECT_EQ(error_of(R"("derived": {"jobs[0].gpus": "jobs[0].workload"})"),
            "test-sweep.json: derived[\"jobs[0].gpus\"]: point 0: jobs[0].workload is not a number (got 'resnet-50')");
}

TEST(SweepSpec, PointIdsDependOnlyOnTheSweptValues) {
  const Sweep one = sweep_of(R"("axes": [{"grid": {"cluster.racks": [1, 2], "jobs[0].batch_per_gpu": [8]}}])");
  const Sweep other = sweep_of(R"("axes": [{"grid": {"jobs[0].batch_per_gpu": [8], "cluster.racks": [2, 1]}}])");
  // The same values in another column order and point order: the same ids.
  EXPECT_EQ(one.points[0].id, other.points[1].id);
  EXPECT_EQ(one.points[1].id, other.points[0].id);
  EXPECT_NE(one.points[0].id, one.points[1].id);
  EXPECT_EQ(one.points[0].id.size(), 16u);
  // ...but not the same sweep: the point order differs.
  EXPECT_NE(one.fingerprint, other.fingerprint);
}

TEST(SweepSpec, FingerprintChangesWithTheScenarioAndExtraSet) {
  const std::string text = sweep_text(R"("axes": [{"grid": {"cluster.racks": [1, 2]}}])");
  const Sweep base = parse_sweep(text, "a.json", ".");
  EXPECT_EQ(parse_sweep(text, "elsewhere/b.json", ".").fingerprint, base.fingerprint);  // not the file's name
  const std::vector<std::string> extra = {"jobs[0].iterations=2"};
  EXPECT_NE(parse_sweep(text, "a.json", ".", extra).fingerprint, base.fingerprint);
  EXPECT_EQ(parse_sweep(text, "a.json", ".", extra).points[0].id, base.points[0].id);
}

TEST(SweepSpec, FingerprintCoversTheContentsOfTheCalibrationProfilesThePointsRead) {
  // Resuming a sweep after its profile changed would mix rows from the old and the new measurements (issue 11,
  // item 16): the profile's bytes are part of the fingerprint, for the base scenario's profile and a swept one.
  const std::string dir = ::testing::TempDir();
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
  };
  write("fp-a.json", "{\"format\": \"vtsim-calibration-profile\", \"version\": 1}\n");
  write("fp-b.json", "{\"format\": \"vtsim-calibration-profile\", \"version\": 1}\n");
  const std::string base = sweep_text(R"("set": ["calibration_profile=fp-a.json"])");
  const std::string swept = sweep_text(R"("axes": [{"grid": {"calibration_profile": ["fp-a.json", "fp-b.json"]}}])");
  const std::string base_before = parse_sweep(base, "s.json", dir).fingerprint;
  const std::string swept_before = parse_sweep(swept, "s.json", dir).fingerprint;
  EXPECT_EQ(parse_sweep(base, "s.json", dir).fingerprint, base_before);  // unchanged file, same sweep
  write("fp-b.json", "{\"format\": \"vtsim-calibration-profile\", \"version\": 1, \"notes\": 2}\n");
  EXPECT_EQ(parse_sweep(base, "s.json", dir).fingerprint, base_before);  // fp-b is not read by `base`
  EXPECT_NE(parse_sweep(swept, "s.json", dir).fingerprint, swept_before);
  write("fp-a.json", "{\"format\": \"vtsim-calibration-profile\", \"version\": 1, \"notes\": 1}\n");
  EXPECT_NE(parse_sweep(base, "s.json", dir).fingerprint, base_before);
  std::remove((dir + "/fp-a.json").c_str());
  std::remove((dir + "/fp-b.json").c_str());
}

TEST(SweepSpec, FingerprintCoversTheContentsOfTheWorkloadTracesThePointsRead) {
  // issue 31: a resumed sweep mixed results from a trace that had changed between the runs.
  const std::string dir = ::testing::TempDir() + "/fp-traces-" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + "/" + name) << text;
  };
  write("tr-a.json", "{\"traceEvents\": []}\n");
  write("tr-b.json", "{\"traceEvents\": []}\n");
  const std::string trace_a = R"(jobs[0].workload={\"trace\": \"tr-a.json\", \"measured_on\": \"a100-80gb-sxm4\"})";
  const std::string base = sweep_text(R"("set": [")" + trace_a + R"("])");
  const std::string swept = sweep_text(
      R"("axes": [{"grid": {"jobs[0].workload": [{"trace": "tr-a.json", "measured_on": "a100-80gb-sxm4"},)"
      R"( {"trace": "tr-b.json", "measured_on": "a100-80gb-sxm4"}]}}])");
  const std::string base_before = parse_sweep(base, "s.json", dir).fingerprint;
  const std::string swept_before = parse_sweep(swept, "s.json", dir).fingerprint;
  write("tr-b.json", "{\"traceEvents\": [], \"x\": 1}\n");
  EXPECT_EQ(parse_sweep(base, "s.json", dir).fingerprint, base_before);  // tr-b is not read by `base`
  EXPECT_NE(parse_sweep(swept, "s.json", dir).fingerprint, swept_before);
  write("tr-a.json", "{\"traceEvents\": [], \"x\": 2}\n");
  EXPECT_NE(parse_sweep(base, "s.json", dir).fingerprint, base_before);
  std::filesystem::remove_all(dir);
}

TEST(SweepSpec, ScenarioFileResolvesAgainstTheSweepFolder) {
  const Sweep sweep =
      parse_sweep(R"({"scenario": "../a100-nvlink-bert.json"})", "nvlink.json", VTSIM_SOURCE_DIR "/scenarios/sweeps");
  EXPECT_EQ(sweep.scenario_label, "../a100-nvlink-bert.json");
  EXPECT_EQ(sweep.base_scenario["name"], "a100-nvlink-bert");
}

TEST(SweepShard, ShardsPartitionThePoints) {
  const Sweep sweep = sweep_of(R"("axes": [{"grid": {"cluster.racks": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]}}])");
  for (std::size_t count = 1; count <= 5; ++count) {
    std::multiset<std::size_t> seen;
    for (std::size_t index = 0; index < count; ++index) {
      const Shard shard = parse_shard(std::to_string(index) + "/" + std::to_string(count));
      for (const SweepPoint& point : sweep.points) {
        if (shard.contains(point.index)) seen.insert(point.index);
      }
    }
    ASSERT_EQ(seen.size(), 13u) << count << " shards";  // no point twice...
    for (std::size_t index = 0; index < 13; ++index) EXPECT_EQ(seen.count(index), 1u);  // ...and none missing
  }
  // 13 points in 4 shards: 0, 4, 8, 12 | 1, 5, 9 | 2, 6, 10 | 3, 7, 11.
  const Shard first = parse_shard("0/4");
  EXPECT_TRUE(first.contains(12));
  EXPECT_FALSE(first.contains(13 - 2));
}

TEST(SweepShard, MalformedShardsAreErrors) {
  for (const std::string text : {"2/2", "1", "a/2", "0/0", "-1/2", "1/2/3", ""}) {
    EXPECT_THROW(parse_shard(text), InputError) << text;
  }
  EXPECT_EQ(parse_shard("3/8").to_string(), "3/8");
}

}  // namespace
}  // namespace vtsim::tools
