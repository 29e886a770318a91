// The time-sliced scheduler (sim/sharing/vgpu_scheduler.hpp) on its own: vGPUs' kernels given to it directly on one
// host, each end time and statistic worked out slice by slice by hand in the comments.

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include "sim/engine/trace.hpp"
#include "sim/sharing/vgpu_scheduler.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

/// One kernel a vGPU hands the scheduler at `start_s`, then goes idle.
struct KernelAt {
  int vgpu;
  double start_s;
  double kernel_s;  ///< its time alone
};

/// A rate change: at `at_s`, the vGPUs' kernels start running at `rate` of their speed alone.
struct RateChange {
  double at_s;
  double rate;
};

/// Runs `kernels` through one scheduler set up as `setup` (in a child process) and returns, per kernel, when its run()
/// returned ("end_s") and the GPU time it reported ("ran_s"); the scheduler's statistics ("busy_s", "switch_s",
/// "switches"), the same until `until_s` ("until"), and the names of the spans it traced, in order ("spans").
nlohmann::json schedule(const SchedulerSetup& setup, const std::vector<KernelAt>& kernels, double until_s,
                        const std::vector<RateChange>& rate_changes = {}) {
  return vtsim::sim::run_isolated([&] {
    const auto engine = testing::test_engine(kernels.size() + 2);
    sg4::Host* host = testing::lone_host("gpu0");
    TraceRecorder trace;
    TimeSliceScheduler scheduler(setup, &trace, 0, 0);
    scheduler.start(host);
    double rate = rate_changes.empty() ? 1.0 : rate_changes.front().rate;
    std::vector<double> end_s(kernels.size(), -1);
    std::vector<double> ran_s(kernels.size(), -1);
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      sg4::Actor::create("vgpu" + std::to_string(kernels[k].vgpu), host, [&, k] {
        sg4::this_actor::sleep_until(kernels[k].start_s);
        ran_s[k] = scheduler.run(kernels[k].vgpu, kernels[k].kernel_s, rate_changes.empty() ? nullptr : &rate);
        end_s[k] = sg4::Engine::get_clock();
        scheduler.idle(kernels[k].vgpu);
      });
    }
    if (rate_changes.size() > 1) {
      sg4::Actor::create("rates", host, [&] {
        for (std::size_t c = 1; c < rate_changes.size(); ++c) {
          sg4::this_actor::sleep_until(rate_changes[c].at_s);
          rate = rate_changes[c].rate;
        }
      });
    }
    engine->run();
    std::ostringstream written;
    trace.write(written);
    const nlohmann::json document = nlohmann::json::parse(written.str());
    nlohmann::json spans = nlohmann::json::array();
    for (const nlohmann::json& event : document["traceEvents"]) {
      if (event["ph"] == "X") spans.push_back(event["name"]);
    }
    const SchedulerStatistics all = scheduler.statistics();
    const SchedulerStatistics until = scheduler.statistics_until(until_s);
    return nlohmann::json{{"end_s", end_s},
                          {"ran_s", ran_s},
                          {"busy_s", all.busy_s},
                          {"switch_s", all.switch_s},
                          {"switches", all.switches},
                          {"until",
                           {{"busy_s", until.busy_s}, {"switch_s", until.switch_s}, {"switches", until.switches}}},
                          {"spans", spans}};
  });
}

SchedulerSetup setup_of(SchedulerPolicy policy, double slice_s, double switch_s, int slots,
                        std::vector<std::string> names) {
  return {.policy = policy, .time_slice_s = slice_s, .context_switch_s = switch_s, .slots = slots,
          .vgpu_names = std::move(names)};
}

constexpr double kTolerance_s = 1e-12;

TEST(TimeSliceScheduler, BestEffortPreemptsAtTheSliceEndAndPaysEachSwitchOutOfTheSlot) {
  // Slices of 2 ms, switches of 0.1 ms. A has 5 ms of kernels, B 3 ms, both from 0:
  //   [0, 2)        A runs 2 (A has 3 left)
  //   [2, 4)        switch to B until 2.1, B runs 1.9 (1.1 left)
  //   [4, 6)        switch to A until 4.1, A runs 1.9 (1.1 left)
  //   [6, 7.2)      switch to B until 6.1, B runs 1.1 and ends at 7.2; idle, it gives the slice away
  //   [7.2, 8.4)    switch to A until 7.3, A runs 1.1 and ends at 8.4
  // Busy 8 ms (the kernels' 5 + 3), 4 switches of 0.1 ms. Until 5 ms: runs 2 + 1.9 + 0.9, switches at 2 and 4.
  const nlohmann::json result =
      schedule(setup_of(SchedulerPolicy::best_effort, 2e-3, 1e-4, 2, {"A", "B"}), {{0, 0, 5e-3}, {1, 0, 3e-3}}, 5e-3);
  EXPECT_NEAR(result["end_s"][0].get<double>(), 8.4e-3, kTolerance_s);
  EXPECT_NEAR(result["end_s"][1].get<double>(), 7.2e-3, kTolerance_s);
  EXPECT_NEAR(result["ran_s"][0].get<double>(), 5e-3, kTolerance_s);
  EXPECT_NEAR(result["ran_s"][1].get<double>(), 3e-3, kTolerance_s);
  EXPECT_NEAR(result["busy_s"].get<double>(), 8e-3, kTolerance_s);
  EXPECT_NEAR(result["switch_s"].get<double>(), 4e-4, kTolerance_s);
  EXPECT_EQ(result["switches"], 4);
  EXPECT_NEAR(result["until"]["busy_s"].get<double>(), 4.8e-3, kTolerance_s);
  EXPECT_NEAR(result["until"]["switch_s"].get<double>(), 2e-4, kTolerance_s);
  EXPECT_EQ(result["until"]["switches"], 2);
  EXPECT_EQ(result["spans"], nlohmann::json({"A", "context switch", "B", "context switch", "A", "context switch", "B",
                                             "context switch", "A"}));
}

TEST(TimeSliceScheduler, FixedShareKeepsTheEmptySlotsOfTheProfilesOtherVgpus) {
  // A T4-4C-like profile: 4 slots of 1 ms, one vGPU with 3 ms of kernels. It runs in slot 0 of each 4 ms round:
  // [0, 1), [4, 5), [8, 9); slots 1 to 3 leave the GPU idle. Ends at 9 ms, busy 3 ms, no switch (nothing else ran).
  const nlohmann::json result =
      schedule(setup_of(SchedulerPolicy::fixed_share, 1e-3, 1e-4, 4, {"A"}), {{0, 0, 3e-3}}, 1.0);
  EXPECT_NEAR(result["end_s"][0].get<double>(), 9e-3, kTolerance_s);
  EXPECT_NEAR(result["busy_s"].get<double>(), 3e-3, kTolerance_s);
  EXPECT_EQ(result["switches"], 0);
  EXPECT_EQ(result["spans"], nlohmann::json({"A", "A", "A"}));
}

TEST(TimeSliceScheduler, EqualShareHoldsAnIdleVgpusSlotAndBestEffortLendsIt) {
  // Two vGPUs, B powered on but idle; A has 3 ms of kernels, slices of 1 ms. Equal share: A runs [0, 1), B's slot
  // [1, 2) stays idle, A [2, 3), idle [3, 4), A [4, 5): ends at 5 ms. Best effort gives A every slice: 3 ms.
  const SchedulerSetup equal = setup_of(SchedulerPolicy::equal_share, 1e-3, 1e-4, 2, {"A", "B"});
  EXPECT_NEAR(schedule(equal, {{0, 0, 3e-3}}, 1.0)["end_s"][0].get<double>(), 5e-3, kTolerance_s);
  const SchedulerSetup best = setup_of(SchedulerPolicy::best_effort, 1e-3, 1e-4, 2, {"A", "B"});
  EXPECT_NEAR(schedule(best, {{0, 0, 3e-3}}, 1.0)["end_s"][0].get<double>(), 3e-3, kTolerance_s);
}

TEST(TimeSliceScheduler, AVgpuArrivingLaterWaitsForTheSliceInProgress) {
  // Best effort, slices of 2 ms, switches of 0.1 ms. A has 3 ms from 0; B 0.5 ms from 0.5 ms. A keeps its slice
  // [0, 2); B's turn comes at 2: switch until 2.1, B runs until 2.6 and ends; then switch back until 2.7 and A runs
  // its last 1 ms until 3.7.
  const nlohmann::json result =
      schedule(setup_of(SchedulerPolicy::best_effort, 2e-3, 1e-4, 2, {"A", "B"}), {{0, 0, 3e-3}, {1, 5e-4, 5e-4}},
               1.0);
  EXPECT_NEAR(result["end_s"][1].get<double>(), 2.6e-3, kTolerance_s);
  EXPECT_NEAR(result["end_s"][0].get<double>(), 3.7e-3, kTolerance_s);
  EXPECT_EQ(result["switches"], 2);
}

TEST(TimeSliceScheduler, ARateChangeTakesEffectAtTheNextTurn) {
  // One vGPU, 2 ms of kernels (their time alone) at half speed until 1.5 ms, then full speed; slices of 1 ms.
  // [0, 1): 1 ms of GPU time at 0.5 does 0.5 ms of the work (1.5 left); [1, 2): the rate read at the turn's start
  // is still 0.5: 0.5 more (1 left); [2, 3): at 1, the last 1 ms. Ends at 3 ms, having taken 3 ms of GPU time.
  const nlohmann::json result = schedule(setup_of(SchedulerPolicy::best_effort, 1e-3, 0, 1, {"A"}), {{0, 0, 2e-3}},
                                         1.0, {{0, 0.5}, {1.5e-3, 1.0}});
  EXPECT_NEAR(result["end_s"][0].get<double>(), 3e-3, kTolerance_s);
  EXPECT_NEAR(result["ran_s"][0].get<double>(), 3e-3, kTolerance_s);
}

}  // namespace
}  // namespace vtsim::sim
