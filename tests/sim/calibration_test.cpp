// A calibration profile's measurements replace the catalog defaults, and the run says where each value came from.

#include <cstdio>

#include <gtest/gtest.h>

#include "models/calibration_profile.hpp"
#include "models/collective_model.hpp"
#include "models/error.hpp"
#include "models/link_defaults.hpp"
#include "sim/simulation.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

using testing::scenario_of;
using testing::simulated_allreduce_s;

using testing::eight_hosts;

TEST(Calibration, MeasuredNicFiguresReplaceTheCatalogsExactly) {
  Scenario uncalibrated = eight_hosts();
  Scenario calibrated = uncalibrated;
  // A profile that measured RoCE at 5 GB/s and 4 us per message (what calibrated_parameters() gives from perftest).
  calibrated.calibration.nic["roce"] = CalibratedLink{CalibratedValue{5e9, "test profile: ib_write_bw"},
                                                      CalibratedValue{4e-6, "test profile: ib_write_lat"}};
  calibrated.calibration_profile = "test-profile.json";
  const Topology before(uncalibrated);
  const Topology after(calibrated);
  const std::vector<Hop> route = after.route(0, 1);
  // The NIC links now carry the measured rate; every other link is as before.
  EXPECT_DOUBLE_EQ(after.bottleneck_Bps(route), 5e9);
  // A host-to-host message pays the measured 4 us instead of the catalog's NIC + transport latency, nothing else.
  const double catalog_message_s = scenario_links(uncalibrated).nic.latency_s;
  EXPECT_NEAR(after.latency_s(route) - before.latency_s(before.route(0, 1)), 4e-6 - catalog_message_s, 1e-15);
  // And the ring follows the closed form with the measured numbers.
  const double bytes = 64.0 * 1024 * 1024;
  const double expected = testing::nccl_ring_closed_form_s(calibrated, bytes, 5e9, after.latency_s(route), NcclHop::net);
  EXPECT_NEAR(simulated_allreduce_s(calibrated, bytes), expected, 1e-3 * expected);
  // The link is no longer reported as an uncalibrated default, and the result names the measurement.
  const nlohmann::json result =
      vtsim::tools::run_isolated([&] { return to_json(simulate(calibrated)); });
  EXPECT_EQ(result["calibration"]["profile"], "test-profile.json");
  bool named = false;
  for (const nlohmann::json& value : result["calibration"]["values"]) {
    named = named || value.get<std::string>().find("ib_write_bw") != std::string::npos;
  }
  EXPECT_TRUE(named) << result["calibration"].dump();
}

TEST(Calibration, MeasuredMemoryBandwidthSetsTheMemoryBoundKernelsAndIsNamed) {
  Scenario scenario = scenario_of({{"cluster", {{"host", {{"gpus", 1}}}}},
                                   {"jobs", {{{"workload", "bert-large-squad-seq384"}, {"batch_per_gpu", 32},
                                              {"iterations", 3}}}}});
  scenario.calibration.memory_bandwidth_Bps = CalibratedValue{1.40e12, "test profile: device copy"};
  scenario.calibration_profile = "test-profile.json";
  const nlohmann::json result = vtsim::tools::run_isolated([&] { return to_json(simulate(scenario)); });
  const nlohmann::json& job = result["jobs"][0];
  EXPECT_DOUBLE_EQ(job["compute_model"]["memory_efficiency"].get<double>(), 1.40e12 / 1555e9);  // A100 40GB: 1,555 GB/s
  bool named = false;
  for (const nlohmann::json& value : result["calibration"]["values"]) {
    named = named || value.get<std::string>().find("test profile: device copy") != std::string::npos;
  }
  EXPECT_TRUE(named) << result["calibration"].dump();
  for (const nlohmann::json& note : result["uncalibrated_defaults"]) {
    EXPECT_EQ(note.get<std::string>().find("memory efficiency"), std::string::npos) << note;
  }
}

TEST(Calibration, MeasuredLaunchCostMovesADeviceBoundStepByKernelsTimesTheDifference) {
  // One GPU, a host that issues kernels at no cost (CUDA Graphs): the device runs kernel after kernel, so each kernel's
  // fixed cost adds to the step once. A profile measuring 7 us instead of the default 3 us adds 4 us per kernel.
  const nlohmann::json json = {{"cluster", {{"host", {{"gpus", 1}}}}},
                               {"jobs", {{{"workload", "bert-large-squad-seq384"}, {"batch_per_gpu", 8},
                                          {"host_dispatch_us", 0}, {"iterations", 3}}}}};
  const Scenario uncalibrated = scenario_of(json);
  Scenario calibrated = uncalibrated;
  calibrated.calibration.kernel_launch_s = CalibratedValue{7e-6, "test profile: launch"};
  calibrated.calibration_profile = "test-profile.json";
  const nlohmann::json before = vtsim::tools::run_isolated([&] { return to_json(simulate(uncalibrated)); });
  const nlohmann::json after = vtsim::tools::run_isolated([&] { return to_json(simulate(calibrated)); });
  const int kernels = after["jobs"][0]["compute_model"]["kernels_per_step"].get<int>();
  ASSERT_GT(kernels, 24 * 10);  // BERT-large: 24 transformer layers of more than ten kernels each
  EXPECT_DOUBLE_EQ(before["jobs"][0]["compute_model"]["kernel_fixed_us"].get<double>(), 3.0);
  const double step_before = before["jobs"][0]["step_time_s"]["mean"].get<double>();
  EXPECT_NEAR(after["jobs"][0]["step_time_s"]["mean"].get<double>() - step_before, kernels * 4e-6, 1e-9);
}

TEST(Calibration, AProfileThatDoesNotNameItsGpuIsRefused) {
  // Its GPU measurements could be from any GPU: applied to the cluster's they might be another model's (issue 11,
  // item 16).
  CalibrationProfile profile;
  GpuSection gpu;
  gpu.provenance.tool = "vtsim calibrate probe gpu";
  gpu.name = "Some GPU";
  gpu.memory_bandwidth_gBps = 1400;
  profile.gpu = gpu;
  const std::string file = ::testing::TempDir() + "vtsim-unnamed-gpu-profile.json";
  save_calibration_profile(profile, file);
  try {
    scenario_of({{"cluster", {{"host", {{"gpus", 1}}}}},
                 {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}},
                 {"calibration_profile", file}});
    ADD_FAILURE() << "accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("test.json: calibration_profile: the profile's gpu section does not name "
                                             "the catalog GPU it measured"),
              std::string::npos)
        << error.what();
  }
  std::remove(file.c_str());
}

TEST(Calibration, MeasuredHorovodNegotiationSetsTheTicksCostAndIsNamed) {
  // Horovod over 8 hosts ticks without a cycle wait; a tick negotiates over a tree of 2 ceil(log2 8) = 6 messages,
  // at 1 ms a message 6 ms. The last gradient is ready when backward ends, and its allreduce starts only after a
  // negotiation that began after it was ready; the optimizer follows: the step is at least the rank's compute (its
  // forward, backward and optimizer) plus 6 ms.
  Scenario uncalibrated = eight_hosts();
  uncalibrated.jobs[0].data_parallel = DataParallel::horovod;
  uncalibrated.jobs[0].horovod.cycle_time_s = 0;
  uncalibrated.jobs[0].iterations = 3;
  uncalibrated.jobs[0].warmup_iterations = 1;
  Scenario calibrated = uncalibrated;
  calibrated.calibration.horovod_negotiation_message_s = CalibratedValue{1e-3, "test profile: Horovod timeline"};
  calibrated.calibration_profile = "test-profile.json";
  const auto simulate_json = [](const Scenario& scenario) {
    return vtsim::tools::run_isolated([&] { return to_json(simulate(scenario)); });
  };
  const nlohmann::json before = simulate_json(uncalibrated);
  const nlohmann::json after = simulate_json(calibrated);
  const auto step_s = [](const nlohmann::json& result) {
    return result["jobs"][0]["step_time_s"]["mean"].get<double>();
  };
  const double compute_s = after["jobs"][0]["breakdown_s"]["compute"].get<double>();
  EXPECT_GE(step_s(after), compute_s + 6e-3 - 1e-12);
  EXPECT_LT(step_s(before), compute_s + 6e-3) << "a case where the measured negotiation shows";
  const auto mentions = [](const nlohmann::json& lines, const std::string& text) {
    for (const nlohmann::json& line : lines) {
      if (line.get<std::string>().find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(mentions(after["calibration"]["values"], "Horovod negotiation: test profile")) << after["calibration"];
  EXPECT_FALSE(mentions(after["uncalibrated_defaults"], "Horovod negotiation"));
  EXPECT_TRUE(mentions(before["uncalibrated_defaults"], "Horovod negotiation"));
}

}  // namespace
}  // namespace vtsim::sim
