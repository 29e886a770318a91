// Time-sliced vGPU scheduling and MIG isolation, each figure derived by hand from the tenant's time alone.

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "models/core/fairness.hpp"
#include "sim/engine/simulation.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

using testing::simulate_in_child;

using testing::scenario_of;

/// One T4 time-sliced between vGPUs of `profile`: a busy ResNet-50 tenant (batch 16) and `idle` powered-on vGPUs.
/// The host issues kernels at no cost (as under CUDA Graphs), so a tenant keeps its GPU busy all the time it runs and
/// the figures below follow from its time alone.
nlohmann::json t4_tenants(const std::string& profile, const std::string& policy, int busy, int idle,
                          double host_dispatch_us = 0.0) {
  nlohmann::json jobs = {{{"name", "busy"},
                          {"workload", "resnet-50"},
                          {"batch_per_gpu", 16},
                          {"host_dispatch_us", host_dispatch_us},
                          {"copies", busy},
                          {"iterations", 12},
                          {"warmup_iterations", 2}}};
  if (idle > 0) jobs.push_back({{"name", "idle"}, {"idle", true}, {"copies", idle}});
  return {{"cluster", {{"host", {{"gpus", 1}, {"gpu_model", "t4"}}}}},
          {"virtualization", {{"mode", "vgpu"}, {"vgpu_profile", profile}, {"scheduler", {{"policy", policy}}}}},
          {"jobs", jobs}};
}

double step_s(const nlohmann::json& result, std::size_t job = 0) {
  return result["jobs"][job]["step_time_s"]["mean"].get<double>();
}

double alone_s(const nlohmann::json& result) { return result["jobs"][0]["single_gpu"]["step_time_s"].get<double>(); }

TEST(TimeSlicing, BestEffortGivesOneBusyTenantTheWholeGpu) {
  // An idle vGPU gives its time away: the busy one runs back to back, with no context switch to pay.
  const nlohmann::json result = simulate_in_child(scenario_of(t4_tenants("T4-8C", "best_effort", 1, 1)));
  // Within SimGrid's timing precision (1e-9 s per event, a few hundred events per step).
  EXPECT_NEAR(step_s(result), alone_s(result), 1e-6 * alone_s(result));
  EXPECT_EQ(result["time_sliced_gpus"][0]["switches"].get<long>(), 0);
}

TEST(TimeSlicing, HostBoundTenantsLendEachOtherTheirIdleGpuTime) {
  // With PyTorch's fitted dispatch cost (95 us per kernel) a ResNet-50 tenant at batch 1 leaves its T4 idle part of
  // each step while its host issues kernels. Two such tenants under best effort: one runs while the other waits for
  // its host, so each step takes less than twice its time alone (what two tenants that keep the GPU busy get), and
  // at least its alone step and the GPU time both tenants' kernels need.
  nlohmann::json one = t4_tenants("T4-8C", "best_effort", 1, 0, 95.0);
  one["jobs"][0]["batch_per_gpu"] = 1;
  nlohmann::json two = t4_tenants("T4-8C", "best_effort", 2, 0, 95.0);
  two["jobs"][0]["batch_per_gpu"] = 1;
  const nlohmann::json alone = simulate_in_child(scenario_of(one));
  const double busy_fraction = alone["jobs"][0]["compute_model"]["gpu_busy_fraction_alone"].get<double>();
  ASSERT_LT(busy_fraction, 0.9);
  const nlohmann::json result = simulate_in_child(scenario_of(two));
  const double a = alone_s(result);
  EXPECT_GE(step_s(result, 0), a);
  EXPECT_GE(step_s(result, 0), 2 * busy_fraction * a);  // the GPU serves both tenants' kernels
  EXPECT_LT(step_s(result, 0), 2 * a);
}

TEST(TimeSlicing, FixedShareGivesAT4_4CTenantAQuarterEvenAlone) {
  // T4-4C allows 4 per GPU: fixed share gives each vGPU 1 slot in 4 whether or not the others exist.
  const nlohmann::json result = simulate_in_child(scenario_of(t4_tenants("T4-4C", "fixed_share", 1, 0)));
  EXPECT_NEAR(step_s(result), 4 * alone_s(result), 0.01 * 4 * alone_s(result));
}

TEST(TimeSlicing, EqualShareGivesTheBusyOneHalfNextToAnIdlePoweredOnVgpu) {
  const nlohmann::json result = simulate_in_child(scenario_of(t4_tenants("T4-8C", "equal_share", 1, 1)));
  EXPECT_NEAR(step_s(result), 2 * alone_s(result), 0.01 * 2 * alone_s(result));
}

TEST(TimeSlicing, TwoBusyTenantsShareEquallyAndPayTheSwitches) {
  // Best effort, two busy vGPUs, slice s and switch cost c: each slot of length s holds c of switching, so each tenant
  // advances (s - c) per 2s: its step is 2 s / (s - c) times its time alone.
  for (const double switch_us : {0.0, 200.0}) {
    nlohmann::json json = t4_tenants("T4-8C", "best_effort", 2, 0);
    json["virtualization"]["scheduler"]["context_switch_us"] = switch_us;
    json["virtualization"]["scheduler"]["time_slice_ms"] = 2;
    const nlohmann::json result = simulate_in_child(scenario_of(json));
    const double s = 2e-3;
    const double c = switch_us * 1e-6;
    const double expected = alone_s(result) * 2 * s / (s - c);
    EXPECT_NEAR(step_s(result, 0), expected, 0.01 * expected) << switch_us;
    EXPECT_NEAR(step_s(result, 1), expected, 0.01 * expected) << switch_us;
  }
}

TEST(TimeSlicing, LongerSlicesRaiseAggregateThroughputWhenSwitchesCost) {
  // Useful fraction of the GPU is (s - c) / s: 0.8 at s = 1 ms, 0.98 at s = 10 ms with c = 200 us.
  double aggregate[2] = {0, 0};
  const double slices_ms[2] = {1, 10};
  for (int i = 0; i < 2; ++i) {
    nlohmann::json json = t4_tenants("T4-8C", "best_effort", 2, 0);
    json["virtualization"]["scheduler"]["context_switch_us"] = 200;
    json["virtualization"]["scheduler"]["time_slice_ms"] = slices_ms[i];
    const nlohmann::json result = simulate_in_child(scenario_of(json));
    aggregate[i] = result["jobs"][0]["samples_per_s"].get<double>() + result["jobs"][1]["samples_per_s"].get<double>();
    const double alone_samples = 16 / alone_s(result);
    const double useful = (slices_ms[i] - 0.2) / slices_ms[i];
    EXPECT_NEAR(aggregate[i], alone_samples * useful, 0.02 * alone_samples * useful) << slices_ms[i];
  }
  EXPECT_GT(aggregate[1], aggregate[0]);
}

TEST(TimeSlicing, TenantsAreMeasuredWhileAllOfThemRun) {
  // Two identical tenants, one with 4 iterations and one with 30: after the short one ends, the long one runs alone.
  // Its shared figures must come from the window in which both ran: each gets half the GPU minus the switches,
  // 2 s / (s - c) times its alone step, not a blend with the time it had the GPU to itself.
  nlohmann::json json = t4_tenants("T4-8C", "best_effort", 1, 0);
  nlohmann::json second = json["jobs"][0];
  second["name"] = "long";
  second["iterations"] = 30;
  json["jobs"][0]["iterations"] = 4;
  json["jobs"].push_back(second);
  const nlohmann::json result = simulate_in_child(scenario_of(json));
  const double expected = alone_s(result) * 2 * 2e-3 / (2e-3 - 100e-6);  // 2 ms slices, 100 us switches (defaults)
  EXPECT_NEAR(step_s(result, 0), expected, 0.02 * expected);
  EXPECT_NEAR(step_s(result, 1), expected, 0.02 * expected);
  // The GPU's figures cover the same window: each 2 ms slot is 100 us of switch and 1.9 ms of kernels, so it is busy
  // 0.95 of the time (over the whole run, with the long tenant alone for most of it, it would be about 0.99).
  const nlohmann::json& gpu = result["time_sliced_gpus"][0];
  EXPECT_NEAR(gpu["busy_fraction"].get<double>(), 0.95, 0.01) << gpu.dump();
  EXPECT_NEAR(gpu["switch_time_s"].get<double>() / gpu["switches"].get<double>(), 100e-6, 1e-9) << gpu.dump();
}

TEST(Mig, InstancesDoNotInterfere) {
  // Two tenants on 3g.20gb instances of one A100: each runs exactly as fast as alone on its instance.
  const Scenario scenario = scenario_of(
      {{"cluster", {{"host", {{"gpus", 1}}}}},
       {"virtualization", {{"mode", "mig"}, {"mig_profile", "3g.20gb"}}},
       {"jobs", {{{"name", "t"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"copies", 2}, {"iterations", 3}}}}});
  const nlohmann::json result = simulate_in_child(scenario);
  for (int t = 0; t < 2; ++t) {
    EXPECT_NEAR(step_s(result, t), result["jobs"][t]["single_gpu"]["step_time_s"].get<double>(), 1e-9) << t;
  }
  EXPECT_TRUE(result["time_sliced_gpus"].empty());
}

TEST(TimeSlicing, TraceShowsWhichVgpuRunsOnEachGpu) {
  const std::string file = ::testing::TempDir() + "vtsim_vgpu_trace_test.json";
  nlohmann::json json = t4_tenants("T4-8C", "best_effort", 2, 0);
  json["jobs"][0]["iterations"] = 2;
  const Scenario scenario = scenario_of(json);
  vtsim::sim::run_isolated([&] { return to_json(runner::simulate(scenario, SimulationOptions{file})); });
  const nlohmann::json trace = nlohmann::json::parse(std::ifstream(file));
  std::set<std::string> gpu_threads;
  std::set<std::string> on_gpu0;
  int gpus_pid = -1;
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event["ph"] == "M" && event["name"] == "process_name" && event["args"]["name"] == "time-sliced GPUs") {
      gpus_pid = event["pid"].get<int>();
    }
  }
  ASSERT_GE(gpus_pid, 0);
  for (const nlohmann::json& event : trace["traceEvents"]) {
    if (event["pid"] != gpus_pid) continue;
    if (event["ph"] == "M" && event["name"] == "thread_name") gpu_threads.insert(event["args"]["name"].get<std::string>());
    if (event["ph"] == "X" && event["tid"] == 0) on_gpu0.insert(event["name"].get<std::string>());
  }
  EXPECT_EQ(gpu_threads, (std::set<std::string>{"GPU 0"}));
  EXPECT_EQ(on_gpu0, (std::set<std::string>{"busy-1", "busy-2", "context switch"}));
}

TEST(Fairness, JainIndexByHand) {
  EXPECT_DOUBLE_EQ(jain_index({1, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(jain_index({1, 0.5}), 0.9);       // 1.5^2 / (2 x 1.25)
  EXPECT_DOUBLE_EQ(jain_index({1, 0, 0, 0}), 0.25);  // one tenant has everything: 1/n
}

}  // namespace
}  // namespace vtsim::sim
