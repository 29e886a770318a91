// Replaying a profiled iteration (docs/traces.md): on the GPU it was traced on, on another one, and as a
// data-parallel job at 4 and 32 GPUs, against the example traces' timelines derived by hand
// (scenarios/traces/make_examples.py; tests/models/traces/traced_iteration_test.cpp derives their stretches).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "models/catalog/gpu_catalog.hpp"
#include "models/compute/compute_fit.hpp"
#include "models/compute/interference.hpp"
#include "models/compute/job_compute.hpp"
#include "models/network/flow_analysis.hpp"
#include "models/network/topology.hpp"
#include "models/resolve/job_compute_plan.hpp"
#include "sim/collectives/communicators.hpp"
#include "sim/engine/simulation.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

using testing::simulate_in_child;

using testing::scenario_of;

constexpr double kUs = 1e-6;

/// The one-GPU MLP trace (or `trace`) as the workload of one job on `hosts` x `gpus` GPUs of `gpu`, bare metal.
nlohmann::json replay_json(const std::string& gpu, int hosts, int gpus,
                           const std::string& trace = "mlp-single-kineto.json") {
  return {{"cluster",
           {{"racks", 1},
            {"hosts_per_rack", hosts},
            {"host", {{"gpus", gpus}, {"gpu_model", gpu}, {"nvlink", {{"present", gpus > 1}}}}}}},
          {"virtualization", {{"mode", "bare_metal"}}},
          {"jobs",
           {{{"workload",
              {{"trace", std::string(VTSIM_SOURCE_DIR) + "/scenarios/traces/" + trace},
               {"measured_on", "a100-80gb-sxm4"}}},
             {"precision", "fp32"},
             {"batch_per_gpu", 64},
             {"iterations", 4},
             {"warmup_iterations", 1}}}}};
}

Scenario replay(const std::string& gpu, int hosts, int gpus, const std::string& trace = "mlp-single-kineto.json") {
  return scenario_of(replay_json(gpu, hosts, gpus, trace));
}

double replay_step_s(const nlohmann::json& result) { return result["jobs"][0]["step_time_s"]["mean"].get<double>(); }

TEST(TraceReplay, OneRankOnTheTracedGpuTakesTheTracedIteration) {
  // The trace's last iteration: 2,127 us from its ProfilerStep's start to its last kernel's end (the hand derivation
  // is in tests/models/traces/traced_iteration_test.cpp).
  EXPECT_NEAR(replay_step_s(simulate_in_child(replay("a100-80gb-sxm4", 1, 1))) / kUs, 2127, 1e-6);
}

TEST(TraceReplay, OneRankOfADdpTraceLeavesOutTheTracedAllreduces) {
  // The DDP trace's backward ends at 2,045 us and its 45 us optimizer waited for the second allreduce; alone on one
  // GPU nothing is reduced: 2,045 + 45 us.
  const nlohmann::json ddp = simulate_in_child(replay("a100-80gb-sxm4", 1, 1, "mlp-ddp-kineto.json"));
  EXPECT_NEAR(replay_step_s(ddp) / kUs, 2090, 1e-6);
}

TEST(TraceReplay, OnAnotherGpuEachKernelClassScalesByTheComputeModelsRate) {
  // On an H100 a GEMM of d us takes f + (d - f) x s_m with s_m the ratio of the two GPUs' fp32 rates x their GEMM
  // efficiencies, a memory-bound kernel f + (d - f) x s_b with the ratio of bandwidths x memory efficiencies (f the
  // kernel fixed cost). Every GEMM and ReLU of the trace queued behind the previous one, so they now run back to
  // back from the first launch's end (5 us); the 16 optimizer kernels of 2 us are below f and launched every 5 us
  // after the CPU waited for the GPU: still 82 us.
  const Scenario scenario = replay("h100-sxm5", 1, 1);
  const GpuSpec& a100 = *find_gpu("a100-80gb-sxm4");
  const GpuSpec& h100 = *find_gpu("h100-sxm5");
  const JobCompute compute = plan_job_compute(scenario, 0, {});
  const Workload& workload = compute.workload;
  const ComputeParameters from =
      resolve_compute(a100, Precision::fp32, workload, 64, {}, published_compute_fit(), {}).parameters;
  const ComputeParameters to =
      resolve_compute(h100, Precision::fp32, workload, 64, {}, published_compute_fit(), {}).parameters;
  ASSERT_EQ(from.kernel_fixed_s, to.kernel_fixed_s);
  const double fixed_us = from.kernel_fixed_s / kUs;
  const double matrix = *a100.peak_flops(Precision::fp32) * from.gemm_efficiency /
                        (*h100.peak_flops(Precision::fp32) * to.gemm_efficiency);
  const double memory = a100.memory_bandwidth_Bps * from.memory_efficiency /
                        (h100.memory_bandwidth_Bps * to.memory_efficiency);
  double expected_us = 5 + 82;
  for (const double gemm_us : {120, 240, 240, 60, 55, 65, 230, 250, 230, 250, 110, 130}) {
    expected_us += fixed_us + (gemm_us - fixed_us) * matrix;
  }
  expected_us += 4 * (fixed_us + (15 - fixed_us) * memory);
  EXPECT_LT(matrix, 0.5);  // a case where the host does not catch up with the GPU
  EXPECT_NEAR(compute.kernels.total_s() / kUs, expected_us, 1e-6);
  EXPECT_NEAR(replay_step_s(simulate_in_child(scenario)) / kUs, expected_us, 1e-6);
}

TEST(TraceReplay, OnAMigSliceKernelsSlowByItsShareOfSmsAndMemory) {
  // A 3g.40gb instance of the A100 80GB the trace was taken on: 42 of its 108 SMs and 4 of its 8 memory slices (NVIDIA
  // MIG user guide; models/catalog/mig_catalog.cpp), with the GPU's own efficiencies and fixed cost f. A GEMM's time
  // above f grows by 108 / 42, a memory-bound kernel's by 8 / 4; the kernels stay queued behind each other from the
  // first launch's end (5 us), and the host-paced optimizer keeps its 82 us.
  nlohmann::json json = {{"cluster", {{"host", {{"gpus", 1}, {"gpu_model", "a100-80gb-sxm4"}}}}},
                         {"virtualization", {{"mode", "mig"}, {"mig_profile", "3g.40gb"}}},
                         {"jobs",
                          {{{"workload",
                             {{"trace", std::string(VTSIM_SOURCE_DIR) + "/scenarios/traces/mlp-single-kineto.json"},
                              {"measured_on", "a100-80gb-sxm4"}}},
                            {"precision", "fp32"},
                            {"batch_per_gpu", 64},
                            {"iterations", 4},
                            {"warmup_iterations", 1}}}}};
  const Scenario scenario = scenario_of(json);
  const JobCompute compute = plan_job_compute(scenario, 0, {});
  const double fixed_us = compute.resolved.parameters.kernel_fixed_s / kUs;
  double expected_us = 5 + 82;
  for (const double gemm_us : {120, 240, 240, 60, 55, 65, 230, 250, 230, 250, 110, 130}) {
    expected_us += fixed_us + (gemm_us - fixed_us) * 108.0 / 42.0;
  }
  expected_us += 4 * (fixed_us + (15 - fixed_us) * 8.0 / 4.0);
  EXPECT_NEAR(compute.kernels.total_s() / kUs, expected_us, 1e-6);
  EXPECT_NEAR(replay_step_s(simulate_in_child(scenario)) / kUs, expected_us, 1e-6);
}

// DDP over the one-GPU trace's gradients (4 bytes x each AccumulateGrad's shape): registration order (backward's
// reversed) is bias0 4,096, W0 4,194,304, bias1 8,192, W1 8,388,608, bias2 4,096, W2 8,388,608, bias3 40, W3 40,960
// bytes. The first bucket closes at 1 MiB: {bias0, W0}; the rest, 16,830,504 bytes, stay under 25 MiB: one bucket.
// The large bucket's gradients are all ready when layer 1's backward ends (1,805 us into the traced iteration), the
// small one's when layer 0's does (2,045 us); the optimizer (82 us) follows the last allreduce.
constexpr double kGradientBytes = 4.0 * (1024 * 1024 + 1024 + 2048 * 1024 + 2048 + 1024 * 2048 + 1024 + 10 * 1024 + 10);
constexpr double kLargeBucketBytes = 8192 + 8388608 + 4096 + 8388608 + 40 + 40960;

void expect_traced_overlap(const Scenario& scenario) {
  const nlohmann::json job = simulate_in_child(scenario)["jobs"][0];
  EXPECT_DOUBLE_EQ(job["allreduce"]["bytes_per_step"].get<double>(), kGradientBytes);
  EXPECT_DOUBLE_EQ(job["allreduce"]["calls_per_step"].get<double>(), 2);
  const double large_s = testing::simulated_allreduce_s(scenario, kLargeBucketBytes);
  const double small_s = testing::simulated_allreduce_s(scenario, kGradientBytes - kLargeBucketBytes);
  const double expected_s = std::max(2045 * kUs, 1805 * kUs + large_s) + small_s + 82 * kUs;
  // The derivation leaves out what the large allreduce takes from layer 0's backward (240 us) while they overlap
  // (models/compute/interference.hpp): its channels' SMs, which stretch that compute by at most share / (1 - share)
  // over the overlap, and its share of the GPU's memory (within 1%). Without the overlap the step would be 2,127 us
  // plus both allreduces.
  const Topology topology = scenario_topology(scenario, {});
  const double share = collective_sm_share(
      nccl_running_channels(nccl_communicator(nccl_device(scenario), job_rings(scenario, 0, topology), topology)),
      find_gpu(scenario.cluster.host.gpu_model)->sm_count);
  const double stretch_s = std::min(large_s, 240 * kUs) * share / (1 - share);
  EXPECT_NEAR(replay_step_s({{"jobs", {job}}}), expected_s, 0.01 * expected_s + stretch_s);
  EXPECT_GT(2127 * kUs + large_s + small_s - expected_s, 0.02 * expected_s) << "a case where overlap shows";
}

TEST(TraceReplay, DataParallelAtFourGpusReducesTheTracedGradientsWhereTheTraceMadeThem) {
  expect_traced_overlap(replay("a100-80gb-sxm4", 1, 4));
}

TEST(TraceReplay, DataParallelAtThirtyTwoGpusReducesTheTracedGradientsWhereTheTraceMadeThem) {
  expect_traced_overlap(replay("a100-80gb-sxm4", 4, 8));
}

// Horovod over the one-GPU trace on 4 A100s, without variability. Its coordinator wakes at the first gradient the
// ranks report, waits for the next multiple of the cycle time, negotiates (4 messages over NVLink, microseconds), and
// fuses the gradients every rank had reported by that tick into buffers of at most the fusion threshold, in the order
// they became ready. That order is AccumulateGrad's (make_examples.py), each pair when its layer's backward ends:
// W3 40,960 and b3 40 bytes at 845 us into the iteration, W2 8,388,608 and b2 4,096 at 1,325 us, W1 8,388,608 and
// b1 8,192 at 1,805 us, W0 4,194,304 and b0 4,096 at 2,045 us (later where an allreduce running meanwhile takes SMs
// from layer 0's backward); the optimizer (82 us) follows the last allreduce. Each case holds for an iteration
// starting delta after a tick T, delta being the negotiation, the last allreduce and the optimizer (the
// preconditions below):
// - cycle 5 ms: every gradient is ready by T + delta + 2,045 us, before T + 5 ms: one buffer, the next iteration
//   starts at T + 5 ms + delta, and each step is one cycle;
// - cycle 2 ms: the tick at T + 2 ms takes W3 to b1 (ready by T + delta + 1,805 us, delta < 195 us), and their
//   allreduce ends before T + 4 ms; that tick takes W0 and b0 (ready after T + delta + 2,045 us): two buffers,
//   4 ms per step;
// - cycle 5 ms, fusion threshold 1 MiB: a buffer closes before a tensor would take it past 1 MiB: {W3, b3}, {W2},
//   {b2}, {W1}, {b1}, {W0}, {b0}, seven allreduces, one after the other within the cycle, 5 ms per step.
TEST(Horovod, FourRanksStepAtTheCoordinatorsTicksAndReduceWhatEachTickAgreed) {
  const auto horovod = [](double cycle_ms, double fusion_mib) {
    nlohmann::json json = replay_json("a100-80gb-sxm4", 1, 4);
    json["simulation"] = {{"variability", false}};
    json["jobs"][0]["data_parallel"] = "horovod";
    json["jobs"][0]["horovod"] = {{"cycle_time_ms", cycle_ms}, {"fusion_threshold_mib", fusion_mib}};
    return scenario_of(json);
  };
  const Scenario scenario = horovod(5, 64);
  // The preconditions. Negotiation: 2 ceil(log2 4) messages, each at the largest latency between ring neighbours.
  constexpr double kNegotiationBoundS = 20 * kUs;
  const Topology topology = scenario_topology(scenario, {});
  double message_s = 0;
  for (const GpuFlow& flow : ring_flows(job_rings(scenario, 0, topology).ring)) {
    message_s = std::max(message_s, topology.latency_s(topology.route(flow.src, flow.dst)));
  }
  ASSERT_LT(4 * message_s, kNegotiationBoundS);
  const auto allreduce_s = [&](double bytes) { return testing::simulated_allreduce_s(scenario, bytes); };
  constexpr double kLastBytes = 4.0 * (1024 * 1024 + 1024);  // W0 and b0
  ASSERT_LT(kNegotiationBoundS + allreduce_s(kGradientBytes) + 82 * kUs, 5000 * kUs - 2045 * kUs);
  ASSERT_LT(kNegotiationBoundS + allreduce_s(kLastBytes) + 82 * kUs, 2000 * kUs - 1805 * kUs);
  ASSERT_LT(kNegotiationBoundS + allreduce_s(kGradientBytes - kLastBytes), 2000 * kUs);
  double seven_s = 0;
  for (const double bytes : {41000.0, 8388608.0, 4096.0, 8388608.0, 8192.0, 4194304.0, 4096.0}) {
    seven_s += allreduce_s(bytes);
  }
  ASSERT_LT(kNegotiationBoundS + seven_s + 82 * kUs, 5000 * kUs - 2045 * kUs);
  for (const auto& [cycle_ms, fusion_mib, step_ms, calls] :
       std::vector<std::tuple<double, double, double, double>>{{5, 64, 5, 1}, {2, 64, 4, 2}, {5, 1, 5, 7}}) {
    const nlohmann::json job = simulate_in_child(horovod(cycle_ms, fusion_mib))["jobs"][0];
    const std::string name = std::to_string(cycle_ms) + " ms cycle, " + std::to_string(fusion_mib) + " MiB fusion";
    EXPECT_NEAR(replay_step_s({{"jobs", {job}}}), step_ms * 1e-3, 1e-12) << name;
    EXPECT_EQ(job["allreduce"]["calls_per_step"].get<double>(), calls) << name;
    EXPECT_DOUBLE_EQ(job["allreduce"]["bytes_per_step"].get<double>(), kGradientBytes) << name;
  }
}

}  // namespace
}  // namespace vtsim::sim
