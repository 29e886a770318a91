// vSphere operations on a running simulation (sim/operations/operations.hpp), against hand derivations: a stun of S
// seconds adds S; a host failure loses the work since the last checkpoint plus the restart; a pre-copy takes its bytes
// over what the NIC leaves it. Variability is off: every undisturbed iteration takes the same time.

#include "sim/operations/operations.hpp"

#include <gtest/gtest.h>

#include "models/compute/memory_model.hpp"
#include "models/workload/workload_catalog.hpp"
#include "runner/point_runner.hpp"
#include "sim/engine/simulation.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

/// Two hosts of one T4 each (vGPU T4-16C, the whole GPU), a ConnectX-5 100 GbE each, ResNet-50 over both.
nlohmann::json two_t4_hosts() {
  return {{"cluster",
           {{"hosts_per_rack", 2},
            {"host", {{"gpus", 1}, {"gpu_model", "t4"}, {"nics", 1}, {"nic_model", "connectx-5-100gbe"}}},
            {"transport", "roce_v2"}}},
          {"virtualization", {{"mode", "vgpu"}}},
          {"jobs", {{{"name", "r50"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"iterations", 10},
                     {"warmup_iterations", 1}}}}};
}

nlohmann::json run(const nlohmann::json& json) {
  const Scenario scenario = testing::scenario_of(json);
  return vtsim::sim::run_isolated([&] { return to_json(runner::simulate(scenario)); });
}

/// Operations whose vMotion costs exactly a 2 s stun (no framebuffer term) after a pre-copy of 1 KiB, which takes no
/// time worth counting.
nlohmann::json two_second_stun() {
  return {{"stun_fixed_s", 2.0}, {"stun_s_per_framebuffer_gib", 0.0}, {"vm_memory_gib", 1.0 / (1 << 20)}};
}

double time_to_train_s(const nlohmann::json& result) {
  return result["jobs"][0]["operations"]["time_to_train_s"].get<double>();
}

TEST(Operations, AVmotionStunOfSSecondsAddsSToTheRun) {
  nlohmann::json json = two_t4_hosts();
  json["operations"] = two_second_stun();
  const nlohmann::json quiet = run(json);
  json["events"] = {{{"type", "vmotion"}, {"host", 1}, {"at_iteration", 3}}};
  const nlohmann::json moved = run(json);
  EXPECT_NEAR(time_to_train_s(moved) - time_to_train_s(quiet), 2.0, 1e-6);
  const nlohmann::json& cost = moved["events"][0]["jobs"][0];
  EXPECT_DOUBLE_EQ(cost["stun_s"].get<double>(), 2.0);
  EXPECT_NEAR(cost["cost_s"].get<double>(), 2.0, 1e-6);
  EXPECT_NEAR(moved["jobs"][0]["operations"]["time_to_train_without_events_s"].get<double>(), time_to_train_s(quiet),
              1e-6);
  // The stunned iteration and the one the pre-copy ran in are left out of the step figures, which stay those of the
  // quiet run.
  EXPECT_NEAR(moved["jobs"][0]["step_time_s"]["mean"].get<double>(),
              quiet["jobs"][0]["step_time_s"]["mean"].get<double>(), 1e-9);
  EXPECT_EQ(moved["jobs"][0]["step_times_s"].size() + 2, quiet["jobs"][0]["step_times_s"].size());
}

TEST(Operations, TheStunGrowsWithTheFramebufferTheJobUses) {
  // Defaults: 1.6667 s + 1.19048 s per GiB in use at 10 GbE (VMware's vSphere 7.0 vGPU vMotion table), here over
  // the hosts' ConnectX-5 100 GbE (its datasheet line rate): a tenth of that per GiB; one rank's memory on the host.
  nlohmann::json json = two_t4_hosts();
  json["operations"] = {{"vm_memory_gib", 1.0 / (1 << 20)}};
  json["events"] = {{{"type", "vmotion"}, {"host", 0}, {"at_s", 0.5}}};
  const nlohmann::json result = run(json);
  // One rank's footprint from the memory model (tested against its closed form in tests/models).
  const double in_use_gib = memory_footprint(make_resnet50(), 32, Precision::fp16).total_bytes() /
                            (1024.0 * 1024 * 1024);
  const nlohmann::json& cost = result["events"][0]["jobs"][0];
  EXPECT_NEAR(cost["framebuffer_gib"].get<double>(), in_use_gib, 1e-12);
  EXPECT_NEAR(cost["stun_s"].get<double>(), 1.6667 + 1.19048 / 10 * in_use_gib, 1e-9);
  EXPECT_FALSE(cost["over_stun_limit"].get<bool>());
}

TEST(Operations, APreCopyTakesItsBytesOverWhatTheNicLeavesIt) {
  // 8 GiB of guest memory leaves through host 0's NIC, beside the job's ring: at most the spare host's TCP rate
  // (100 Gb/s x 1448/1538), slower where the ring's flows take their share; the job's iterations meanwhile slow down.
  nlohmann::json json = two_t4_hosts();
  json["operations"] = {{"vm_memory_gib", 8.0}, {"stun_fixed_s", 0.0}, {"stun_s_per_framebuffer_gib", 0.0}};
  json["jobs"][0]["iterations"] = 40;
  json["events"] = {{{"type", "vmotion"}, {"host", 0}, {"at_iteration", 1}}};
  const nlohmann::json result = run(json);
  const nlohmann::json& cost = result["events"][0]["jobs"][0];
  const double bytes = 8.0 * 1024 * 1024 * 1024;
  EXPECT_GT(cost["precopy_s"].get<double>(), bytes / (100e9 / 8 * 1448.0 / 1538.0));
  EXPECT_GT(cost["precopy_slowdown_s"].get<double>(), 0.0);
  EXPECT_NEAR(cost["cost_s"].get<double>(), cost["precopy_slowdown_s"].get<double>(), 1e-12);  // no stun
}

TEST(Operations, AHostFailureLosesTheWorkSinceTheLastCheckpointPlusTheRestart) {
  // Checkpoints every 4 iterations (warm-up included), 1 GB each at 1 GB/s: 1 s to write, 1 s to read back. The
  // failure comes as rank 0 starts iteration 6: the checkpoint after iteration 3 holds 4 iterations; iterations 4, 5
  // and 6 are lost. The
  // run is longer by the work since the checkpoint (iterations 4 and 5, 2 steps) plus the restart: 15 s detection,
  // 60 s boot, 30 s job restart, 1 s read-back.
  nlohmann::json json = two_t4_hosts();
  json["jobs"][0]["checkpoint"] = {{"interval_iterations", 4}, {"size_gb", 1.0}, {"storage_bandwidth_gbps", 8.0}};
  const nlohmann::json quiet = run(json);
  json["events"] = {{{"type", "host_failure"}, {"host", 0}, {"at_iteration", 6}}};
  const nlohmann::json failed = run(json);
  const double step_s = quiet["jobs"][0]["step_time_s"]["mean"].get<double>();
  const double restart_s = 15 + 60 + 30 + 1.0;
  EXPECT_NEAR(time_to_train_s(failed) - time_to_train_s(quiet), 2 * step_s + restart_s, 1e-6);
  const nlohmann::json& cost = failed["events"][0]["jobs"][0];
  EXPECT_EQ(cost["lost_iterations"].get<int>(), 3);
  EXPECT_NEAR(cost["cost_s"].get<double>(), 2 * step_s + restart_s, 1e-6);
  const nlohmann::json& operations = failed["jobs"][0]["operations"];
  EXPECT_EQ(operations["lost_iterations"].get<int>(), 3);
  EXPECT_EQ(operations["iterations_run"].get<int>(), 14);   // 11, and 3 again
  EXPECT_EQ(operations["checkpoints"].get<int>(), 2);  // after iterations 4 and 8 that count
  EXPECT_DOUBLE_EQ(operations["checkpoint_write_s"].get<double>(), 1.0);
  EXPECT_NEAR(operations["time_to_train_without_events_s"].get<double>(), time_to_train_s(quiet), 1e-6);
}

TEST(Operations, ASecondFailureAfterTheJobResumedLosesOnlyWhatItRanSince) {
  // Checkpoints every 4 iterations (1 s to write, 1 s to read back), as above. Host 0 fails as rank 0 begins
  // iteration 6 (iterations 4, 5 and 6 lost, the job back from the checkpoint after 106 s, at iteration 7); host 1
  // fails as it begins iteration 8, the second re-run: iterations 7 and 8 are lost (2 steps) and the job restarts
  // from the same checkpoint after another 106 s. Each failure costs its own lost steps and restart, not the first's
  // again, and the run without events is the quiet run.
  nlohmann::json json = two_t4_hosts();
  json["jobs"][0]["checkpoint"] = {{"interval_iterations", 4}, {"size_gb", 1.0}, {"storage_bandwidth_gbps", 8.0}};
  const nlohmann::json quiet = run(json);
  json["events"] = {{{"type", "host_failure"}, {"host", 0}, {"at_iteration", 6}},
                    {{"type", "host_failure"}, {"host", 1}, {"at_iteration", 8}}};
  const nlohmann::json failed = run(json);
  const double step_s = quiet["jobs"][0]["step_time_s"]["mean"].get<double>();
  const double restart_s = 15 + 60 + 30 + 1.0;
  const nlohmann::json& first = failed["events"][0]["jobs"][0];
  const nlohmann::json& second = failed["events"][1]["jobs"][0];
  EXPECT_EQ(first["lost_iterations"].get<int>(), 3);
  EXPECT_NEAR(first["cost_s"].get<double>(), 2 * step_s + restart_s, 1e-6);
  EXPECT_FALSE(second["extended_earlier_restart"].get<bool>());
  EXPECT_EQ(second["lost_iterations"].get<int>(), 2);
  EXPECT_NEAR(second["cost_s"].get<double>(), 1 * step_s + restart_s, 1e-6);
  EXPECT_NEAR(second["lost_since_s"].get<double>(), first["resumed_s"].get<double>(), 1e-9);
  // The second failure comes as the job begins iteration 8 after it resumed, not while it waited.
  EXPECT_GT(failed["events"][1]["at_s"].get<double>(), first["resumed_s"].get<double>());
  const nlohmann::json& operations = failed["jobs"][0]["operations"];
  EXPECT_EQ(operations["lost_iterations"].get<int>(), 5);
  EXPECT_EQ(operations["iterations_run"].get<int>(), 16);  // 11, and 5 again
  EXPECT_NEAR(time_to_train_s(failed) - time_to_train_s(quiet), 3 * step_s + 2 * restart_s, 1e-6);
  EXPECT_NEAR(operations["time_to_train_without_events_s"].get<double>(), time_to_train_s(quiet), 1e-6);
}

TEST(Operations, WithoutACheckpointAFailureLosesEverythingSinceTheStart) {
  nlohmann::json json = two_t4_hosts();
  json["events"] = {{{"type", "host_failure"}, {"host", 1}, {"at_s", 1.0}}};
  const nlohmann::json failed = run(json);
  const nlohmann::json& cost = failed["events"][0]["jobs"][0];
  EXPECT_DOUBLE_EQ(cost["checkpoint_end_s"].get<double>(), 0.0);
  EXPECT_NEAR(cost["cost_s"].get<double>(), 1.0 + 15 + 60 + 30, 1e-9);  // no checkpoint to read back
}

TEST(Operations, MaintenanceMovesEveryVmOfTheHost) {
  // Two jobs, each with a rank on each of two hosts of two T4s: evacuating host 0 moves both jobs' VMs there.
  nlohmann::json json = two_t4_hosts();
  json["cluster"]["host"]["gpus"] = 2;
  json["jobs"] = {{{"name", "a"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"gpus", {0, 2}}},
                  {{"name", "b"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"gpus", {1, 3}}}};
  json["operations"] = {{"vm_memory_gib", 1.0}, {"stun_fixed_s", 1.0}, {"stun_s_per_framebuffer_gib", 0.0}};
  json["events"] = {{{"type", "maintenance"}, {"host", 0}, {"at_s", 0.2}}};
  const nlohmann::json result = run(json);
  const nlohmann::json& moved = result["events"][0]["jobs"];
  ASSERT_EQ(moved.size(), 2u);
  EXPECT_EQ(moved[0]["job"], "a");
  EXPECT_EQ(moved[1]["job"], "b");
  for (const nlohmann::json& cost : moved) EXPECT_GE(cost["cost_s"].get<double>(), 1.0);
}

TEST(Operations, TwoStunsBeforeOneIterationCostItOnce) {
  // Both VMs of the job are moved at once: each pre-copy of 1 KiB ends at once, both stuns of 2 s come before the
  // same iteration, side by side: the run is 2 s longer, not 4, and the second event adds nothing beyond the first.
  nlohmann::json json = two_t4_hosts();
  json["operations"] = two_second_stun();
  const nlohmann::json quiet = run(json);
  json["events"] = {{{"type", "vmotion"}, {"host", 0}, {"at_iteration", 3}},
                    {{"type", "vmotion"}, {"host", 1}, {"at_iteration", 3}}};
  const nlohmann::json moved = run(json);
  EXPECT_NEAR(time_to_train_s(moved) - time_to_train_s(quiet), 2.0, 1e-6);
  EXPECT_NEAR(moved["events"][0]["jobs"][0]["cost_s"].get<double>(), 2.0, 1e-6);
  EXPECT_NEAR(moved["events"][1]["jobs"][0]["cost_s"].get<double>(), 0.0, 1e-6);
  EXPECT_NEAR(moved["jobs"][0]["operations"]["time_to_train_without_events_s"].get<double>(), time_to_train_s(quiet),
              1e-6);
}

TEST(Operations, AFailureWhileTheJobIsDownOnlyKeepsItDownLonger) {
  // No checkpoints. Host 0 fails at 1 s: everything since the start is lost, the job is back at 1 + 105 s. Host 1
  // fails at 10 s, while the job waits: it is back at 10 + 105 s instead, 9 s later, and loses nothing more.
  nlohmann::json json = two_t4_hosts();
  const nlohmann::json quiet = run(json);
  json["events"] = {{{"type", "host_failure"}, {"host", 0}, {"at_s", 1.0}},
                    {{"type", "host_failure"}, {"host", 1}, {"at_s", 10.0}}};
  const nlohmann::json failed = run(json);
  const nlohmann::json& first = failed["events"][0]["jobs"][0];
  const nlohmann::json& second = failed["events"][1]["jobs"][0];
  EXPECT_NEAR(first["cost_s"].get<double>(), 1.0 + 105, 1e-9);
  EXPECT_NEAR(second["cost_s"].get<double>(), 9.0, 1e-9);
  EXPECT_TRUE(second["extended_earlier_restart"].get<bool>());
  EXPECT_EQ(second["lost_iterations"].get<int>(), 0);
  // The run starts again from nothing, but its first batch was loaded during the job's restart, where the first
  // start waited for it: 32 images x 5 ms x 1.02 (the VM's CPU overhead) on 23 loader cores.
  EXPECT_NEAR(time_to_train_s(failed) - time_to_train_s(quiet), 115.0 - 32 * 5e-3 * 1.02 / 23, 1e-6);
}

TEST(Operations, AStunTheJobEndsBeforeIsNotCharged) {
  // A vMotion as the last iteration starts: its stun would come before an iteration the job never runs.
  nlohmann::json json = two_t4_hosts();
  json["operations"] = two_second_stun();
  const nlohmann::json quiet = run(json);
  json["events"] = {{{"type", "vmotion"}, {"host", 1}, {"at_iteration", 10}}};
  const nlohmann::json moved = run(json);
  const nlohmann::json& cost = moved["events"][0]["jobs"][0];
  EXPECT_FALSE(cost["completed"].get<bool>());
  EXPECT_NEAR(cost["cost_s"].get<double>(), 0.0, 1e-6);
  EXPECT_NEAR(time_to_train_s(moved), time_to_train_s(quiet), 1e-6);
}

TEST(Operations, TenantsAloneRunWithoutTheEvents) {
  // Two tenants, a vMotion of the second's VM: each tenant's alone run (its baseline) has no events to name it.
  nlohmann::json json = two_t4_hosts();
  json["cluster"]["host"]["gpus"] = 2;
  json["jobs"] = {{{"name", "a"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"gpus", {0, 2}}},
                  {{"name", "b"}, {"workload", "resnet-50"}, {"batch_per_gpu", 32}, {"gpus", {1, 3}}}};
  json["operations"] = {{"vm_memory_gib", 1.0}, {"stun_fixed_s", 1.0}, {"stun_s_per_framebuffer_gib", 0.0}};
  json["events"] = {{{"type", "vmotion"}, {"host", 1}, {"job", "b"}, {"at_iteration", 2}}};
  const Scenario scenario = testing::scenario_of(json);
  const nlohmann::json result = vtsim::runner::simulate_point(scenario, "");
  ASSERT_EQ(result["tenants"].size(), 2u);
  EXPECT_EQ(result["events"][0]["jobs"][0]["job"], "b");
}

TEST(Operations, AnEventAfterTheJobsEndIsNotReached) {
  nlohmann::json json = two_t4_hosts();
  json["events"] = {{{"type", "vmotion"}, {"host", 0}, {"at_s", 1e6}}};
  const nlohmann::json result = run(json);
  EXPECT_FALSE(result["events"][0]["reached"].get<bool>());
  EXPECT_LT(result["simulated_time_s"].get<double>(), 1e6);
}

}  // namespace
}  // namespace vtsim::sim
