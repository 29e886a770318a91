// The kernel model against hand calculations: a GEMM that fills whole waves runs at the efficiency's share of the
// peak, a partial last wave costs a whole one, memory-bound passes run at the bandwidth, and a convolution's
// implicit GEMM has the dimensions its definition gives; a GPU below its boost clock runs its family's math slower.

#include "models/compute/kernel_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "models/catalog/gpu_catalog.hpp"
#include "models/compute/kernel_parameters.hpp"
#include "models/core/error.hpp"

namespace vtsim {
namespace {

// A made-up device with round numbers: 4 SMs, 1 Tflop/s on the CUDA cores and 8 on the tensor cores, 100 GB/s, 1 MiB
// of L2.
KernelDevice round_device() { return {"test", 1e12, 8e12, 4, 100e9, 1024.0 * 1024.0}; }

// Parameters that leave only the tiles: no host cost, no K overhead, full efficiency from the 128 x 128 tile's
// intensity (64) up, so a smaller tile reaches its intensity / 64 of the peak.
KernelModelParameters tiles_only() {
  KernelModelParameters parameters;
  for (KernelFamily family : kernel_families()) {
    KernelFamilyParameters& p = parameters.of(family);
    p.host_s = 0;
    p.peak_efficiency = 1.0;
    p.tile_knee = 64;
    p.k_overhead = 0;
    p.memory_efficiency = 1.0;
    p.l2_speedup = 1.0;
  }
  return parameters;
}

KernelShape gemm(double m, double n, double k) {
  KernelShape shape;
  shape.family = KernelFamily::gemm;
  shape.m = m;
  shape.n = n;
  shape.k = k;
  return shape;
}

TEST(KernelModel, WholeWavesOfLargeTilesRunAtThePeak) {
  // 512 x 512 outputs = 16 tiles of 128 x 128 = 4 waves on 4 SMs exactly: t = 2 M N K / peak.
  const KernelShape shape = gemm(512, 512, 1024);
  const KernelPrediction p = predict_kernel(shape, round_device(), tiles_only());
  EXPECT_NEAR(p.time_s, 2.0 * 512 * 512 * 1024 / 1e12, 1e-15);
  EXPECT_EQ(p.tile_m, 128);
  EXPECT_EQ(p.tile_n, 128);
  EXPECT_EQ(p.split_k, 1);
  EXPECT_DOUBLE_EQ(p.waves, 4);
  EXPECT_EQ(p.bound, KernelBound::math);
  EXPECT_NEAR(p.utilization, 1.0, 1e-12);
}

TEST(KernelModel, APartialWaveCostsAWholeOne) {
  // 128 x 640: five 128 x 128 tiles on 4 SMs are two waves, so 5/8 of the peak. A 64 x 128 tile (intensity 42.7,
  // 2/3 of the peak, 8 slots) needs 10 tiles, also two waves, at 2/3 of the rate: the large tile stays the best;
  // split-K would need more than twice the slots, which the model does not try.
  const KernelShape shape = gemm(128, 640, 2048);
  const KernelPrediction p = predict_kernel(shape, round_device(), tiles_only());
  EXPECT_NEAR(p.time_s, 2.0 * 2 * 128 * 128 * 2048 / (1e12 / 4), 1e-15);
  EXPECT_NEAR(p.utilization, 5.0 / 8.0, 1e-12);
  EXPECT_EQ(p.tile_m, 128);
  EXPECT_DOUBLE_EQ(p.waves, 2);
}

TEST(KernelModel, SmallTilesSharingAnSmCostTheBusiestSmsTilesNotAWholeWave) {
  // 64 x 384 outputs, K = 15 (too short to split), on 4 SMs with bandwidth to spare and every tile from intensity 32
  // at the peak: three 128 x 128 tiles (one per SM, half of each wasted) take 2 x 128^2 x 15 / 250 Gflop/s; three
  // 64 x 128 tiles, one per SM, half that, and the busiest SM holds one of them though it has slots for two. Three of
  // the four SMs work: 3/4 of the peak.
  KernelModelParameters parameters = tiles_only();
  parameters.of(KernelFamily::gemm).tile_knee = 32;
  KernelDevice device = round_device();
  device.memory_bandwidth_Bps = 100e12;
  const KernelPrediction p = predict_kernel(gemm(64, 384, 15), device, parameters);
  EXPECT_EQ(p.tile_m, 64);
  EXPECT_EQ(p.tile_n, 128);
  EXPECT_EQ(p.split_k, 1);
  EXPECT_NEAR(p.math_s, 2.0 * 64 * 128 * 15 / 250e9, 1e-15);
  EXPECT_NEAR(p.utilization, 0.75, 1e-6);  // the traffic's 1.25 ns is under the math
}

TEST(KernelModel, SplitKFillsIdleSmsWhenTheOutputIsOneTile) {
  // One 128 x 128 tile, K = 4096: unsplit it is one wave on one SM, 2 x 128^2 x 4096 / 250 Gflop/s. Split in 4 it
  // fills the 4 SMs with K = 1024 each, plus a reduction of 2 x 4 x 128^2 x 4 bytes at 100 GB/s.
  const KernelShape shape = gemm(128, 128, 4096);
  const KernelPrediction p = predict_kernel(shape, round_device(), tiles_only());
  const double split4 = 2.0 * 128 * 128 * 1024 / 250e9 + 2.0 * 4 * 128 * 128 * 4 / 100e9;
  const double split8 = 2 * (2.0 * 128 * 128 * 512 / 250e9) + 2.0 * 8 * 128 * 128 * 4 / 100e9;  // 2 waves
  EXPECT_LT(split4, split8);
  EXPECT_EQ(p.split_k, 4);
  EXPECT_NEAR(p.math_s, split4, 1e-15);
}

TEST(KernelModel, ACudaCoreGemmMayRunCublasSixtyFourByThirtyTwoTiles) {
  // 32 x 256 outputs, K = 15 (too short to split), on 4 SMs with bandwidth to spare: cuBLAS's 64x32 kernels
  // (sliced1x4; 64 columns by 32 rows, tm x tn = 32 x 64) give four tiles, one per SM, at intensity 32 x 64 / 96 =
  // 21.3, a third of the peak: 2 x 32 x 64 x 15 / (250 Gflop/s / 3). The next best, 64 x 64 tiles (four, at half
  // the peak) and 32 x 32 ones (eight, two per SM, at a quarter), take a third longer; 32 x 128 ones (two, at 0.4)
  // two thirds longer. A convolution's implicit GEMM of the same shape has no 32 x 64 tile: it takes the third
  // longer (64 x 64 or 32 x 32 tiles, equally fast).
  // (A name's AxB is A columns by B rows, from the launch grids of NeuSight's linear rows: kernel_model.cpp.)
  KernelDevice device = round_device();
  device.memory_bandwidth_Bps = 100e12;
  const KernelPrediction p = predict_kernel(gemm(32, 256, 15), device, tiles_only());
  EXPECT_EQ(p.tile_m, 32);
  EXPECT_EQ(p.tile_n, 64);
  EXPECT_EQ(p.split_k, 1);
  EXPECT_NEAR(p.math_s, 2.0 * 32 * 64 * 15 / (250e9 / 3), 1e-15);
  KernelShape convolution = gemm(32, 256, 15);
  convolution.family = KernelFamily::convolution;
  const KernelPrediction c = predict_kernel(convolution, device, tiles_only());
  EXPECT_FALSE(c.tile_m == 32 && c.tile_n == 64);
  EXPECT_NEAR(c.math_s, 2.0 * 64 * 64 * 15 / (250e9 / 2), 1e-15);
}

TEST(KernelModel, PreparingLeavesOutTheTilingsAnEarlierOneDominates) {
  // 512 x 512 x 1024 on 4 SMs: sixteen 128 x 128 tiles, four on each SM, 4 x 2 x 128^2 = 131,072 flop per K
  // iteration on the busiest SM. Every smaller tile gives the same at a lower intensity (64 x 128: 32 tiles, 8 per SM,
  // 8 x 2 x 64 x 128; 32 x 64: 128 tiles, 32 per SM, 32 x 2 x 32 x 64; 32 x 32: 256 tiles, 64 x 2 x 32 x 32), and
  // none splits K (16 x 2 tiles > 2 x 4 slots; 256 x 2 > 2 x 64): only the 128 x 128 tiling is kept.
  const PreparedKernel square = prepare_kernel(gemm(512, 512, 1024), round_device());
  ASSERT_EQ(square.tilings.size(), 1U);
  EXPECT_EQ(square.tilings[0].tile_m, 128);
  EXPECT_EQ(square.tilings[0].tile_n, 128);
  // 128 x 640 x 2048: five 128 x 128 tiles put two on the busiest SM (65,536 flop per K iteration); ten 64 x 128
  // ones put three (3 x 2 x 64 x 128 = 49,152): less flop per iteration at a lower intensity, so it is kept.
  const PreparedKernel wide = prepare_kernel(gemm(128, 640, 2048), round_device());
  EXPECT_TRUE(std::any_of(wide.tilings.begin(), wide.tilings.end(),
                          [&](const Tiling& t) { return t.tile_m == 64 && t.tile_n == 128 && t.split == 1; }));
}

void expect_same_prediction(const KernelPrediction& a, const KernelPrediction& b, const std::string& what) {
  EXPECT_EQ(a.time_s, b.time_s) << what;
  EXPECT_EQ(a.device_s, b.device_s) << what;
  EXPECT_EQ(a.math_s, b.math_s) << what;
  EXPECT_EQ(a.memory_s, b.memory_s) << what;
  EXPECT_EQ(a.tile_m, b.tile_m) << what;
  EXPECT_EQ(a.tile_n, b.tile_n) << what;
  EXPECT_EQ(a.split_k, b.split_k) << what;
  EXPECT_EQ(a.waves, b.waves) << what;
  EXPECT_EQ(a.algorithm, b.algorithm) << what;
  EXPECT_EQ(a.bound, b.bound) << what;
}

// `tilings` with a tiling its predecessor dominates after each one: as much or more flop per K iteration, K
// iterations or reduction traffic, or a lower intensity, in turn, or an exact copy; each marked by a tile no library
// has (tile_m 7), so that picking one shows.
std::vector<Tiling> with_dominated_copies(const std::vector<Tiling>& tilings) {
  std::vector<Tiling> result;
  for (std::size_t i = 0; i < tilings.size(); ++i) {
    Tiling worse = tilings[i];
    worse.tile_m = 7;
    switch (i % 5) {
      case 0:
        worse.flop_per_k *= 1.25;
        break;
      case 1:
        worse.k_per_tile += 1;
        break;
      case 2:
        worse.reduction_bytes += 4096;
        worse.split = std::max(worse.split, 2);
        break;
      case 3:
        worse.intensity *= 0.8;
        break;
      default:
        break;
    }
    result.push_back(tilings[i]);
    result.push_back(worse);
  }
  return result;
}

TEST(KernelModel, ATilingAnEarlierOneDominatesIsNeverThePickWhateverTheParameters) {
  // What prepare_kernel relies on to leave such tilings out: with one after each tiling it keeps, every prediction
  // is the same to the last bit, under parameters that bind the math, the traffic, the tiles' intensity or the K loop.
  std::vector<KernelModelParameters> parameter_sets(3, tiles_only());
  for (KernelFamily family : kernel_families()) {
    KernelFamilyParameters& binding_traffic = parameter_sets[1].of(family);
    binding_traffic.memory_efficiency = 0.05;
    binding_traffic.l2_speedup = 3;
    binding_traffic.host_s = 5e-6;
    binding_traffic.host_after_launch_s = 2e-6;
    KernelFamilyParameters& small_tiles_slow = parameter_sets[2].of(family);
    small_tiles_slow.tile_knee = 80;
    small_tiles_slow.k_overhead = 24;
    small_tiles_slow.peak_efficiency = 0.7;
    small_tiles_slow.winograd_2x2_efficiency = 0.6;
    small_tiles_slow.winograd_4x4_efficiency = 0.9;
  }
  KernelShape batched = gemm(512, 64, 64);
  batched.family = KernelFamily::batched_gemm;
  batched.batch = 12;
  std::vector<KernelShape> shapes = {gemm(128, 128, 4096),
                                     gemm(32, 256, 15),
                                     gemm(1000, 3000, 700),
                                     batched,
                                     convolution_gemm(32, 64, 64, 3, 56, 1, 1),
                                     convolution_gemm(8, 256, 512, 1, 14, 2, 0),
                                     on_tensor_cores(gemm(4096, 1024, 1024))};
  for (const KernelDevice& device : {round_device(), kernel_device(*find_gpu("v100-sxm2-16gb"))}) {
    for (const KernelShape& shape : shapes) {
      const PreparedKernel kernel = prepare_kernel(shape, device);
      PreparedKernel padded = kernel;
      padded.tilings = with_dominated_copies(kernel.tilings);
      padded.winograd_2x2_tilings = with_dominated_copies(kernel.winograd_2x2_tilings);
      padded.winograd_4x4_tilings = with_dominated_copies(kernel.winograd_4x4_tilings);
      for (const auto* list : {&padded.tilings, &padded.winograd_2x2_tilings, &padded.winograd_4x4_tilings}) {
        ASSERT_LE(list->size(), 63U);  // the most a kernel may hold (kMaxTilings, kernel_model.cpp)
      }
      for (std::size_t p = 0; p < parameter_sets.size(); ++p) {
        const std::string what = device.gpu_id + " " + std::string(to_string(shape.family)) + " m " +
                                 std::to_string(shape.m) + " parameters " + std::to_string(p);
        expect_same_prediction(predict_kernel(padded, parameter_sets[p]), predict_kernel(kernel, parameter_sets[p]),
                               what);
      }
    }
  }
}

TEST(KernelModel, KOverheadAndHostCostAdd) {
  KernelModelParameters parameters = tiles_only();
  parameters.of(KernelFamily::gemm).k_overhead = 16;
  parameters.of(KernelFamily::gemm).host_s = 20e-6;
  const KernelPrediction p = predict_kernel(gemm(512, 512, 1024), round_device(), parameters);
  EXPECT_NEAR(p.time_s, 20e-6 + 4 * 2.0 * 128 * 128 * (1024 + 16) / 250e9, 1e-15);
}

// Timed between two events around the call, a kernel runs while the host returns from launching it: the part of
// the host's 30 us after the launch (12 us) hides a kernel up to that long. The round device's 100 GB/s DRAM at
// efficiency 1: 0.4 MB take 4 us (hidden: 30 us), 2.5 MB 25 us (30 + 25 - 12 = 43 us).
TEST(KernelModel, TheHostsReturnAfterTheLaunchHidesTheKernel) {
  KernelModelParameters parameters = tiles_only();
  KernelFamilyParameters& p = parameters.of(KernelFamily::elementwise);
  p.host_s = 30e-6;
  p.host_after_launch_s = 12e-6;
  p.memory_efficiency = 1.0;
  KernelShape add;
  add.family = KernelFamily::elementwise;
  add.tensors = 1;
  add.elements = 1e5;  // 400 kB
  EXPECT_NEAR(predict_kernel(add, round_device(), parameters).time_s, 30e-6, 1e-15);
  add.elements = 6.25e5;  // 2.5 MB
  EXPECT_NEAR(predict_kernel(add, round_device(), parameters).time_s, 43e-6, 1e-15);
}

TEST(KernelModel, MemoryBoundPassRunsAtTheBandwidthAndFasterInL2) {
  KernelModelParameters parameters = tiles_only();
  KernelFamilyParameters& p = parameters.of(KernelFamily::elementwise);
  p.host_s = 10e-6;
  p.memory_efficiency = 0.8;
  p.l2_speedup = 2.0;
  KernelShape add;
  add.family = KernelFamily::elementwise;
  add.tensors = 3;
  add.elements = 1e7;  // 120 MB: above the 1 MiB L2
  EXPECT_NEAR(predict_kernel(add, round_device(), parameters).time_s, 10e-6 + 1.2e8 / 80e9, 1e-15);
  add.elements = 8192;  // 98,304 B: fits
  const KernelPrediction small = predict_kernel(add, round_device(), parameters);
  EXPECT_NEAR(small.time_s, 10e-6 + 98304.0 / 160e9, 1e-15);
  EXPECT_EQ(small.bound, KernelBound::host);
}

TEST(KernelModel, ConvolutionIsItsImplicitGemm) {
  // 3x3, stride 1, padding 1 keeps 56 x 56: M = 32 x 56 x 56, N = 128, K = 64 x 9.
  const KernelShape shape = convolution_gemm(32, 64, 128, 3, 56, 1, 1);
  EXPECT_DOUBLE_EQ(shape.m, 32.0 * 56 * 56);
  EXPECT_DOUBLE_EQ(shape.n, 128);
  EXPECT_DOUBLE_EQ(shape.k, 64.0 * 9);
  EXPECT_DOUBLE_EQ(shape.flop(), 2.0 * 32 * 56 * 56 * 128 * 64 * 9);
  EXPECT_DOUBLE_EQ(shape.bytes(), 4.0 * (32.0 * 64 * 56 * 56 + 128.0 * 64 * 9 + 32.0 * 128 * 56 * 56));
  // 7x7 stride 2 padding 3 on 224: (224 + 6 - 7) / 2 + 1 = 112 outputs a side.
  EXPECT_DOUBLE_EQ(convolution_gemm(1, 3, 64, 7, 224, 2, 3).m, 112.0 * 112);
}

// A 3x3 convolution at stride 1 of one 32 x 32 image, 128 channels in and out, on the round device with only the
// tiles: implicit GEMM M = 1,024, N = 128, K = 1,152 runs 8 tiles of 128 x 128 in 2 waves over 4 SMs at 0.25 Tflop/s
// each; Winograd 2x2 the same tiles over K = 512; Winograd 4x4 36 GEMMs of 64 x 128 by 128 (64 tiles of 4 x 4
// outputs), best as 36 tiles of 64 x 128 (nine per SM, each half a 128 x 128 tile's work, at 2/3 efficiency), after
// 2 x 36 x 64 x 256 + 36 x 128 x 128 values of transforms at 100 GB/s.
TEST(KernelModel, AThreeByThreeConvolutionTakesTheFastestWinogradOrItsImplicitGemm) {
  const KernelShape shape = convolution_gemm(1, 128, 128, 3, 32, 1, 1);
  ASSERT_TRUE(shape.winograd);
  KernelModelParameters p = tiles_only();
  KernelFamilyParameters& convolution = p.of(KernelFamily::convolution);
  convolution.winograd_2x2_efficiency = 1.0;
  convolution.winograd_4x4_efficiency = 1.0;
  const double per_sm = 0.25e12;
  const double implicit_s = 2 * 2.0 * 128 * 128 * 1152 / per_sm;
  const double winograd_2x2_s = 2 * 2.0 * 128 * 128 * 512 / per_sm;
  const double winograd_4x4_s =
      9 * 2.0 * 64 * 128 * 128 / (per_sm * 2.0 / 3.0) + 4.0 * (2.0 * 36 * 64 * 256 + 36.0 * 128 * 128) / 100e9;
  ASSERT_LT(winograd_2x2_s, winograd_4x4_s);
  KernelPrediction prediction = predict_kernel(shape, round_device(), p);
  EXPECT_EQ(prediction.algorithm, ConvolutionAlgorithm::winograd_2x2);
  EXPECT_NEAR(prediction.time_s, winograd_2x2_s, 1e-15);
  // At half the fused algorithm's efficiency the non-fused one is faster, transforms and all.
  convolution.winograd_2x2_efficiency = 0.5;
  ASSERT_LT(winograd_4x4_s, 2 * winograd_2x2_s);
  prediction = predict_kernel(shape, round_device(), p);
  EXPECT_EQ(prediction.algorithm, ConvolutionAlgorithm::winograd_4x4);
  EXPECT_NEAR(prediction.time_s, winograd_4x4_s, 1e-12);
  // Where Winograd reaches little, the implicit GEMM.
  convolution.winograd_2x2_efficiency = 0.1;
  convolution.winograd_4x4_efficiency = 0.1;
  prediction = predict_kernel(shape, round_device(), p);
  EXPECT_EQ(prediction.algorithm, ConvolutionAlgorithm::implicit_gemm);
  EXPECT_NEAR(prediction.time_s, implicit_s, 1e-15);
  // A measured convolution is timed with the algorithm it ran, fast or not.
  const PreparedKernel prepared = prepare_kernel(shape, round_device());
  EXPECT_NEAR(predict_kernel(prepared, p, ConvolutionAlgorithm::winograd_2x2).time_s, 10 * winograd_2x2_s, 1e-12);
  EXPECT_EQ(predict_kernel(prepared, p, ConvolutionAlgorithm::winograd_4x4).algorithm,
            ConvolutionAlgorithm::winograd_4x4);
  // A 1x1 convolution has no Winograd form.
  EXPECT_FALSE(convolution_gemm(1, 128, 128, 1, 32, 1, 0).winograd);
  EXPECT_FALSE(convolution_gemm(1, 128, 128, 3, 32, 2, 1).winograd);
}

TEST(KernelModel, DeviceComesFromTheDatasheet) {
  const GpuSpec* a100 = find_gpu("a100-40gb-pcie");
  ASSERT_NE(a100, nullptr);
  const KernelDevice device = kernel_device(*a100);
  EXPECT_DOUBLE_EQ(device.peak_flops, 19.5e12);  // A100 datasheet
  EXPECT_EQ(device.sm_count, 108);
  EXPECT_DOUBLE_EQ(device.memory_bandwidth_Bps, 1555e9);
  EXPECT_DOUBLE_EQ(device.l2_bytes, 40.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(device.tensor16_flops, 312e12);  // A100 datasheet, dense FP16 tensor
  EXPECT_DOUBLE_EQ(device.tf32_flops, 156e12);      // A100 datasheet, dense TF32 tensor
  EXPECT_DOUBLE_EQ(kernel_device(*find_gpu("v100-sxm2-16gb")).tf32_flops, 0.0);  // TF32 is Ampere's
  // Pascal has no tensor cores: the P100's fp16 peak is half2 on the CUDA cores, not a tensor_gemm path.
  EXPECT_DOUBLE_EQ(kernel_device(*find_gpu("p100-pcie-16gb")).tensor16_flops, 0.0);
}

TEST(KernelModel, TensorGemmRunsAtTheTensorPeakOnHalfTheBytes) {
  // The first test's 512 x 512 x 1024 product on the tensor cores: 8x the rate, and 2-byte operands.
  KernelShape shape = gemm(512, 512, 1024);
  shape.family = KernelFamily::tensor_gemm;
  shape.element_bytes = 2;
  const KernelPrediction p = predict_kernel(shape, round_device(), tiles_only());
  EXPECT_NEAR(p.math_s, 2.0 * 512 * 512 * 1024 / 8e12, 1e-15);
  EXPECT_NEAR(p.memory_s, 2.0 * (512.0 * 1024 * 2 + 512.0 * 512) / 100e9, 1e-15);
  EXPECT_EQ(p.bound, KernelBound::math);  // 67 us of math against 26 us of traffic
  EXPECT_NEAR(p.utilization, 1.0, 1e-12);
}

TEST(KernelModel, Tf32RunsTheTensorFamiliesAtTheTf32PeakOnFourByteOperands) {
  // The same 512 x 512 x 1024 product as TF32: the tensor_gemm family at a TF32 peak of 4 Tflop/s (half the 16-bit
  // one, as on the A100: 156 against 312), 4-byte operands.
  KernelDevice device = round_device();
  device.tf32_flops = 4e12;
  const KernelShape shape = on_tensor_cores(gemm(512, 512, 1024), 4);
  EXPECT_EQ(shape.family, KernelFamily::tensor_gemm);
  EXPECT_TRUE(is_tf32(shape));
  EXPECT_FALSE(is_tf32(on_tensor_cores(gemm(512, 512, 1024))));  // 16-bit
  EXPECT_FALSE(is_tf32(gemm(512, 512, 1024)));                   // fp32 on the CUDA cores
  EXPECT_DOUBLE_EQ(datasheet_peak_flops(shape, device), 4e12);
  const KernelPrediction p = predict_kernel(shape, device, tiles_only());
  EXPECT_NEAR(p.math_s, 2.0 * 512 * 512 * 1024 / 4e12, 1e-15);
  EXPECT_NEAR(p.memory_s, 4.0 * (512.0 * 1024 * 2 + 512.0 * 512) / 100e9, 1e-15);
  EXPECT_NEAR(p.utilization, 1.0, 1e-12);
  // A convolution's channels pad to 16 bytes: 3 input channels loop over 4 as TF32, over 8 in 16 bits.
  EXPECT_DOUBLE_EQ(on_tensor_cores(convolution_gemm(1, 3, 64, 7, 224, 2, 3), 4).padded_k, 4.0 * 49);
  EXPECT_DOUBLE_EQ(on_tensor_cores(convolution_gemm(1, 8, 64, 3, 56, 1, 1), 4).padded_k, 0.0);
  // 12 channels pad to 16 in 16 bits and not at all as TF32, whichever path the shape was on before.
  const KernelShape twelve = on_tensor_cores(convolution_gemm(1, 12, 64, 3, 56, 1, 1));
  EXPECT_DOUBLE_EQ(twelve.padded_k, 16.0 * 9);
  EXPECT_DOUBLE_EQ(on_tensor_cores(twelve, 4).padded_k, 0.0);
  // A device without TF32 has no peak for it.
  EXPECT_DOUBLE_EQ(datasheet_peak_flops(shape, round_device()), 0.0);
}

TEST(KernelModel, ATensorCoreConvolutionIsItsImplicitGemmAtTheTensorPeak) {
  // The 32 x 32 3x3 convolution above on the tensor cores: 2-byte values, no Winograd form (cuDNN ran none of the
  // measured 16-bit ones so), so its 8 tiles of 128 x 128 over K = 1,152 run 2 per SM at 8 / 4 Tflop/s per SM,
  // however fast Winograd would be.
  const KernelShape shape = on_tensor_cores(convolution_gemm(1, 128, 128, 3, 32, 1, 1));
  EXPECT_EQ(shape.family, KernelFamily::tensor_convolution);
  EXPECT_DOUBLE_EQ(shape.element_bytes, 2);
  EXPECT_FALSE(shape.winograd);
  KernelModelParameters p = tiles_only();
  p.of(KernelFamily::tensor_convolution).winograd_2x2_efficiency = 1.0;
  const KernelPrediction prediction = predict_kernel(shape, round_device(), p);
  EXPECT_EQ(prediction.algorithm, ConvolutionAlgorithm::implicit_gemm);
  EXPECT_NEAR(prediction.math_s, 2 * 2.0 * 128 * 128 * 1152 / 2e12, 1e-15);
  EXPECT_NEAR(prediction.memory_s,
              2.0 * (128.0 * 32 * 32 + 128.0 * 128 * 9 + 128.0 * 32 * 32) / 100e9, 1e-15);
  // ResNet's first convolution, 3 channels of 7 x 7: its tiles loop over 8 channels (cuDNN pads them), its flop stay
  // 2 x M x 64 x 147.
  const KernelShape stem = on_tensor_cores(convolution_gemm(1, 3, 64, 7, 224, 2, 3));
  EXPECT_DOUBLE_EQ(stem.padded_k, 8.0 * 49);
  EXPECT_DOUBLE_EQ(stem.flop(), 2.0 * 112 * 112 * 64 * 147);
  EXPECT_DOUBLE_EQ(shape.padded_k, 0.0);
  // A memory-bound pass stays itself on the tensor cores' path, its values 2 bytes.
  KernelShape pass;
  pass.family = KernelFamily::softmax;
  EXPECT_EQ(on_tensor_cores(pass).family, KernelFamily::softmax);
  EXPECT_EQ(on_tensor_cores(gemm(8, 8, 8)).family, KernelFamily::tensor_gemm);
}

TEST(KernelModel, ARectangularConvolutionHasItsOwnOutputWidthAndHeight) {
  // DeepBench's first speech convolution: 4 images of 1 x 161 x 700 by 32 filters of 5 x 20 at stride 2, no
  // padding: (700 - 20) / 2 + 1 = 341 by (161 - 5) / 2 + 1 = 79 outputs (the file's P and Q), K = 100.
  const KernelShape shape = convolution_gemm(ConvolutionDimensions{.images = 4,
                                                                   .in_channels = 1,
                                                                   .out_channels = 32,
                                                                   .width = 700,
                                                                   .height = 161,
                                                                   .filter_width = 20,
                                                                   .filter_height = 5,
                                                                   .stride_width = 2,
                                                                   .stride_height = 2});
  EXPECT_DOUBLE_EQ(shape.output_width, 341);
  EXPECT_DOUBLE_EQ(shape.output_height, 79);
  EXPECT_DOUBLE_EQ(shape.m, 4.0 * 341 * 79);
  EXPECT_DOUBLE_EQ(shape.k, 100);
  EXPECT_FALSE(shape.winograd);
  EXPECT_DOUBLE_EQ(shape.elements, 4.0 * 700 * 161 + 32.0 * 100 + 4.0 * 32 * 341 * 79);
}

TEST(KernelModel, ASustainedClockSlowsOnlyItsFamilysMath) {
  // The first test's product at half the clock: twice the math, the same traffic; the datasheet's utilization halves.
  KernelDevice device = round_device();
  device.sustained_clock.at(static_cast<std::size_t>(KernelFamily::gemm)) = 0.5;
  const KernelPrediction p = predict_kernel(gemm(512, 512, 1024), device, tiles_only());
  EXPECT_NEAR(p.math_s, 2.0 * 2.0 * 512 * 512 * 1024 / 1e12, 1e-15);
  EXPECT_NEAR(p.utilization, 0.5, 1e-12);
  const KernelShape shape = on_tensor_cores(gemm(512, 512, 1024));
  EXPECT_NEAR(predict_kernel(shape, device, tiles_only()).math_s, 2.0 * 512 * 512 * 1024 / 8e12, 1e-15);
}

// A memory-bound family's sustained share slows its passes' traffic, and not a matrix product's memory side: the
// round device's 100 GB/s at efficiency 1, 4 MB (past its 1 MiB L2) in 40 us, 80 us at half the share.
TEST(KernelModel, AMemorysSustainedShareSlowsOnlyItsFamilysPasses) {
  KernelDevice device = round_device();
  device.sustained_clock.at(static_cast<std::size_t>(KernelFamily::elementwise)) = 0.5;
  KernelShape pass;
  pass.family = KernelFamily::elementwise;
  pass.tensors = 1;
  pass.elements = 1e6;
  EXPECT_NEAR(predict_kernel(pass, device, tiles_only()).memory_s, 80e-6, 1e-15);
  pass.family = KernelFamily::softmax;
  EXPECT_NEAR(predict_kernel(pass, device, tiles_only()).memory_s, 40e-6, 1e-15);
  device.sustained_clock.at(static_cast<std::size_t>(KernelFamily::gemm)) = 0.5;
  const KernelShape product = gemm(512, 512, 1024);
  EXPECT_NEAR(predict_kernel(product, device, tiles_only()).memory_s, product.bytes() / 100e9, 1e-15);
}

TEST(KernelParameters, SixteenBitConvolutionsRunAtTheTensorGemmsMeasuredClock) {
  // The tensor cores' clock under long products is the card's: a T4 measured at 0.7 of the reference under its
  // tensor GEMMs runs its 16-bit convolutions there too, unless they were measured themselves.
  SustainedClock gemms;
  gemms.gpu_id = "t4";
  gemms.family = KernelFamily::tensor_gemm;
  gemms.fraction = 0.7;
  EXPECT_DOUBLE_EQ(kernel_device(*find_gpu("t4"), {gemms}).clock(KernelFamily::tensor_convolution), 0.7);
  SustainedClock convolutions = gemms;
  convolutions.family = KernelFamily::tensor_convolution;
  convolutions.fraction = 0.6;
  EXPECT_DOUBLE_EQ(kernel_device(*find_gpu("t4"), {convolutions, gemms}).clock(KernelFamily::tensor_convolution),
                   0.6);
  EXPECT_DOUBLE_EQ(kernel_device(*find_gpu("t4"), {gemms}).clock(KernelFamily::convolution), 1.0);
}

TEST(KernelParameters, MeasuredClocksSurviveTheirJsonAndABadOneNamesItsPlace) {
  FittedKernelParameters fitted = fitted_kernel_parameters();
  SustainedClock clock;
  clock.gpu_id = "t4";
  clock.family = KernelFamily::batched_gemm;
  clock.fraction = 0.5;
  clock.median_utilization = 0.4;
  clock.kernels = 12;
  fitted.clocks = {clock};
  const FittedKernelParameters back = fitted_kernel_parameters_from_json(to_json(fitted).dump(), "k.json");
  ASSERT_EQ(back.clocks.size(), 1u);
  EXPECT_EQ(back.clocks[0].family, KernelFamily::batched_gemm);
  EXPECT_DOUBLE_EQ(back.clocks[0].fraction, 0.5);
  const KernelDevice t4 = kernel_device(*find_gpu("t4"), back.clocks);
  EXPECT_DOUBLE_EQ(t4.clock(KernelFamily::batched_gemm), 0.5);
  EXPECT_DOUBLE_EQ(t4.clock(KernelFamily::gemm), 1.0);

  nlohmann::json bad = to_json(fitted);
  bad["sustained_clocks"][0]["family"] = "softmaxx";
  try {
    fitted_kernel_parameters_from_json(bad.dump(), "k.json");
    FAIL() << "no family is called softmaxx";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("k.json"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("sustained_clocks[0].family"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace vtsim
