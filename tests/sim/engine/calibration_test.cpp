// A calibration profile's measurements replace the catalog defaults, and the run says where each value came from.

#include <cstdio>
#include <string>

#include <unistd.h>

#include <gtest/gtest.h>

#include "models/calibration/calibration_profile.hpp"
#include "models/catalog/link_defaults.hpp"
#include "models/collectives/collective_model.hpp"
#include "models/core/error.hpp"
#include "sim/engine/simulation.hpp"
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
  CalibratedParameters measured;
  measured.nic["roce"] = CalibratedLink{CalibratedValue{5e9, "test profile: ib_write_bw"},
                                        CalibratedValue{4e-6, "test profile: ib_write_lat"}};
  calibrated.calibration_profile = "test-profile.json";
  const Topology before = scenario_topology(uncalibrated, {});
  const Topology after = scenario_topology(calibrated, measured);
  const std::vector<Hop> route = after.route(0, 1);
  // The NIC links now carry the measured rate; every other link is as before.
  EXPECT_DOUBLE_EQ(after.bottleneck_Bps(route), 5e9);
  // A host-to-host message pays the measured 4 us instead of the catalog's NIC + transport latency, nothing else.
  const double catalog_message_s = scenario_links(uncalibrated, {}).nic.latency_s;
  EXPECT_NEAR(after.latency_s(route) - before.latency_s(before.route(0, 1)), 4e-6 - catalog_message_s, 1e-15);
  // And the ring follows the closed form with the measured numbers.
  const double bytes = 64.0 * 1024 * 1024;
  const double expected =
      testing::nccl_ring_closed_form_s(calibrated, bytes, 5e9, after.latency_s(route), NcclHop::net, measured);
  EXPECT_NEAR(simulated_allreduce_s(calibrated, bytes, measured), expected, 1e-3 * expected);
  // The link is no longer reported as an uncalibrated default, and the result names the measurement.
  const nlohmann::json result =
      vtsim::sim::run_isolated([&] { return to_json(runner::simulate(calibrated, measured)); });
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
  CalibratedParameters measured;
  measured.memory_bandwidth_Bps = CalibratedValue{1.40e12, "test profile: device copy"};
  scenario.calibration_profile = "test-profile.json";
  const nlohmann::json result = vtsim::sim::run_isolated([&] { return to_json(runner::simulate(scenario, measured)); });
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
  CalibratedParameters measured;
  measured.kernel_launch_s = CalibratedValue{7e-6, "test profile: launch"};
  calibrated.calibration_profile = "test-profile.json";
  const nlohmann::json before = vtsim::sim::run_isolated([&] { return to_json(runner::simulate(uncalibrated)); });
  const nlohmann::json after =
      vtsim::sim::run_isolated([&] { return to_json(runner::simulate(calibrated, measured)); });
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
    static_cast<void>(
        load_scenario_calibration(scenario_of({{"cluster", {{"host", {{"gpus", 1}}}}},
                                               {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}},
                                               {"calibration_profile", file}})));
    ADD_FAILURE() << "accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("test.json: calibration_profile: the profile's gpu section does not name "
                                             "the catalog GPU it measured"),
              std::string::npos)
        << error.what();
  }
  std::remove(file.c_str());
}

TEST(Calibration, AMeasuredContextSwitchIsTheOneTheSchedulerRunsAndTheSliceCheckNamesItsProfile) {
  // Two T4-8C vGPUs time-sliced on one T4 (2 per GPU: a 2 ms slice, vGPU user guide). The profile measured 1,000 us
  // per switch: the sliced GPU's scheduler runs it. At 1,900 us, over 90% of the slice, resolve() refuses it and
  // says where it was measured.
  const auto profile_file = [](double switch_us) {
    CalibrationProfile profile;
    GpuSection gpu;
    gpu.provenance.tool = "vtsim calibrate probe gpu";
    gpu.name = "Tesla T4";
    gpu.catalog_gpu = "t4";
    gpu.context_switch_us = switch_us;
    profile.gpu = gpu;
    const std::string file = ::testing::TempDir() + "vtsim-switch-profile.json";
    save_calibration_profile(profile, file);
    return file;
  };
  const auto tenants = [](const std::string& file) {
    return scenario_of({{"cluster", {{"host", {{"gpus", 1}, {"gpu_model", "t4"}}}}},
                        {"virtualization", {{"mode", "vgpu"}, {"vgpu_profile", "T4-8C"}}},
                        {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 16}, {"copies", 2}}}},
                        {"calibration_profile", file}});
  };
  const auto resolved = [](const Scenario& scenario) { return resolve(scenario, load_scenario_calibration(scenario)); };
  const std::string measured = profile_file(1000);
  const ResolvedRun run = resolved(tenants(measured));
  ASSERT_EQ(run.sliced_gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(run.sliced_gpus[0].setup.context_switch_s, 1000e-6);
  EXPECT_EQ(run.context_switch_s->source, Source::measured);
  const std::string too_long = profile_file(1900);
  try {
    static_cast<void>(resolved(tenants(too_long)));
    ADD_FAILURE() << "accepted";
  } catch (const InputError& error) {
    const std::string expected = "virtualization.scheduler.context_switch_us: a context switch (1900 us, measured in " +
                                 too_long + ") may take at most 90% of the time slice (2 ms)";
    EXPECT_NE(std::string(error.what()).find(expected), std::string::npos) << error.what();
  }
  std::remove(too_long.c_str());
}

// A profile with one ring collective over `ranks` GPUs of one host named `device`, fitted as the link class `link`.
CalibrationProfile collective_profile(const std::string& device, int ranks, const std::string& link) {
  CalibrationProfile profile;
  CollectiveSeries series;
  series.provenance.tool = "nccl-tests all_gather_perf";
  series.provenance.device = device;
  series.op = "all_gather";
  series.ranks = ranks;
  series.hosts = 1;
  series.points = {{.bytes = 1 << 20, .time_us = 20, .algbw_gBps = 52.4, .busbw_gBps = 39.3, .in_place_time_us = {}},
                   {.bytes = 1 << 28, .time_us = 2000, .algbw_gBps = 134.2, .busbw_gBps = 100.7,
                    .in_place_time_us = {}}};
  profile.collectives.push_back(series);
  FitsSection fits;
  fits.provenance.tool = "vtsim calibrate fit";
  fits.alpha_beta.push_back({.subject = "collectives[0]",
                             .link_class = link,
                             .transport = "",
                             .alpha_us = 12,
                             .beta_gBps = 100,
                             .residual = 0,
                             .points = 2,
                             .segments = {}});
  profile.fits = fits;
  return profile;
}

// The error applying to the default scenario's box (4 A100 40GB SXM4 on NVLink) with `profile`, "" when it loads.
std::string refusal(const CalibrationProfile& profile, const std::string& gpu_model = "a100-40gb-sxm4",
                    bool allow = false) {
  // Per process: ctest runs the tests of this file at once.
  const std::string file = ::testing::TempDir() + "vtsim-box-profile-" + std::to_string(::getpid()) + ".json";
  save_calibration_profile(profile, file);
  nlohmann::json scenario = {{"cluster", {{"host", {{"gpus", 4}, {"gpu_model", gpu_model}}}}},
                             {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}},
                             {"calibration_profile", file}};
  if (allow) scenario["calibration_allow_mismatch"] = true;
  std::string error;
  try {
    const CalibratedParameters calibration = load_scenario_calibration(scenario_of(scenario));
    if (allow) {
      EXPECT_FALSE(calibration.mismatches.empty());
    }
  } catch (const InputError& refused) {
    error = refused.what();
  }
  std::remove(file.c_str());
  return error;
}

TEST(Calibration, AProfileMeasuredOnAnotherBoxIsRefusedNamingBoth) {
  // issue 32: a V100's all_gather fit was applied to an A100 NVLink box without a word.
  const std::string gpu = refusal(collective_profile("Tesla V100-SXM2-16GB", 4, "nvlink"));
  EXPECT_NE(gpu.find("test.json: calibration_profile: the profile measured another box than the cluster's: "
                     "collectives[0] (all_gather, nvlink): measured on v100-sxm2-16gb GPUs, the cluster's hosts have "
                     "4 a100-40gb-sxm4"),
            std::string::npos)
      << gpu;
  EXPECT_NE(gpu.find("calibration_allow_mismatch"), std::string::npos) << gpu;
  const std::string count = refusal(collective_profile("NVIDIA A100-SXM4-40GB", 8, "nvlink"));
  EXPECT_NE(count.find("measured over 8 GPUs of one host, the cluster's hosts have 4 a100-40gb-sxm4"),
            std::string::npos)
      << count;
  const std::string link = refusal(collective_profile("Tesla T4", 4, "nvlink"), "t4");
  EXPECT_NE(link.find("measured over NVLink, the cluster's GPUs have none"), std::string::npos) << link;
  CalibrationProfile other_gpu;
  other_gpu.gpu = GpuSection{};
  other_gpu.gpu->provenance.tool = "vtsim calibrate probe gpu";
  other_gpu.gpu->name = "NVIDIA H100 80GB HBM3";
  other_gpu.gpu->catalog_gpu = "h100-sxm5";
  other_gpu.gpu->memory_bandwidth_gBps = 3000;
  const std::string section = refusal(other_gpu);
  EXPECT_NE(section.find("gpu: measured a h100-sxm5, the cluster's hosts have 4 a100-40gb-sxm4"), std::string::npos)
      << section;
  // The same box as measured loads.
  EXPECT_EQ(refusal(collective_profile("NVIDIA A100-SXM4-40GB", 4, "nvlink")), "");
}

TEST(Calibration, AMismatchTheScenarioAllowsIsUsedAndReported) {
  EXPECT_EQ(refusal(collective_profile("Tesla V100-SXM2-16GB", 4, "nvlink"), "a100-40gb-sxm4", true), "");
  const std::string file = ::testing::TempDir() + "vtsim-allowed-profile-" + std::to_string(::getpid()) + ".json";
  save_calibration_profile(collective_profile("Tesla V100-SXM2-16GB", 4, "nvlink"), file);
  const Scenario scenario = scenario_of({{"cluster", {{"host", {{"gpus", 4}}}}},
                                         {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}},
                                         {"simulation", {{"fidelity", "analytic"}}},
                                         {"calibration_profile", file},
                                         {"calibration_allow_mismatch", true}});
  const nlohmann::json result = testing::simulate_in_child(scenario);
  std::remove(file.c_str());
  bool reported = false;
  for (const nlohmann::json& value : result["calibration"]["values"]) {
    reported |= value.get<std::string>().find("MEASURED ON ANOTHER BOX (calibration_allow_mismatch): collectives[0]"
                                              " (all_gather, nvlink): measured on v100-sxm2-16gb GPUs") == 0;
  }
  EXPECT_TRUE(reported) << result["calibration"].dump();
  // Allowing a mismatch without a profile is a key that would do nothing: refused.
  EXPECT_THROW(scenario_of({{"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}},
                            {"calibration_allow_mismatch", true}}),
               InputError);
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
  CalibratedParameters measured;
  measured.horovod_negotiation_message_s = CalibratedValue{1e-3, "test profile: Horovod timeline"};
  calibrated.calibration_profile = "test-profile.json";
  const auto simulate_json = [](const Scenario& scenario, const CalibratedParameters& calibration) {
    return vtsim::sim::run_isolated([&] { return to_json(runner::simulate(scenario, calibration)); });
  };
  const nlohmann::json before = simulate_json(uncalibrated, {});
  const nlohmann::json after = simulate_json(calibrated, measured);
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
