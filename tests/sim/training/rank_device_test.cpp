// The device policies (sim/training/rank_device.hpp) on their own, on one host: what a stretch's run takes, worked out
// by hand.

#include "sim/training/rank_device.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include "sim/engine/isolated_run.hpp"
#include "sim/sharing/vgpu_scheduler.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

/// [busy_s, waited_s, the clock when run() returned].
nlohmann::json as_json(const DeviceRun& ran) { return {ran.busy_s, ran.waited_s, sg4::Engine::get_clock()}; }

void expect_run(const nlohmann::json& ran, double busy_s, double waited_s, double end_s) {
  EXPECT_NEAR(ran.at(0).get<double>(), busy_s, 1e-12) << ran;
  EXPECT_NEAR(ran.at(1).get<double>(), waited_s, 1e-12) << ran;
  EXPECT_NEAR(ran.at(2).get<double>(), end_s, 1e-12) << ran;
}

TEST(RankDevice, ADedicatedDeviceWaitsOutTheStallThenRunsTheKernelsBesideTheRanksCollectives) {
  const nlohmann::json result = run_isolated([] {
    const auto engine = testing::test_engine(1);
    sg4::Host* host = testing::lone_host("gpu0");
    nlohmann::json out;
    // The kernels share the GPU with a collective: 3 ms of them take 4 ms.
    DedicatedDevice device([&out](const Stretch& stretch) {
      out["shared_from_s"] = sg4::Engine::get_clock();
      out["shared_gpu_s"] = stretch.gpu_s;
      sg4::this_actor::sleep_for(4e-3);
      return 4e-3;
    });
    sg4::Actor::create("rank", host, [&] {
      out["run"] = as_json(device.run(2e-3, {5e-3, 3e-3, 0}));
      device.idle();  // nothing to tell anyone
      out["idle_at_s"] = sg4::Engine::get_clock();
    });
    engine->run();
    return out;
  });
  // The 2 ms stall, then the kernels from 2 ms to 6 ms; nothing waited for a turn.
  EXPECT_NEAR(result.at("shared_from_s").get<double>(), 2e-3, 1e-12);
  EXPECT_DOUBLE_EQ(result.at("shared_gpu_s").get<double>(), 3e-3);
  expect_run(result.at("run"), 4e-3, 0, 6e-3);
  EXPECT_NEAR(result.at("idle_at_s").get<double>(), 6e-3, 1e-12);
}

TEST(RankDevice, ATimeSlicedDeviceGivesItsStallToTheOtherVgpuAndWaitsForItsTurn) {
  const nlohmann::json result = run_isolated([] {
    const auto engine = testing::test_engine(3);
    sg4::Host* host = testing::lone_host("gpu0");
    // Best effort, 1 ms slices, no switch cost, two vGPUs.
    TimeSliceScheduler scheduler({SchedulerPolicy::best_effort, 1e-3, 0, 2, {"a", "b"}}, nullptr, 0, 0);
    scheduler.start(host);
    double rate = 1.0;
    TimeSlicedDevice device(scheduler, 0, &rate);
    nlohmann::json out;
    sg4::Actor::create("other", host, [&] {
      sg4::this_actor::sleep_until(0.5e-3);
      scheduler.run(1, 5e-3);  // vGPU 1 has 5 ms of kernels from 0.5 ms
      scheduler.idle(1);
    });
    sg4::Actor::create("rank", host, [&] {
      // vGPU 0 alone: 0.8 ms of kernels from 0 to 0.8 ms (vGPU 1, ready at 0.5 ms, waits within vGPU 0's slice).
      out["alone"] = as_json(device.run(0, {0.8e-3, 0.8e-3, 0}));
      // Straight on, a stretch whose host is 0.5 ms behind: the device gives the stall away, so vGPU 1 takes the GPU
      // at 0.8 ms for its slice, to 1.8 ms; vGPU 0's 1 ms of kernels, ready at 1.3 ms, run from 1.8 to 2.8 ms: busy
      // 1 ms, waited 0.5 ms.
      out["shared"] = as_json(device.run(0.5e-3, {1.5e-3, 1e-3, 0}));
      device.idle();
      // vGPU 1 ends its remaining 4 ms at 6.8 ms. Then alone at a collective's rate of 0.5: 1 ms of kernels take 2 ms
      // of GPU.
      sg4::this_actor::sleep_until(7e-3);
      rate = 0.5;
      out["slowed"] = as_json(device.run(0, {1e-3, 1e-3, 0}));
      device.idle();
    });
    engine->run();
    return out;
  });
  expect_run(result.at("alone"), 0.8e-3, 0, 0.8e-3);
  expect_run(result.at("shared"), 1e-3, 0.5e-3, 2.8e-3);
  expect_run(result.at("slowed"), 2e-3, 0, 9e-3);
}

}  // namespace
}  // namespace vtsim::sim
