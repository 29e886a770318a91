// resolve: what a run decides before it simulates, each value with its source.

#include "models/resolve/resolve.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "models/calibration/calibration_profile.hpp"
#include "models/core/error.hpp"
#include "tests/models/scenario_test_support.hpp"

namespace vtsim {
namespace {

using test_support::eight_hosts;
using test_support::eight_hosts_json;
using test_support::scenario_of;

/// The value `what` of a run of `scenario` with `calibration` (sourced_values); fails the test when the run has none.
SourcedValue value_of(const Scenario& scenario, const std::string& what, const CalibratedParameters& calibration = {}) {
  const std::vector<SourcedValue> values = sourced_values(scenario, resolve(scenario, calibration));
  const auto found =
      std::find_if(values.begin(), values.end(), [&](const SourcedValue& value) { return value.what == what; });
  EXPECT_NE(found, values.end()) << what;
  return found == values.end() ? SourcedValue{} : *found;
}

bool has_value(const Scenario& scenario, const std::string& what) {
  const std::vector<SourcedValue> values = sourced_values(scenario, resolve(scenario, nullptr));
  return std::any_of(values.begin(), values.end(), [&](const SourcedValue& value) { return value.what == what; });
}

TEST(Resolve, AppliesTheProfileItIsGivenAndRefusesOneOfAnotherBox) {
  // The scenario holds only the profile's path: resolve() takes the profile itself. A copy measured at 1,400 GB/s on
  // the cluster's A100 40GB (1,555 GB/s datasheet) sets the memory efficiency to 1400 / 1555 and is listed; the same
  // profile without it is the catalog's. Measured on an H100, it is refused naming the scenario's key.
  Scenario scenario = scenario_of({{"cluster", {{"host", {{"gpus", 1}, {"gpu_model", "a100-40gb-sxm4"}}}}},
                                   {"jobs", {{{"workload", "bert-large-squad-seq384"}, {"batch_per_gpu", 8}}}}});
  scenario.calibration_profile = "in-memory.json";
  CalibrationProfile profile;
  profile.gpu = GpuSection{};
  profile.gpu->provenance.tool = "vtsim calibrate probe gpu";
  profile.gpu->name = "NVIDIA A100-SXM4-40GB";
  profile.gpu->catalog_gpu = "a100-40gb-sxm4";
  profile.gpu->memory_bandwidth_gBps = 1400;
  const ResolvedRun measured = resolve(scenario, &profile);
  EXPECT_DOUBLE_EQ(measured.jobs[0].compute.resolved.parameters.memory_efficiency, 1400.0 / 1555.0);
  EXPECT_TRUE(std::any_of(measured.calibrated.begin(), measured.calibrated.end(), [](const std::string& line) {
    return line.find("gpu.memory_bandwidth_gBps") != std::string::npos;
  })) << ::testing::PrintToString(measured.calibrated);
  const ResolvedRun catalog = resolve(scenario, nullptr);
  EXPECT_NE(catalog.jobs[0].compute.resolved.parameters.memory_efficiency, 1400.0 / 1555.0);
  EXPECT_TRUE(catalog.calibrated.empty());
  profile.gpu->catalog_gpu = "h100-sxm5";
  try {
    static_cast<void>(resolve(scenario, &profile));
    ADD_FAILURE() << "accepted";
  } catch (const InputError& error) {
    const std::string expected =
        "test.json: calibration_profile: the profile measured another box than the cluster's: gpu: measured a "
        "h100-sxm5, the cluster's hosts have 1 a100-40gb-sxm4";
    EXPECT_EQ(std::string(error.what()).rfind(expected, 0), 0u) << error.what();
  }
  scenario.calibration_allow_mismatch = true;
  EXPECT_DOUBLE_EQ(resolve(scenario, &profile).jobs[0].compute.resolved.parameters.memory_efficiency, 1400.0 / 1555.0);
}

TEST(Resolve, ForcedChannelsComeFromTheScenarioAndSetTheSmShareOneSmEach) {
  const Scenario forced_channels = scenario_of(eight_hosts_json(), {"jobs[0].nccl.channels=4"});
  const ResolvedRun forced = resolve(forced_channels, nullptr);
  const SourcedValue channels = value_of(forced_channels, "NCCL channels of job0");
  EXPECT_EQ(channels.value, "4");
  EXPECT_EQ(channels.source, Source::scenario);
  // One SM per channel of the A100's 108 (A100 whitepaper), no measurement behind it.
  ASSERT_TRUE(forced.jobs[0].collective_sm_share.has_value());
  EXPECT_DOUBLE_EQ(forced.jobs[0].collective_sm_share->value, 4.0 / 108);
  EXPECT_EQ(forced.jobs[0].collective_sm_share->source, Source::uncalibrated);
  EXPECT_EQ(value_of(eight_hosts(), "NCCL channels of job0").source, Source::published);
}

TEST(Resolve, AMeasuredSmShareIsTheProfilesAndIsListedAsCalibrated) {
  Scenario scenario = eight_hosts();
  CalibratedParameters measured;
  measured.collective_sm_share = CalibratedValue{0.07, "test profile: overlap probe"};
  scenario.calibration_profile = "test-profile.json";
  const ResolvedRun run = resolve(scenario, measured);
  EXPECT_EQ(run.jobs[0].collective_sm_share->value, 0.07);
  EXPECT_EQ(value_of(scenario, "collective SM share of job0", measured).source, Source::measured);
  EXPECT_NE(std::find(run.calibrated.begin(), run.calibrated.end(), "collective SM share: test profile: overlap probe"),
            run.calibrated.end());
  for (const std::string& note : run.uncalibrated) EXPECT_EQ(note.find("collective SM share"), std::string::npos);
}

TEST(Resolve, AProfileValueNoJobUsesIsNotListedAsCalibrated) {
  // One rank has no communicator, so no collective runs beside its kernels: the profile's SM share is not used.
  Scenario lone = scenario_of(eight_hosts_json(), {"jobs[0].gpus=1"});
  CalibratedParameters share;
  share.collective_sm_share = CalibratedValue{0.07, "test profile: overlap probe"};
  lone.calibration_profile = "test-profile.json";
  EXPECT_TRUE(resolve(lone, share).calibrated.empty());
  // A vGPU alone on its T4 is never switched out (best effort): the profile's context switch is not used; two
  // tenants on it are time-sliced and switch.
  const auto tenants = [](int copies, const std::vector<std::string>& overrides) {
    Scenario scenario =
        scenario_of({{"cluster", {{"host", {{"gpus", 1}, {"gpu_model", "t4"}}}}},
                     {"virtualization", {{"mode", "vgpu"}, {"vgpu_profile", "T4-8C"}}},
                     {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 16}, {"copies", copies}}}}},
                    overrides);
    scenario.calibration_profile = "test-profile.json";
    return scenario;
  };
  CalibratedParameters switch_probe;
  switch_probe.context_switch_s = CalibratedValue{50e-6, "test profile: switch probe"};
  EXPECT_TRUE(resolve(tenants(1, {}), switch_probe).calibrated.empty());
  EXPECT_EQ(resolve(tenants(2, {}), switch_probe).calibrated,
            std::vector<std::string>{"vGPU context switch: test profile: switch probe"});
  EXPECT_EQ(value_of(tenants(2, {}), "vGPU context switch", switch_probe).source, Source::measured);
  // The profile's measurement, not the 100 us default, is what the scheduler of the sliced GPU runs.
  const ResolvedRun measured = resolve(tenants(2, {}), switch_probe);
  EXPECT_DOUBLE_EQ(measured.context_switch_s->value, 50e-6);
  ASSERT_EQ(measured.sliced_gpus.size(), 1u);
  EXPECT_DOUBLE_EQ(measured.sliced_gpus[0].setup.context_switch_s, 50e-6);
  // A switch the scenario states replaces the profile's: the scenario's, not listed as calibrated.
  const Scenario stated = tenants(2, {"virtualization.scheduler.context_switch_us=20"});
  const SourcedValue switch_cost = value_of(stated, "vGPU context switch", switch_probe);
  EXPECT_EQ(switch_cost.value, "20 us");
  EXPECT_EQ(switch_cost.source, Source::scenario);
  EXPECT_TRUE(resolve(stated, switch_probe).calibrated.empty());
}

TEST(Resolve, HorovodNegotiationIsTwoMessagesPerTreeLevel) {
  // Every ring neighbour sits on another one-GPU host of the rack: the same largest neighbour latency for 8 ranks
  // and for 4, so the ticks cost 2 ceil(log2 8) = 6 against 2 ceil(log2 4) = 4 messages.
  const ResolvedRun eight = resolve(scenario_of(eight_hosts_json(), {"jobs[0].data_parallel=horovod"}), nullptr);
  const ResolvedRun four =
      resolve(scenario_of(eight_hosts_json(), {"jobs[0].data_parallel=horovod", "jobs[0].gpus=4"}), nullptr);
  ASSERT_TRUE(eight.jobs[0].negotiation_s.has_value());
  ASSERT_TRUE(four.jobs[0].negotiation_s.has_value());
  EXPECT_NEAR(eight.jobs[0].negotiation_s->value / four.jobs[0].negotiation_s->value, 6.0 / 4.0, 1e-12);
  EXPECT_EQ(eight.jobs[0].negotiation_s->source, Source::uncalibrated);
  // DDP has no coordinator.
  EXPECT_FALSE(
      resolve(scenario_of(eight_hosts_json(), {"jobs[0].data_parallel=pytorch_ddp"}), nullptr).jobs[0].negotiation_s);
}

TEST(Resolve, NicLinksAreTheLineRateAfterRoceV2sEfficiencyUnlessMeasured) {
  // ConnectX-5 100 GbE at RoCE v2's 0.97: 12.125 GB/s, shown to 3 significant digits.
  const SourcedValue catalog = value_of(eight_hosts(), "nic links");
  EXPECT_EQ(catalog.value.rfind("12.1 GB/s per direction, ", 0), 0u) << catalog.value;
  EXPECT_EQ(catalog.source, Source::published);
  Scenario calibrated = eight_hosts();
  CalibratedParameters perftest;
  perftest.nic["roce"] = CalibratedLink{CalibratedValue{5e9, "test profile: ib_write_bw"},
                                        CalibratedValue{4e-6, "test profile: ib_write_lat"}};
  calibrated.calibration_profile = "test-profile.json";
  const SourcedValue measured = value_of(calibrated, "nic links", perftest);
  EXPECT_EQ(measured.value.rfind("5 GB/s per direction, ", 0), 0u) << measured.value;
  EXPECT_EQ(measured.source, Source::measured);
  // NVLink is not built on one-GPU hosts: no line for it.
  EXPECT_FALSE(has_value(eight_hosts(), "nvlink links"));
}

TEST(Resolve, VmotionRunsAtTheNicsTcpRateOrTheVmknicsMeasuredPeakBeforeVsphere7U2) {
  // Pre-copy: the NIC's line rate at TCP's framing efficiency (1448 / 1538 bytes of an MTU-1500 frame), at most what
  // Broadcom KB 323379 measured for the vmknics on 40 GbE (1: 18 Gb/s, 3: 36 Gb/s); the stun's rate is the line
  // rate, at most the same peak.
  const auto run = [](const char* nic, std::optional<int> vmknics) {
    Scenario scenario = scenario_of({{"cluster", {{"host", {{"gpus", 1}, {"gpu_model", "t4"}, {"nic_model", nic}}}}},
                                     {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 8}}}}});
    scenario.operations.vmotion_vmknics = vmknics;
    return resolve(scenario, nullptr);
  };
  const double tcp = 1448.0 / 1538.0;
  const ResolvedRun since_7u2 = run("connectx-5-100gbe", std::nullopt);
  EXPECT_DOUBLE_EQ(since_7u2.vmotion_rate_Bps, 100e9 / 8);
  EXPECT_NEAR(since_7u2.migration_Bps, 100e9 / 8 * tcp, 1.0);
  const ResolvedRun one_vmknic = run("connectx-5-100gbe", 1);
  EXPECT_DOUBLE_EQ(one_vmknic.vmotion_rate_Bps, 18e9 / 8);
  EXPECT_DOUBLE_EQ(one_vmknic.migration_Bps, 18e9 / 8);
  const ResolvedRun on_25gbe = run("connectx-5-25gbe", 3);  // 25 GbE below three vmknics' 36 Gb/s: the NIC binds
  EXPECT_DOUBLE_EQ(on_25gbe.vmotion_rate_Bps, 25e9 / 8);
  EXPECT_NEAR(on_25gbe.migration_Bps, 25e9 / 8 * tcp, 1.0);
}

TEST(Resolve, StepTimeSpreadSaysWhoseItIs) {
  const auto spread = [](const std::vector<std::string>& overrides) {
    return value_of(scenario_of(eight_hosts_json(), overrides), "step-time spread of job0");
  };
  EXPECT_EQ(spread({}).source, Source::scenario);  // scenario_of turns variability off
  EXPECT_EQ(spread({}).value, "0%");
  EXPECT_EQ(spread({"simulation.variability=true"}).source, Source::uncalibrated);
  const SourcedValue stated = spread({"simulation.variability=true", "jobs[0].step_time_cv=0.05"});
  EXPECT_EQ(stated.source, Source::scenario);
  EXPECT_EQ(stated.value, "5%");
  Scenario profiled = scenario_of(eight_hosts_json(), {"simulation.variability=true"});
  CalibratedParameters step_log;
  step_log.step_time_cv = CalibratedValue{0.03, "test profile: step-time log"};
  profiled.calibration_profile = "test-profile.json";
  const SourcedValue measured = value_of(profiled, "step-time spread of job0", step_log);
  EXPECT_EQ(measured.source, Source::measured);
  EXPECT_EQ(measured.note, "test profile: step-time log");
}

TEST(Resolve, RefusesAJobThatDoesNotFitAsRunWould) {
  // BERT-large at batch 32 needs 24.7 GiB per GPU (cli.check_refuses_a_job_that_does_not_fit): not on a 10 GB vGPU.
  const Scenario scenario = scenario_of({{"cluster", {{"host", {{"gpus", 1}}}}},
                                         {"virtualization", {{"mode", "vgpu"}, {"vgpu_profile", "A100X-10C"}}},
                                         {"jobs", {{{"workload", "bert-large-squad-seq384"}, {"batch_per_gpu", 32}}}}});
  EXPECT_THROW(static_cast<void>(resolve(scenario, nullptr)), InputError);
}

TEST(Resolve, TheSwitchLatencyIsListedWhereTrafficCrossesASwitchAndSaysWhoseItIs) {
  const auto listed = [](const ResolvedRun& run) {
    return std::any_of(run.uncalibrated.begin(), run.uncalibrated.end(),
                       [](const std::string& note) { return note.rfind("switch latency 0.3 us", 0) == 0; });
  };
  // Eight one-GPU hosts on one leaf: every ring step crosses it, at the 300 ns default no measurement backs.
  const ResolvedRun defaulted = resolve(eight_hosts(), nullptr);
  ASSERT_TRUE(defaulted.switch_latency_s.has_value());
  EXPECT_DOUBLE_EQ(defaulted.switch_latency_s->value, 300e-9);
  EXPECT_EQ(defaulted.switch_latency_s->source, Source::uncalibrated);
  EXPECT_TRUE(listed(defaulted));
  // Stated: the scenario's, in neither list.
  const Scenario stated = scenario_of(eight_hosts_json(), {"cluster.fabric.switch_latency_us=0.5"});
  const SourcedValue value = value_of(stated, "switch latency");
  EXPECT_EQ(value.source, Source::scenario);
  EXPECT_EQ(value.value, "0.5 us per leaf or spine switch");
  for (const std::string& note : resolve(stated, nullptr).uncalibrated) {
    EXPECT_EQ(note.find("switch latency"), std::string::npos);
  }
  // One GPU in one host: no switch is crossed, nothing is said of one.
  const Scenario lone = scenario_of(eight_hosts_json(), {"jobs[0].gpus=1"});
  EXPECT_FALSE(resolve(lone, nullptr).switch_latency_s.has_value());
  EXPECT_FALSE(has_value(lone, "switch latency"));
}

TEST(Resolve, RefusesWhatAJobForcesOnATensorGroupNcclWouldNotRun) {
  // Two hosts of two A100 PCIe cards (no NVLink), RoCE v2, tensor 2 x data 2. A data group has one rank per host
  // over GPUDirect RDMA, where NCCL enables LL128; a tensor group's two ranks meet over PCIe inside a host, where it
  // does not (models/collectives/nccl_tuning.cpp ll128_enabled). NCCL would fail the tensor group's calls, so resolve
  // refuses the scenario, as it refuses one whose data group cannot run what it forces.
  const nlohmann::json json = {
      {"cluster",
       {{"hosts_per_rack", 2},
        {"host", {{"gpus", 2}, {"gpu_model", "a100-40gb-pcie"}, {"nic_model", "connectx-5-100gbe"}}},
        {"transport", "roce_v2"}}},
      {"jobs",
       {{{"workload",
          {{"transformer",
            {{"layers", 4}, {"hidden_size", 256}, {"heads", 4}, {"sequence_length", 128}, {"vocab_size", 64}}}}},
         {"batch_per_gpu", 4},
         {"parallelism", {{"tensor", 2}}},
         {"nccl", {{"protocol", "LL128"}}}}}}};
  try {
    static_cast<void>(resolve(scenario_of(json), nullptr));
    ADD_FAILURE() << "resolved";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what())
                  .find("jobs[0].nccl: LL128 is not enabled for all_reduce on this communicator "
                        "(2 ranks on 1 node"),
              std::string::npos)
        << error.what();
  }
  // Forcing nothing, the same job resolves.
  nlohmann::json free = json;
  free["jobs"][0].erase("nccl");
  EXPECT_NO_THROW(static_cast<void>(resolve(scenario_of(free), nullptr)));
}

TEST(Resolve, AnUplinkAtTheNicsRateIsPublishedAndOneTheScenarioSetsIsTheScenarios) {
  // Two racks of four one-GPU hosts: the ring crosses the spines.
  const auto fabric = [](const std::vector<std::string>& overrides) {
    // The switch latency stated: the uplink's latency is then the scenario's, and its source is its rate's.
    std::vector<std::string> all = {"cluster.racks=2", "cluster.hosts_per_rack=4",
                                    "cluster.fabric.switch_latency_us=0.3"};
    all.insert(all.end(), overrides.begin(), overrides.end());
    return value_of(scenario_of(eight_hosts_json(), all), "fabric links");
  };
  const SourcedValue nic_rate = fabric({});
  EXPECT_EQ(nic_rate.source, Source::published);  // ConnectX-5's line rate x RoCE v2's published efficiency
  EXPECT_NE(nic_rate.note.find("at the NIC's line rate"), std::string::npos) << nic_rate.note;
  const SourcedValue stated = fabric({"cluster.fabric.uplink_gbps=200", "cluster.fabric.spines=2"});
  EXPECT_EQ(stated.source, Source::scenario);
  EXPECT_NE(stated.note.find("at the scenario's uplink line rate"), std::string::npos) << stated.note;
  // At the 300 ns default the uplink's latency is uncalibrated, and so is the uplink.
  EXPECT_EQ(
      value_of(scenario_of(eight_hosts_json(), {"cluster.racks=2", "cluster.hosts_per_rack=4"}), "fabric links").source,
      Source::uncalibrated);
}

}  // namespace
}  // namespace vtsim
