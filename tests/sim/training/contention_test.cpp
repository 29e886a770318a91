// Kernels and collectives share a GPU's memory bandwidth both ways (models/compute/interference.hpp): the split by
// hand, the memory links of the platform re-rating a flow in progress, and a job whose kernels lose time to memory
// alone.

#include <gtest/gtest.h>

#include <simgrid/s4u/Comm.hpp>

#include "models/compute/interference.hpp"
#include "sim/engine/simulation.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

using testing::scenario_of;

TEST(MemoryShares, BothDemandsAreMetWhenTheyFit) {
  const MemoryShares shares = share_memory(1000, 300, 600);
  EXPECT_DOUBLE_EQ(shares.kernels_Bps, 300);
  EXPECT_DOUBLE_EQ(shares.collective_Bps, 600);
}

TEST(MemoryShares, TheSmallerDemandIsMetAndTheOtherTakesTheRest) {
  // 900 + 400 > 1000: the collective's 400 is under half, so it is met; the kernels get 600 of their 900.
  MemoryShares shares = share_memory(1000, 900, 400);
  EXPECT_DOUBLE_EQ(shares.kernels_Bps, 600);
  EXPECT_DOUBLE_EQ(shares.collective_Bps, 400);
  shares = share_memory(1000, 200, 2000);
  EXPECT_DOUBLE_EQ(shares.kernels_Bps, 200);
  EXPECT_DOUBLE_EQ(shares.collective_Bps, 800);
}

TEST(MemoryShares, TwoLargeDemandsSplitEvenly) {
  const MemoryShares shares = share_memory(1000, 700, 800);
  EXPECT_DOUBLE_EQ(shares.kernels_Bps, 500);
  EXPECT_DOUBLE_EQ(shares.collective_Bps, 500);
}

TEST(MemoryLinks, LimitAFlowToAThirdOfTheMemoryAndReRateItInFlight) {
  // Two A100s on NVLink; memory given as 60 GB/s so that it, not the 12-link NVLink, is the bottleneck. A flow out of
  // GPU 0 and into GPU 1 crosses both GPUs' memory links: 60 x 2/3 = 40 GB/s each, one flow on each. At t = 50 ms the
  // collective's share of GPU 0's memory drops to 30 GB/s: its link to 20 GB/s.
  const Scenario scenario = scenario_of({{"cluster", {{"host", {{"gpus", 2}, {"gpu_model", "a100-40gb-sxm4"}}}}},
                                         {"jobs", {{{"workload", "resnet-50"}, {"batch_per_gpu", 32}}}}});
  const Topology topology = scenario_topology(scenario, {});
  const double latency_s = topology.latency_s(topology.route(0, 1));
  const double end_s = vtsim::sim::run_isolated([&] {
    const auto engine = testing::test_engine(2);
    const Platform platform(topology, {}, 60e9);
    double end = 0;
    simgrid::s4u::Actor::create("sender", platform.gpu_host(0), [&] {
      simgrid::s4u::Comm::sendto(platform.gpu_host(0), platform.gpu_host(1), 4e9);
      end = simgrid::s4u::Engine::get_clock();
    });
    simgrid::s4u::Actor::create("kernels", platform.gpu_host(0), [&] {
      simgrid::s4u::this_actor::sleep_for(0.05);
      platform.set_collective_memory(0, 30e9);
    });
    engine->run();
    return nlohmann::json(end);
  }).get<double>();
  // Data moves from `latency_s` at 40 GB/s until 50 ms, then the rest at 20 GB/s.
  const double moved = (0.05 - latency_s) * 40e9;
  EXPECT_NEAR(end_s, 0.05 + (4e9 - moved) / 20e9, 1e-9);
}

nlohmann::json two_a100s(double cycle_time_ms) {
  Scenario scenario = scenario_of(
      {{"cluster", {{"host", {{"gpus", 2}, {"gpu_model", "a100-40gb-sxm4"}}}}},
       {"jobs",
        {{{"workload", "bert-large-squad-seq384"}, {"batch_per_gpu", 8}, {"iterations", 4}, {"data_parallel", "horovod"},
          {"horovod", {{"cycle_time_ms", cycle_time_ms}}}, {"data_loading_cpu_ms_per_sample", 0}}}}});
  // The collective's kernels take no SMs, as a profile could have measured: what slows compute is memory alone.
  CalibratedParameters measured;
  measured.collective_sm_share = CalibratedValue{0.0, "test profile"};
  scenario.calibration_profile = "test-profile.json";
  return vtsim::sim::run_isolated([&] { return to_json(runner::simulate(scenario, measured)); })["jobs"][0];
}

TEST(MemoryContention, SlowsKernelsOnlyWhereACollectiveOverlapsThem) {
  // Horovod ticking every 5 ms reduces gradients while backward runs: the kernels share memory with the collective.
  const nlohmann::json overlapped = two_a100s(5);
  EXPECT_GT(overlapped["breakdown_s"]["of_which_interference"].get<double>(), 0.0) << overlapped["breakdown_s"].dump();
  // A tick longer than the iteration reduces everything after backward: nothing overlaps, nothing is slowed.
  const nlohmann::json after = two_a100s(1000);
  // Exactly 0: the kernels' sums of slowed and alone times differ by rounding only, which results print as 0.
  EXPECT_EQ(after["breakdown_s"]["of_which_interference"].get<double>(), 0.0) << after["breakdown_s"].dump();
}

/// Two A100s without P2P (NVLink off: both paths stage through host memory) training VGG-16 (long backward kernels,
/// short allreduces that start and end inside them) under Horovod, on vGPUs time-sliced with an idle co-tenant (best
/// effort: the busy one has the GPU) or passed through, the collective's kernels taking half the SMs (as a profile
/// could have measured).
nlohmann::json half_sm_share(bool time_sliced) {
  nlohmann::json json = {
      {"cluster", {{"host", {{"gpus", 2}, {"gpu_model", "a100-40gb-sxm4"}, {"nvlink", {{"enabled", false}}}}}}},
      {"virtualization", {{"mode", "passthrough"}}},
      {"jobs",
       {{{"name", "train"}, {"workload", "vgg-16"}, {"batch_per_gpu", 64}, {"gpus", 2}, {"iterations", 10},
         {"data_parallel", "horovod"}, {"horovod", {{"cycle_time_ms", 1}}}, {"data_loading_cpu_ms_per_sample", 0}}}}};
  if (time_sliced) {
    json["virtualization"] = {{"mode", "vgpu"}, {"vgpu_profile", "A100X-20C"}, {"scheduler", {{"policy", "best_effort"}}}};
    json["jobs"].push_back({{"name", "idle"}, {"idle", true}, {"gpus", 2}});
  }
  Scenario scenario = scenario_of(json);
  CalibratedParameters measured;
  measured.collective_sm_share = CalibratedValue{0.5, "test profile"};
  scenario.calibration_profile = "test-profile.json";
  return vtsim::sim::run_isolated([&] { return to_json(runner::simulate(scenario, measured)); })["jobs"][0];
}

TEST(Contention, ATimeSlicedVgpuReRatesItsKernelsAsCollectivesComeAndGo) {
  // With the GPU to itself (its co-tenant idle), a time-sliced vGPU runs as a passed-through GPU does, and so must its
  // kernels' slowdown: re-rated at each turn (2 ms slices), not decided for a whole stretch when it starts.
  const nlohmann::json sliced = half_sm_share(true);
  const nlohmann::json whole = half_sm_share(false);
  const double expected = whole["breakdown_s"]["of_which_interference"].get<double>();
  ASSERT_GT(expected, 0.0);
  EXPECT_NEAR(sliced["breakdown_s"]["of_which_interference"].get<double>(), expected, 0.03 * expected)
      << sliced["breakdown_s"].dump() << " vs " << whole["breakdown_s"].dump();
  EXPECT_NEAR(sliced["step_time_s"]["mean"].get<double>(), whole["step_time_s"]["mean"].get<double>(),
              0.01 * whole["step_time_s"]["mean"].get<double>());
}

}  // namespace
}  // namespace vtsim::sim
