#include "models/traces/traced_iteration.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "models/core/error.hpp"
#include "models/core/input_file.hpp"
#include "models/traces/kineto_trace.hpp"
#include "tests/models/models_test_support.hpp"

namespace vtsim {
namespace {

using nlohmann::json;

using test_support::kUs;

ProfiledRun example(const std::string& name) {
  const std::string path = (std::filesystem::path(VTSIM_SOURCE_DIR) / "scenarios" / "traces" / name).string();
  return read_kineto_trace(read_input_file(path), path);
}

std::vector<double> spans_us(const TracedIteration& cut, const KernelClassScale& scale) {
  std::vector<double> spans;
  for (const TracedStretch& stretch : cut.backward) spans.push_back(replay_stretch(stretch, scale).span_s / kUs);
  spans.push_back(replay_stretch(cut.optimizer, scale).span_s / kUs);
  return spans;
}

void expect_near_all(const std::vector<double>& actual, const std::vector<double>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t k = 0; k < actual.size(); ++k) EXPECT_NEAR(actual[k], expected[k], 1e-6) << "stretch " << k;
}

// scenarios/traces/make_examples.py's DDP trace, derived by hand from its rules (kernels launched every 5 us, each
// starting when its launch returned and its stream is free): forward 4 x (GEMM + 15 us ReLU) ends at 725 us; layer 3's
// and 2's backward GEMMs (55, 65, 230, 250) end at 1,325 us, where bucket {3, 2}'s allreduce is launched (CPU 60 us);
// layers 1 and 0 (230, 250, 110, 130) end at 2,045 us, bucket {1, 0}'s allreduce is launched at 85 us. The first
// allreduce runs 1,325-2,084.033 us (8,433,704 bytes at 90 us/MB, printed to the ns), the second 1,133.568 us to
// 3,217.601 us, the 45 us optimizer after it: the iteration ends at 3,262.601 us after its step began.
TEST(TracedIteration, CutsADdpTraceAtItsBucketsAllreduces) {
  const ProfiledRun trace = example("mlp-ddp-kineto.json");
  const TracedIteration cut = traced_iteration(trace, 0);
  EXPECT_TRUE(cut.traced_buckets);
  EXPECT_EQ(cut.traced_ranks, 2);
  EXPECT_EQ(cut.step_number, 1);
  ASSERT_EQ(cut.backward.size(), 2u);
  EXPECT_DOUBLE_EQ(cut.backward[0].gradient_bytes, 4.0 * (2048 * 1024 + 1024 + 1024 * 10 + 10));
  EXPECT_DOUBLE_EQ(cut.backward[1].gradient_bytes, 4.0 * (1024 * 1024 + 1024 + 2048 * 1024 + 2048));
  EXPECT_EQ(cut.kernels, 4 * 2 + 4 * 2 + 1);
  // Replayed on the traced GPU: 1,325 us, then 2,045 - 1,325, then the optimizer's 45 us.
  expect_near_all(spans_us(cut, {}), {1325, 720, 45});
  EXPECT_NEAR(cut.iteration_s / kUs, 3262.601, 1e-6);
  EXPECT_NEAR(cut.exposed_communication_s / kUs, 3217.601 - 2045, 1e-6);
}

// The one-rank trace: the same MLP without DDP; AccumulateGrad stores each weight's gradient then its bias's after
// the layer's weight-gradient GEMM is launched (CPU 50, 53; 66, 69; 82, 85; 98, 101 us). The stretches end where the
// GPU work launched before each op ends: 845 us (forward and layer 3), nothing more for the bias, 1,325 - 845, 0,
// 1,805 - 1,325, 0, 2,045 - 1,805, 0. The CPU then waits for the GPU (GradScaler) and launches 16 optimizer kernels of
// 2 us every 5 us, each starting when its launch returns: the last ends 5 x 16 + 2 = 82 us after backward.
TEST(TracedIteration, CutsAOneRankTraceAtItsAccumulateGradOps) {
  const ProfiledRun trace = example("mlp-single-kineto.json");
  const TracedIteration cut = traced_iteration(trace, 2);
  EXPECT_FALSE(cut.traced_buckets);
  EXPECT_EQ(cut.traced_ranks, 1);
  EXPECT_EQ(cut.step_number, 3);
  std::vector<double> bytes;
  for (const TracedStretch& stretch : cut.backward) bytes.push_back(stretch.gradient_bytes);
  EXPECT_EQ(bytes, (std::vector<double>{4.0 * 10 * 1024, 4.0 * 10, 4.0 * 1024 * 2048, 4.0 * 1024, 4.0 * 2048 * 1024,
                                        4.0 * 2048, 4.0 * 1024 * 1024, 4.0 * 1024}));
  expect_near_all(spans_us(cut, {}), {845, 0, 480, 0, 480, 0, 240, 0, 82});
  EXPECT_NEAR(cut.iteration_s / kUs, 2127, 1e-6);
  EXPECT_DOUBLE_EQ(cut.exposed_communication_s, 0);
}

// The same trace with GEMMs twice and memory-bound kernels four times as fast above a 3 us fixed cost: a GEMM of
// d us takes 3 + (d - 3) / 2, a ReLU 3 + 12 / 4 = 6; the 2 us optimizer kernels are below the fixed cost and keep
// their time. Queued kernels move up: the first stretch is 5 + forward (61.5 + 121.5 + 121.5 + 31.5 + 4 x 6) +
// layer 3 (29 + 34) = 428 us; layers 2 and 1: 116.5 + 126.5 = 243 each; layer 0: 56.5 + 66.5 = 123. The optimizer's
// kernels were released by their launches, every 5 us: still 82 us. In all 1,119 us against the traced 2,127.
TEST(TracedIteration, OnAFasterDeviceQueuedWorkMovesUpAndHostPacedWorkKeepsItsTime) {
  const TracedIteration cut = traced_iteration(example("mlp-single-kineto.json"), 0);
  const KernelClassScale scale{.matrix = 0.5, .convolution = 1, .memory = 0.25, .from_kernel_fixed_s = 3 * kUs,
                               .to_kernel_fixed_s = 3 * kUs};
  expect_near_all(spans_us(cut, scale), {428, 0, 243, 0, 243, 0, 123, 0, 82});
  const KernelTimes times = traced_kernel_times(cut, scale, 1e12);
  EXPECT_NEAR(times.total_s() / kUs, 1119, 1e-6);
  // Backward runs the layers last to first: the first stretch is the last layer's.
  EXPECT_NEAR(times.backward_s.back() / kUs, 428, 1e-6);
  EXPECT_NEAR(times.optimizer_gpu_s / kUs, 16 * 2, 1e-9);
  // Memory-bound time x the bandwidth given: the first stretch's four ReLUs, 4 x 6 us at 1 TB/s.
  EXPECT_NEAR(times.backward_bytes.back(), 24e-6 * 1e12, 1e-3);
}

TEST(ReplayStretch, StartsEachWorkAtItsReleaseOrBehindItsStream) {
  // Released at 0 (a 10 us GEMM), queued 1 us behind it with its launch done at 2 (a 4 us memory kernel), released
  // at 30 on the same stream, and released at 1 on a second stream. At matrix x0.5, memory x0.25, no fixed cost:
  // 0-5, max(5 + 1, 2) = 6-7, 30-35 and 1-6.
  TracedStretch stretch;
  stretch.work = {{TracedKernelClass::matrix, 7, 10e-6, true, 0, 0},
                  {TracedKernelClass::memory, 7, 4e-6, false, 2e-6, 1e-6},
                  {TracedKernelClass::matrix, 7, 10e-6, true, 30e-6, 0},
                  {TracedKernelClass::matrix, 9, 10e-6, true, 1e-6, 0}};
  const StretchTime time = replay_stretch(stretch, {.matrix = 0.5, .convolution = 1, .memory = 0.25});
  EXPECT_NEAR(time.span_s / kUs, 35, 1e-9);
  EXPECT_NEAR(time.gpu_s / kUs, 5 + 1 + 5 + 5, 1e-9);
  EXPECT_NEAR(time.memory_s / kUs, 1, 1e-9);
}

TEST(KernelClassScale, ScalesOnlyTheTimeAboveTheFixedCost) {
  const KernelClassScale scale{.matrix = 0.5, .convolution = 2, .memory = 1, .from_kernel_fixed_s = 3e-6,
                               .to_kernel_fixed_s = 2e-6};
  const auto time_us = [&](TracedKernelClass kind, double us) {
    return scale.duration_s({kind, 0, us * kUs, true, 0, 0}) / kUs;
  };
  EXPECT_NEAR(time_us(TracedKernelClass::matrix, 13), 2 + 10 * 0.5, 1e-9);
  EXPECT_NEAR(time_us(TracedKernelClass::convolution, 13), 2 + 10 * 2, 1e-9);
  EXPECT_NEAR(time_us(TracedKernelClass::matrix, 2), 2, 1e-9);        // below the fixed cost: as traced
  EXPECT_NEAR(time_us(TracedKernelClass::host_copy, 13), 13, 1e-9);  // the host link's, on any GPU
}

TEST(KernelClass, IsToldByTheKernelsName) {
  EXPECT_EQ(kernel_class("ampere_sgemm_128x64_tn", TracedWorkKind::kernel), TracedKernelClass::matrix);
  EXPECT_EQ(kernel_class("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", TracedWorkKind::kernel),
            TracedKernelClass::matrix);
  EXPECT_EQ(kernel_class("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTT", TracedWorkKind::kernel),
            TracedKernelClass::matrix);
  EXPECT_EQ(kernel_class("flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128>>", TracedWorkKind::kernel),
            TracedKernelClass::matrix);
  EXPECT_EQ(kernel_class("sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc", TracedWorkKind::kernel),
            TracedKernelClass::convolution);
  EXPECT_EQ(kernel_class("cudnn::bn_fw_tr_1C11_kernel_NCHW<float, 512, true, 1>", TracedWorkKind::kernel),
            TracedKernelClass::memory);
  EXPECT_EQ(kernel_class("void at::native::vectorized_elementwise_kernel<4>", TracedWorkKind::kernel),
            TracedKernelClass::memory);
  EXPECT_EQ(kernel_class("Memcpy HtoD (Pageable -> Device)", TracedWorkKind::memcpy), TracedKernelClass::host_copy);
  EXPECT_EQ(kernel_class("Memcpy DtoD (Device -> Device)", TracedWorkKind::memcpy), TracedKernelClass::memory);
}

TEST(TracedWorkload, HasOneLayerPerStretchWhoseGradientIsItsBytes) {
  const TracedIteration cut = traced_iteration(example("mlp-ddp-kineto.json"), 0);
  const Workload workload = traced_workload(cut);
  ASSERT_EQ(workload.layers.size(), 2u);
  // Forward order: the stretch backward runs last is the first layer.
  EXPECT_DOUBLE_EQ(workload.layers[0].gradient_bytes(), cut.backward[1].gradient_bytes);
  EXPECT_DOUBLE_EQ(workload.layers[1].gradient_bytes(), cut.backward[0].gradient_bytes);
  EXPECT_DOUBLE_EQ(workload.gradient_bytes(), 8433704.0 + 12595200.0);
}

// --- Refused traces ---------------------------------------------------------------------------------------------

json annotation(double ts, double dur) {
  return {{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#4"}, {"ts", ts}, {"dur", dur},
          {"args", json::object()}};
}

json launch_event(long correlation, double ts) {
  return {{"ph", "X"}, {"cat", "cuda_runtime"}, {"name", "cudaLaunchKernel"}, {"ts", ts}, {"dur", 5},
          {"args", {{"correlation", correlation}}}};
}

json gemm_event(long correlation, double ts) {
  return {{"ph", "X"}, {"cat", "kernel"}, {"name", "ampere_sgemm_128x64_tn"}, {"ts", ts}, {"dur", 50},
          {"args", {{"correlation", correlation}, {"device", 0}, {"stream", 7}}}};
}

std::string cut_error(const json& events) {
  try {
    traced_iteration(read_kineto_trace(json{{"traceEvents", events}}.dump(), "t.json"), 0);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(TracedIteration, RefusesAStepWithoutGradients) {
  EXPECT_EQ(cut_error({annotation(0, 100), launch_event(1, 1), gemm_event(1, 6)}),
            "t.json: ProfilerStep#4 has no gradients: neither NCCL allreduce kernels nor AccumulateGrad ops (profile "
            "whole training iterations, backward included)");
}

TEST(TracedIteration, RefusesGradientsWithoutShapes) {
  const json accumulate = {{"ph", "X"}, {"cat", "cpu_op"}, {"name", "torch::autograd::AccumulateGrad"},
                           {"ts", 20}, {"dur", 2}, {"args", json::object()}};
  EXPECT_EQ(cut_error({annotation(0, 100), launch_event(1, 1), gemm_event(1, 6), accumulate}),
            "t.json: traceEvents[3] (cpu_op 'torch::autograd::AccumulateGrad'): no input shapes: profile with "
            "record_shapes=True so that the gradients' sizes are in the trace");
}

// An AccumulateGrad op storing a gradient of `elements` fp32 values.
json accumulate_grad(double ts, long elements) {
  return {{"ph", "X"}, {"cat", "cpu_op"}, {"name", "torch::autograd::AccumulateGrad"}, {"ts", ts}, {"dur", 2},
          {"args", {{"Input Dims", {{elements}}}, {"Input type", {"float"}}}}};
}

// Issue 31: a step without GPU work, or a gradient of no bytes, gave a step time of NaN (an internal error when
// run) or below zero (a negative throughput, exit 0).
TEST(TracedIteration, RefusesAStepWithoutGpuWork) {
  EXPECT_EQ(cut_error({annotation(0, 100), accumulate_grad(20, 1000)}),
            "t.json: ProfilerStep#4 has no GPU work besides NCCL's: no kernels, copies or fills to replay (profile "
            "with the CUDA activity on: torch.profiler's ProfilerActivity.CUDA)");
}

TEST(TracedIteration, RefusesAGradientOfNoBytes) {
  EXPECT_EQ(cut_error({annotation(0, 100), launch_event(1, 1), gemm_event(1, 6), accumulate_grad(60, 0)}),
            "t.json: traceEvents[3] (cpu_op 'torch::autograd::AccumulateGrad'): a gradient of no bytes (an input "
            "dimension of 0): not a parameter's");
}

json nccl(long correlation, double ts, const std::string& collective, long elements) {
  json kernel = gemm_event(correlation, ts);
  kernel["name"] = "ncclDevKernel_" + collective;
  kernel["args"]["stream"] = 20;
  kernel["args"]["Collective name"] = collective;
  kernel["args"]["In msg nelems"] = elements;
  kernel["args"]["dtype"] = "Float";
  kernel["args"]["Group size"] = 8;
  return kernel;
}

TEST(TracedIteration, LeavesOutDdpsBufferBroadcast) {
  // DDP broadcasts the buffers (launched at 1 us), the GEMM runs (launched at 10), its gradient's allreduce follows
  // (launched at 20): one stretch of 1,000 fp32 elements, the broadcast counted as left out.
  const ProfiledRun run = read_kineto_trace(
      json{{"traceEvents",
            {annotation(0, 100), launch_event(1, 1), nccl(1, 6, "broadcast", 10), launch_event(2, 10),
             gemm_event(2, 15), launch_event(3, 20), nccl(3, 65, "allreduce", 1000)}}}
          .dump(),
      "t.json");
  const TracedIteration cut = traced_iteration(run, 0);
  EXPECT_EQ(cut.skipped_collectives, 1);
  ASSERT_EQ(cut.backward.size(), 1u);
  EXPECT_DOUBLE_EQ(cut.backward[0].gradient_bytes, 4000);
  EXPECT_EQ(cut.traced_ranks, 8);
}

TEST(TracedIteration, RefusesCollectivesOtherThanAllreduce) {
  json allgather = gemm_event(2, 60);
  allgather["name"] = "ncclDevKernel_AllGather_RING_LL";
  allgather["args"]["Collective name"] = "_allgather_base";
  allgather["args"]["In msg nelems"] = 10;
  allgather["args"]["dtype"] = "Float";
  allgather["args"]["Group size"] = 8;
  EXPECT_EQ(cut_error({annotation(0, 100), launch_event(1, 1), gemm_event(1, 6), launch_event(2, 10), allgather}),
            "t.json: traceEvents[4] (kernel 'ncclDevKernel_AllGather_RING_LL'): its collective is allgather: "
            "vtsim replays data-parallel traces, whose collectives are allreduces (DDP, Horovod); sharded and "
            "model-parallel traces are not replayed yet");
}

TEST(TracedIteration, RefusesAnAllreduceOfNoBytes) {
  EXPECT_EQ(cut_error({annotation(0, 100), launch_event(1, 1), gemm_event(1, 6), launch_event(2, 20),
                       nccl(2, 65, "allreduce", 0)}),
            "t.json: traceEvents[4] (kernel 'ncclDevKernel_allreduce'): an allreduce of no bytes (\"In msg nelems\" "
            "0): no gradient to replay");
}

}  // namespace
}  // namespace vtsim
