// The host's cost per launch from calibrate/gpu_harness/host_dispatch.py's JSON: on hand-written records whose
// figures are worked out below, and on the H200 host measured on 2026-12-04 against its sums done by hand.

#include "calibrate/host_dispatch_importer.hpp"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace vtsim::calibrate {
namespace {

using testing::error_of;

// Two eager configurations and one replayed graph. The second configuration's forward phase kept the GPU busy 60% of
// its wall time (device-bound, left out); its backward and the first's two phases are the host's.
constexpr const char* kLog = R"({
 "machine": {"cpu_model": "Test CPU", "torch": "2.11.0", "gpu": "NVIDIA H200"},
 "ops": [{"op": "add", "host_us_per_call": 9.0}],
 "steps": [
  {"config": "a", "mode": "eager", "phases": {
    "forward": {"wall_us": 3000, "launches": 100, "gpu_busy_us": 300, "launch_call_us": [9.0, 5.0, 7.0]},
    "backward": {"wall_us": 5000, "launches": 200, "gpu_busy_us": 500, "launch_call_us": [8.0]},
    "optimizer": {"wall_us": 2000, "launches": 10, "gpu_busy_us": 400, "launch_call_us": [20.0, 6.0]}}},
  {"config": "b", "mode": "eager", "phases": {
    "forward": {"wall_us": 1000, "launches": 10, "gpu_busy_us": 600, "launch_call_us": [4.0]},
    "backward": {"wall_us": 4000, "launches": 100, "gpu_busy_us": 2000}}},
  {"config": "a", "mode": "cuda graph", "phases": {"replay": {"wall_us": 700, "launches": 400, "gpu_busy_us": 500,
   "launch_call_us": [1.0]}}, "gap_us_per_node": 0.5},
  {"config": "a", "mode": "torch.compile default", "phases": {
    "forward": {"wall_us": 100000, "launches": 1, "gpu_busy_us": 0}}}
 ]})";

TEST(HostDispatchImporter, PoolsTheHostBoundEagerPhasesAndTheGraphsGaps) {
  const HostSection host = import_host_dispatch({{kLog, "h.json"}});
  // (3,000 + 5,000 + 4,000) us over (100 + 200 + 100) launches; the optimizer, the device-bound forward and
  // torch.compile's record are not counted.
  EXPECT_DOUBLE_EQ(host.eager_us_per_launch, 12000.0 / 400);
  EXPECT_EQ(host.eager_launches, 400);
  ASSERT_TRUE(host.graph_us_per_node.has_value());
  EXPECT_DOUBLE_EQ(*host.graph_us_per_node, 0.5);
  EXPECT_EQ(host.cpu_model, "Test CPU");
  EXPECT_EQ(host.framework, Framework::pytorch);
  EXPECT_EQ(host.framework_version, "2.11.0");
  EXPECT_EQ(host.provenance.device, "NVIDIA H200");
  // The eager records' launch calls, every phase's (device-bound ones too: a call's time is the host's): 9, 5, 7,
  // 8, 20, 6 and 4 us, sorted 4 5 6 7 8 9 20, median 7; the replayed graph's is not an eager launch.
  ASSERT_TRUE(host.launch_call_us.has_value());
  EXPECT_DOUBLE_EQ(*host.launch_call_us, 7.0);
  EXPECT_EQ(host.launch_calls, 7);
}

std::string read_source_file(const std::string& path) {
  std::ifstream in(std::string(VTSIM_SOURCE_DIR) + "/" + path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(HostDispatchImporter, ReadsTheMeasuredH200Host) {
  const std::string dir = "data/measured/h200-sxm-2026-12-04-host/";
  const HostSection host = import_host_dispatch({{read_source_file(dir + "host-dispatch.json"), "a.json"},
                                                 {read_source_file(dir + "host-dispatch-resnet50.json"), "b.json"}});
  // Twelve eager phases, each with the GPU busy under 30% of its wall time, wall (us) / launches:
  //   GPT 12 x 256 fp32 4,084.6 / 138, 8,444.3 / 351; bf16 autocast 10,949.7 / 261, 15,215.2 / 461;
  //   GPT 24 x 1,024 fp32 13,268.3 / 271, 23,047.4 / 687; bf16 autocast 18,619.1 / 537, 34,686.7 / 953;
  //   ResNet-50 fp32 6,673.3 / 294, 8,571.5 / 335; bf16 autocast 9,441.5 / 397, 15,437.8 / 349:
  //   168,439.4 us over 5,034 launches = 33.46 us.
  EXPECT_EQ(host.eager_launches, 5034);
  EXPECT_NEAR(host.eager_us_per_launch, 168439.4 / 5034, 0.001);
  // Replayed graphs: (0.7497 + 0.3604 + 0.5568) / 3 us per node.
  ASSERT_TRUE(host.graph_us_per_node.has_value());
  EXPECT_NEAR(*host.graph_us_per_node, (0.7497 + 0.3604 + 0.5568) / 3, 1e-4);
  // Logs of 2026-12-04 kept no launch calls (the harness records them since 2026-12-07): none imported.
  EXPECT_FALSE(host.launch_call_us.has_value());
}

TEST(HostDispatchImporter, RefusesLogsThatMeasureNoHost) {
  const std::string device_bound = R"({"machine": {}, "steps": [{"mode": "eager", "phases": {
    "forward": {"wall_us": 1000, "launches": 10, "gpu_busy_us": 900}}}]})";
  EXPECT_NE(error_of([&] { import_host_dispatch({{device_bound, "d.json"}}); })
                .find("d.json: no eager forward or backward phase"),
            std::string::npos);
  EXPECT_NE(error_of([&] { import_host_dispatch({{"{\"steps\": []}", "m.json"}}); }).find("m.json: "),
            std::string::npos);
  EXPECT_NE(error_of([&] { import_host_dispatch({{"not json", "x.json"}}); }).find("x.json"), std::string::npos);
  const std::string other_cpu = R"({"machine": {"cpu_model": "Other CPU"}, "steps": []})";
  EXPECT_NE(error_of([&] { import_host_dispatch({{kLog, "h.json"}, {other_cpu, "o.json"}}); })
                .find("o.json: machine: this log's cpu_model is 'Other CPU'"),
            std::string::npos);
  const std::string bad_wall = R"({"machine": {}, "steps": [{"mode": "eager", "phases": {
    "forward": {"wall_us": -1, "launches": 10, "gpu_busy_us": 0}}}]})";
  EXPECT_NE(error_of([&] { import_host_dispatch({{bad_wall, "w.json"}}); }).find("w.json: steps[0].phases.forward"),
            std::string::npos);
}

}  // namespace
}  // namespace vtsim::calibrate
