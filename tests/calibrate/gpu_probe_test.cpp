#include "calibrate/gpu_probe.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "calibrate/probe_support.hpp"
#include "test_support.hpp"

namespace vtsim::calibrate {
namespace {

// Recorded timings as formulas, so each expected number has an independent closed form. Each call returns three
// batches, the median in the middle, to check that the median is what counts.
class FakeGpu : public GpuBackend {
 public:
  std::vector<GpuDeviceInfo> device_list = {{0, "Tesla V100-SXM2-16GB", 7, 0, 16e9},
                                            {1, "Tesla V100-SXM2-16GB", 7, 0, 16e9}};
  std::optional<SharingSample> sharing;
  std::string topology = testing::read_fixture("topo_4gpu_pcie.txt");

  std::vector<GpuDeviceInfo> devices() override { return device_list; }
  std::string driver_version() override { return "NVIDIA driver 535.104.05; CUDA runtime 12.2"; }
  std::vector<double> time_gemms(int, Precision precision, std::int64_t n, int batch, int repetitions) override {
    const double size = static_cast<double>(n);
    const double flops = precision == Precision::fp32 ? 15e12 : 100e12;
    return batches(2 * size * size * size / flops * batch, repetitions);
  }
  std::vector<double> time_copies(CopyKind kind, int, int, std::int64_t bytes, int batch, int repetitions) override {
    const double size = static_cast<double>(bytes);
    switch (kind) {
      case CopyKind::device_to_device: return batches(2 * size / 800e9 * batch, repetitions);  // 800 GB/s, r + w
      case CopyKind::host_to_device: return batches(size / 12e9 * batch, repetitions);
      case CopyKind::device_to_host: return batches(size / 13e9 * batch, repetitions);
      case CopyKind::peer: return batches((8e-6 + size / 20e9) * batch, repetitions);
    }
    return {};
  }
  std::vector<double> time_launches(int, int batch, int repetitions) override {
    return batches(3e-6 * batch, repetitions);
  }
  std::optional<SharingSample> share_gpu(const SharingPlan& plan) override {
    last_plan = plan;
    return sharing;
  }
  std::string topology_text() override { return topology; }

  SharingPlan last_plan;

 private:
  static std::vector<double> batches(double median_s, int repetitions) {
    std::vector<double> seconds(static_cast<std::size_t>(repetitions), median_s);
    seconds.front() = median_s * 0.5;
    seconds.back() = median_s * 3;
    return seconds;
  }
};

GpuProbeOptions small_options() {
  GpuProbeOptions options;
  options.gemm_sizes = {1024, 4096};
  options.repetitions = 3;
  return options;
}

TEST(GpuProbe, AssemblesTheGpuSectionFromTimings) {
  FakeGpu gpu;
  const GpuProbeResult result = probe_gpu(gpu, small_options());
  EXPECT_EQ(result.gpu.name, "Tesla V100-SXM2-16GB");
  EXPECT_EQ(result.gpu.catalog_gpu, "v100-sxm2-16gb");
  EXPECT_EQ(result.gpu.provenance.tool, "vtsim calibrate probe gpu");
  EXPECT_EQ(result.gpu.provenance.device, "2x Tesla V100-SXM2-16GB");
  EXPECT_EQ(result.gpu.provenance.driver, "NVIDIA driver 535.104.05; CUDA runtime 12.2");
  // Compute capability 7.0: fp32 and fp16 only, two sizes each; throughput = 2n^3 / median time.
  ASSERT_EQ(result.gpu.gemm.size(), 4u);
  EXPECT_EQ(result.gpu.gemm[0].precision, Precision::fp32);
  EXPECT_EQ(result.gpu.gemm[0].n, 1024);
  EXPECT_NEAR(result.gpu.gemm[0].tflops, 15.0, 1e-9);
  EXPECT_EQ(result.gpu.gemm[3].precision, Precision::fp16);
  EXPECT_NEAR(result.gpu.gemm[3].tflops, 100.0, 1e-9);
  EXPECT_NEAR(*result.gpu.memory_bandwidth_gBps, 800.0, 1e-9);
  EXPECT_NEAR(*result.gpu.h2d_gBps, 12.0, 1e-9);
  EXPECT_NEAR(*result.gpu.d2h_gBps, 13.0, 1e-9);
  ASSERT_EQ(result.gpu.p2p.size(), 2u);  // 0->1 and 1->0
  EXPECT_EQ(result.gpu.p2p[0].src, 0);
  EXPECT_EQ(result.gpu.p2p[0].dst, 1);
  const double copy_s = 8e-6 + 256.0 * 1048576 / 20e9;
  EXPECT_NEAR(result.gpu.p2p[0].bandwidth_gBps, 256.0 * 1048576 / copy_s / 1e9, 1e-9);
  EXPECT_NEAR(*result.gpu.p2p[0].latency_us, 8.0 + 4 / 20e9 * 1e6, 1e-9);
  EXPECT_NEAR(*result.gpu.kernel_launch_us, 3.0, 1e-9);
  ASSERT_TRUE(result.topology.has_value());
  EXPECT_EQ(result.topology->connection("GPU0", "GPU1"), "PIX");
  EXPECT_EQ(result.topology->provenance.tool, "nvidia-smi topo -m (run by vtsim calibrate probe gpu)");
  // No sharing sample from the fake: a note, no context switch.
  EXPECT_FALSE(result.gpu.context_switch_us.has_value());
  EXPECT_EQ(result.notes.size(), 3u);  // tf32 and bf16 unsupported, sharing not measured
}

TEST(GpuProbe, SharingTestSizesItsKernelsAndGivesTheSwitchCost) {
  FakeGpu gpu;
  // Alone: 1000 kernels of 0.5 ms. Together: each process sees 50 intervals of 10 ms (the other's slices) and the
  // pair takes 1.1 s instead of 2 x 0.5 s: 0.1 s over 100 interruptions = 1 ms a switch.
  SharingSample sample;
  sample.alone = {10.0, 10.5, std::vector<double>(999, 0.5e-3)};
  for (int p = 0; p < 2; ++p) {
    SharingProcess process{20.0, 21.1, std::vector<double>(999, 0.5e-3)};
    std::fill(process.intervals_s.begin(), process.intervals_s.begin() + 50, 10e-3);
    sample.together.push_back(process);
  }
  gpu.sharing = sample;
  const GpuProbeResult result = probe_gpu(gpu, small_options());
  ASSERT_TRUE(result.gpu.context_switch_us.has_value());
  EXPECT_NEAR(*result.gpu.context_switch_us, 1000.0, 1e-6);
  // Planned from the fp32 throughput (15 TFLOP/s): n = cbrt(0.5 ms x 15e12 / 2) = 1553 -> 1536 (a multiple of 256),
  // kernels = ceil(0.5 s / (2 x 1536^3 / 15e12)).
  EXPECT_EQ(gpu.last_plan.n, 1536);
  EXPECT_EQ(gpu.last_plan.kernels, static_cast<int>(std::ceil(0.5 / (2.0 * 1536 * 1536 * 1536 / 15e12))));
}

TEST(GpuProbe, NoInterruptionMeansNoSwitchCost) {
  SharingSample sample;
  sample.alone = {0, 0.5, std::vector<double>(10, 0.05)};
  sample.together = {{0, 0.6, std::vector<double>(10, 0.05)}, {0, 0.6, std::vector<double>(10, 0.05)}};
  EXPECT_FALSE(context_switch_s(sample).has_value());  // ran side by side (MPS): no interruption seen
}

TEST(GpuProbe, NoDeviceIsOneClearError) {
  FakeGpu gpu;
  gpu.device_list.clear();
  EXPECT_EQ(testing::error_of([&] { probe_gpu(gpu, small_options()); }), "no CUDA device found");
  EXPECT_THROW(probe_gpu(gpu, small_options()), DeviceNotFound);
}

TEST(GpuProbe, TensorCoreFormatsNeedAmpere) {
  EXPECT_TRUE(supports(7, Precision::fp16));
  EXPECT_FALSE(supports(7, Precision::tf32));
  EXPECT_FALSE(supports(7, Precision::bf16));
  EXPECT_TRUE(supports(8, Precision::bf16));
  EXPECT_TRUE(supports(9, Precision::tf32));
}

}  // namespace
}  // namespace vtsim::calibrate
