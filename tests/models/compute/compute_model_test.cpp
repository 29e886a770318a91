// The kernel model: kernel times by kind, waves over SMs, devices (whole GPU, MIG instance), the host's pace, data
// loading. Expected numbers are derived by hand from the formulas in compute_model.hpp and datasheet figures.

#include "models/compute/compute_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>

#include "models/catalog/gpu_catalog.hpp"
#include "models/catalog/mig_catalog.hpp"
#include "models/compute/compute_fit.hpp"
#include "models/compute/kernel_parameters.hpp"
#include "models/workload/layer_builder.hpp"
#include "models/workload/workload_catalog.hpp"
#include "tests/models/models_test_support.hpp"

namespace vtsim {
namespace {

using test_support::kGiB;

Layer layer(double forward_flop, double backward_flop, double activation_elements, double parameters,
            int backward_kernels = 1) {
  Layer l;
  l.name = "synthetic";
  l.forward_flop = forward_flop;
  l.backward_flop = backward_flop;
  l.activation_elements = activation_elements;
  l.parameters = parameters;
  l.trainable = parameters > 0.0;
  l.backward_kernels = backward_kernels;
  return l;
}

// A GEMM layer whose output is rows x columns per sample.
Layer gemm_layer(double forward_flop, double rows, double columns) {
  Layer l = layer(forward_flop, 2.0 * forward_flop, 0.0, 0.0, 2);
  l.kind = KernelKind::gemm;
  l.gemm = {.rows_per_sample = rows, .columns = columns};
  return l;
}

Workload workload_of(std::vector<Layer> layers, Optimizer optimizer = Optimizer::sgd_momentum) {
  Workload w;
  w.id = "synthetic";
  w.sample_unit = "image";
  w.layers = std::move(layers);
  w.optimizer = optimizer;
  return w;
}

// A made-up device: 100 SMs, 100 Tflop/s (1 Tflop/s per SM), 10 Tflop/s on CUDA cores, 1 TB/s.
const DeviceCompute kDevice{.description = "test",
                            .peak_flops = 100e12,
                            .vector_flops = 10e12,
                            .memory_bandwidth_Bps = 1e12,
                            .memory_bytes = 16 * kGiB,
                            .sm_count = 100};

ComputeParameters parameters(double gemm, double memory, double fixed_s = 0.0, double dispatch_s = 0.0) {
  ComputeParameters p;
  p.gemm_efficiency = gemm;
  p.convolution_efficiency = gemm;
  p.memory_efficiency = memory;
  p.kernel_fixed_s = fixed_s;
  p.host_dispatch_s = dispatch_s;
  return p;
}

TEST(GemmTiles, CountsOutputTilesOf128By128) {
  // 1,000 rows per sample at batch 3: ceil(3000/128) = 24 row tiles; 300 columns: 3 column tiles.
  EXPECT_DOUBLE_EQ(gemm_tiles({.rows_per_sample = 1000, .columns = 300}, 3), 24.0 * 3.0);
  // Attention: 16 heads of 384 x 384 per sample, batch 2: 2 x 16 x 3 x 3.
  EXPECT_DOUBLE_EQ(gemm_tiles({.rows_per_sample = 384, .columns = 384, .problems_per_sample = 16}, 2), 288.0);
}

TEST(WaveUtilization, IsTilesOverWholeWaves) {
  EXPECT_DOUBLE_EQ(wave_utilization(100, 100), 1.0);
  EXPECT_DOUBLE_EQ(wave_utilization(101, 100), 101.0 / 200.0);  // a second, almost empty wave
  EXPECT_DOUBLE_EQ(wave_utilization(10, 100), 0.1);             // 90 SMs idle
  EXPECT_DOUBLE_EQ(wave_utilization(10, 14), 10.0 / 14.0);
}

TEST(KernelTimes, FullWaveGemmTakesFixedCostPlusFlopOverEfficientPeak) {
  // 12,800 rows x 1,280 columns at batch 1: 100 x 10 = 1,000 tiles = 10 full waves on 100 SMs.
  const Workload w = workload_of({gemm_layer(1e9, 12800, 1280)});
  const KernelTimes t = kernel_times(w, 1, Precision::fp16, kDevice, parameters(0.5, 0.8, 5e-6));
  EXPECT_DOUBLE_EQ(t.forward_s[0], 5e-6 + 1e9 / 50e12);
  // Backward: two kernels (weight and input gradient), 1 Gflop each.
  EXPECT_DOUBLE_EQ(t.backward_s[0], 2 * (5e-6 + 1e9 / 50e12));
  EXPECT_EQ(t.kernels, 4);  // forward, two backward, optimizer
}

TEST(LossBytes, UnderAutocastTheSoftmaxCrossEntropyRunsInFp32BetweenTwoCasts) {
  // bf16 logits cast to fp32 (2 read, 4 written), log-softmax read and written in fp32 (8); backward the loss's
  // gradient written (4), it and the output read and the input gradient written (12), cast back (4 read, 2 written).
  EXPECT_DOUBLE_EQ(loss_bytes(Precision::bf16, true).forward, 14.0);
  EXPECT_DOUBLE_EQ(loss_bytes(Precision::bf16, true).backward, 22.0);
  // TensorFlow's AMP keeps it 16-bit: read and write 2 bytes forward, twice that backward; fp32 likewise at 4.
  EXPECT_DOUBLE_EQ(loss_bytes(Precision::fp16, false).forward, 4.0);
  EXPECT_DOUBLE_EQ(loss_bytes(Precision::fp16, false).backward, 8.0);
  EXPECT_DOUBLE_EQ(loss_bytes(Precision::fp32, true).forward, 8.0);
  EXPECT_DOUBLE_EQ(loss_bytes(Precision::fp32, true).backward, 16.0);
}

TEST(KernelTimes, AGemmOfDepthKRunsAtKOverKPlusTheDepthOverheadOfItsEfficiency) {
  // 1,000 full-wave tiles (10 waves on 100 SMs), 1 Gflop at efficiency 0.5 of 100 Tflop/s: 20 us without the
  // overhead; depth 256 with an overhead of 64 elements: (256 + 64) / 256 = 1.25 times that, 25 us.
  ComputeParameters p = parameters(0.5, 0.8);
  p.gemm_depth_overhead = 64.0;
  const Kernel deep{.flop = 1e9, .bytes = 1e3, .tiles = 1000, .kind = KernelKind::gemm, .depth = 256.0};
  EXPECT_DOUBLE_EQ(kernel_time_s(deep, kDevice, p), 25e-6);
  // Depth 0 (not modelled) keeps the plain time, and a convolution takes the convolutions' overhead: none (20 us at
  // its efficiency 0.5), then 256 elements, (256 + 256) / 256 = 2 times that, 40 us.
  Kernel unknown = deep;
  unknown.depth = 0.0;
  EXPECT_DOUBLE_EQ(kernel_time_s(unknown, kDevice, p), 20e-6);
  Kernel convolution = deep;
  convolution.kind = KernelKind::convolution;
  EXPECT_DOUBLE_EQ(kernel_time_s(convolution, kDevice, p), 20e-6);
  p.convolution_depth_overhead = 256.0;
  EXPECT_DOUBLE_EQ(kernel_time_s(convolution, kDevice, p), 40e-6);
}

TEST(IterationKernels, EachProductCarriesItsReductionLength) {
  // A linear layer of 64 input and 32 output features over 10 positions per sample, at batch 4: the forward product
  // reduces over the 64 inputs, the weight gradient over the batch's 40 rows, the input gradient over the 32 outputs.
  Layer linear = gemm_layer(2.0 * 10 * 64 * 32, 10, 32);
  linear.gemm.depth = 64;
  linear.parameters = 64 * 32;
  linear.trainable = true;
  const std::vector<Kernel> kernels =
      iteration_kernels(workload_of({linear}), 4, Precision::fp16, Pass::training);
  ASSERT_GE(kernels.size(), 3u);
  EXPECT_DOUBLE_EQ(kernels[0].depth, 64.0);
  EXPECT_DOUBLE_EQ(kernels[1].depth, 40.0);
  EXPECT_DOUBLE_EQ(kernels[2].depth, 32.0);
  // Frozen, its one backward kernel is the input gradient.
  linear.trainable = false;
  linear.backward_kernels = 1;
  const std::vector<Kernel> frozen = iteration_kernels(workload_of({linear}), 4, Precision::fp16, Pass::training);
  ASSERT_GE(frozen.size(), 2u);
  EXPECT_EQ(frozen[1].phase, Phase::backward);
  EXPECT_DOUBLE_EQ(frozen[1].depth, 32.0);
}

TEST(IterationKernels, AConvolutionsInputGradientReducesOverItsOutputChannelsAtEachFilterPosition) {
  // A 3 x 3 convolution of 64 to 128 channels over a 14 x 14 output at batch 2 (LayerBuilder): forward K = 64 x 9
  // = 576; the weight gradient reduces over the batch's 2 x 196 output positions, the input gradient over 128 x 9
  // = 1,152 (dX = dY convolved with the filters: every output channel at every filter position).
  LayerBuilder b;
  const Tensor x{.channels = 64, .height = 14, .width = 14, .requires_grad = true};
  b.conv2d(x, "conv", {.out_channels = 128, .kernel_h = 3, .kernel_w = 3, .stride = 1, .pad_h = 1, .pad_w = 1});
  Workload workload;
  workload.layers = b.take_layers();
  const std::vector<Kernel> kernels = iteration_kernels(workload, 2, Precision::fp16, Pass::training);
  std::vector<double> depths;
  for (const Kernel& kernel : kernels) {
    if (kernel.kind == KernelKind::convolution) depths.push_back(kernel.depth);
  }
  ASSERT_EQ(depths.size(), 3u);
  EXPECT_DOUBLE_EQ(depths[0], 576.0);
  EXPECT_DOUBLE_EQ(depths[1], 392.0);
  EXPECT_DOUBLE_EQ(depths[2], 1152.0);
}

// A workload of one convolution built as LayerBuilder builds one.
Workload convolution_workload(int in_channels, int out_channels, int size, int kernel, int stride) {
  LayerBuilder b;
  const Tensor x{.channels = in_channels, .height = size, .width = size, .requires_grad = true};
  b.conv2d(x, "conv", Conv2d::square(out_channels, kernel, stride, kernel / 2));
  Workload workload;
  workload.layers = b.take_layers();
  return workload;
}

TEST(Winograd, OnlyAThreeByThreeConvolutionAtStrideOneMayRunAsWinograd) {
  EXPECT_TRUE(convolution_workload(64, 64, 56, 3, 1).layers.front().gemm.winograd);
  EXPECT_FALSE(convolution_workload(64, 64, 56, 3, 2).layers.front().gemm.winograd);
  EXPECT_FALSE(convolution_workload(64, 64, 56, 1, 1).layers.front().gemm.winograd);
  EXPECT_FALSE(convolution_workload(64, 64, 56, 7, 1).layers.front().gemm.winograd);
}

TEST(ConvolutionGradients, AConvolutionsShapeIsItsFilterAndStride) {
  EXPECT_EQ(convolution_shape(3, 3, 1, 1), ConvolutionShape::three_by_three);
  EXPECT_EQ(convolution_shape(1, 1, 1, 1), ConvolutionShape::pointwise);
  EXPECT_EQ(convolution_shape(3, 3, 2, 2), ConvolutionShape::strided);
  EXPECT_EQ(convolution_shape(1, 1, 2, 1), ConvolutionShape::strided);  // a stride in either direction
  EXPECT_EQ(convolution_shape(1, 7, 1, 1), ConvolutionShape::other);
  EXPECT_EQ(convolution_shape(5, 5, 1, 1), ConvolutionShape::other);
  EXPECT_DOUBLE_EQ(cuda_core_gradient_cost(ConvolutionShape::other, ConvolutionGradient::weight), 1.0);
}

TEST(ConvolutionGradients, OnTheCudaCoresEachGradientTakesItsShapesCostOverTheForwardPass) {
  // One convolution of 64 to 128 channels at batch 8 on a device whose memory never binds: each gradient kernel has
  // the forward pass's flop, bytes, tiles and (costed) reduction, so its math time is the forward's times its cost.
  DeviceCompute device = kDevice;
  device.memory_bandwidth_Bps = 1e18;
  const ComputeParameters p = parameters(0.5, 0.5);
  for (const auto& [kernel, stride, shape] :
       {std::tuple{1, 1, ConvolutionShape::pointwise}, std::tuple{3, 1, ConvolutionShape::three_by_three},
        std::tuple{3, 2, ConvolutionShape::strided}, std::tuple{7, 1, ConvolutionShape::other}}) {
    const Workload workload = convolution_workload(64, 128, 32, kernel, stride);
    const std::vector<Kernel> kernels = iteration_kernels(workload, 8, Precision::fp32, Pass::training);
    std::vector<const Kernel*> convolutions;
    for (const Kernel& k : kernels) {
      if (k.kind == KernelKind::convolution) convolutions.push_back(&k);
    }
    ASSERT_EQ(convolutions.size(), 3u);  // forward, then the weight gradient, then the input gradient
    const double forward_s = kernel_time_s(*convolutions[0], device, p) - p.kernel_fixed_s;
    const double weight_cost = cuda_core_gradient_cost(shape, ConvolutionGradient::weight);
    const double input_cost = cuda_core_gradient_cost(shape, ConvolutionGradient::input);
    EXPECT_DOUBLE_EQ(convolutions[1]->gradient_cost, weight_cost);
    EXPECT_DOUBLE_EQ(convolutions[2]->gradient_cost, input_cost);
    EXPECT_NEAR(kernel_time_s(*convolutions[1], device, p) - p.kernel_fixed_s, weight_cost * forward_s,
                1e-12 * forward_s);
    EXPECT_NEAR(kernel_time_s(*convolutions[2], device, p) - p.kernel_fixed_s, input_cost * forward_s,
                1e-12 * forward_s);
  }
  // The measured costs differ from 1 where cuDNN's gradients did: a 1 x 1 convolution's weight gradient, a strided
  // one's input gradient (DeepBench: about 1.5x and 1.8x the forward pass).
  EXPECT_GT(cuda_core_gradient_cost(ConvolutionShape::pointwise, ConvolutionGradient::weight), 1.3);
  EXPECT_GT(cuda_core_gradient_cost(ConvolutionShape::strided, ConvolutionGradient::input), 1.5);
}

TEST(ConvolutionGradients, AFirstLayerComputesOnlyItsWeightGradientAtItsCost) {
  // A network's first convolution reads the data, which needs no gradient: its one backward kernel is the weight
  // gradient (a 7 x 7 one at stride 2, as ResNet's first layer: strided).
  LayerBuilder b;
  const Tensor image{.channels = 3, .height = 224, .width = 224, .requires_grad = false};
  b.conv2d(image, "conv1", Conv2d::square(64, 7, 2, 3));
  Workload workload;
  workload.layers = b.take_layers();
  std::vector<double> costs;
  for (const Kernel& k : iteration_kernels(workload, 8, Precision::fp32, Pass::training)) {
    if (k.kind == KernelKind::convolution && k.phase == Phase::backward) costs.push_back(k.gradient_cost);
  }
  ASSERT_EQ(costs.size(), 1u);
  EXPECT_DOUBLE_EQ(costs.front(), cuda_core_gradient_cost(ConvolutionShape::strided, ConvolutionGradient::weight));
}

TEST(ConvolutionGradients, OnTheTensorCoresAndForOtherLayersTheForwardConstantsTimeTheGradients) {
  for (Precision precision : {Precision::fp16, Precision::bf16, Precision::tf32}) {
    for (const Kernel& k : iteration_kernels(convolution_workload(64, 128, 32, 1, 1), 8, precision, Pass::training)) {
      EXPECT_DOUBLE_EQ(k.gradient_cost, 1.0);
    }
  }
}

// Kernel-model constants under which the implicit GEMM and the fused Winograd F(2x2, 3x3) reach the whole peak with
// any tile, nothing else costs anything, and F(4x4, 3x3) is never the fastest.
KernelModelParameters ideal_winograd_2x2() {
  KernelModelParameters parameters;
  KernelFamilyParameters& convolution = parameters.of(KernelFamily::convolution);
  convolution.peak_efficiency = 1.0;
  convolution.winograd_2x2_efficiency = 1.0;
  convolution.winograd_4x4_efficiency = 1e-6;
  convolution.tile_knee = 1.0;
  convolution.k_overhead = 0.0;
  convolution.memory_efficiency = 1.0;
  return parameters;
}

TEST(Winograd, AtEqualEfficiencyTheFusedTwoByTwoAlgorithmIsNineFourthsFaster) {
  // F(2x2, 3x3) computes a 2 x 2 output tile from a 4 x 4 input tile with 16 multiplies where the direct (implicit
  // GEMM) convolution does 2 x 2 x 9 = 36 (Lavin and Gray 2016): the same GEMM with K = in x 4 instead of in x 9, so
  // at equal efficiency and tiles it is 36 / 16 = 2.25 times as fast. 64 -> 128 channels over 32 x 32 at batch 8 on
  // 4 SMs: 8,192 x 128 outputs are 64 tiles of 128 x 128, whole waves, so no split of K is tried.
  const Workload workload = convolution_workload(64, 128, 32, 3, 1);
  DeviceCompute device = kDevice;
  device.sm_count = 4;
  device.memory_bandwidth_Bps = 1e18;  // the traffic never binds
  std::vector<Kernel> kernels = iteration_kernels(workload, 8, Precision::fp32, Pass::training);
  const KernelModelParameters ideal = ideal_winograd_2x2();
  apply_winograd(kernels, workload, 8, Precision::fp32, device, &ideal);
  int convolutions = 0;
  for (const Kernel& kernel : kernels) {
    if (kernel.kind != KernelKind::convolution) continue;
    ++convolutions;
    EXPECT_DOUBLE_EQ(kernel.winograd_speedup, 36.0 / 16.0);
  }
  EXPECT_EQ(convolutions, 3);  // forward, weight and input gradients: each runs the layer's algorithms
  // The kernel's math is its implicit GEMM's divided by that.
  ComputeParameters p = parameters(1.0, 1.0);
  Kernel plain = kernels.front();
  plain.winograd_speedup = 1.0;
  const double implicit_s = kernel_time_s(plain, device, p) - p.kernel_fixed_s;
  EXPECT_NEAR(kernel_time_s(kernels.front(), device, p) - p.kernel_fixed_s, implicit_s / 2.25, 1e-15);
}

TEST(Winograd, OtherConvolutionsAndOtherPrecisionsKeepTheImplicitGemm) {
  const KernelModelParameters ideal = ideal_winograd_2x2();
  for (const auto& [workload, precision] : {std::pair{convolution_workload(64, 128, 32, 3, 2), Precision::fp32},
                                            std::pair{convolution_workload(64, 128, 32, 1, 1), Precision::fp32},
                                            std::pair{convolution_workload(64, 128, 32, 3, 1), Precision::fp16},
                                            std::pair{convolution_workload(64, 128, 32, 3, 1), Precision::tf32}}) {
    std::vector<Kernel> kernels = iteration_kernels(workload, 8, precision, Pass::training);
    apply_winograd(kernels, workload, 8, precision, kDevice, &ideal);
    for (const Kernel& kernel : kernels) EXPECT_DOUBLE_EQ(kernel.winograd_speedup, 1.0);
  }
}

// A 3 x 3 convolution at stride 1, padded by 1, of `images` images of `channels` x height x width to `channels`.
ConvolutionDimensions three_by_three(double images, double channels, double height, double width) {
  return {.images = images,
          .in_channels = channels,
          .out_channels = channels,
          .width = width,
          .height = height,
          .filter_width = 3,
          .filter_height = 3,
          .pad_width = 1,
          .pad_height = 1};
}

// The speedup the kernel model gives `dimensions` on `device` (fp32 CUDA cores at the datasheet clock, no L2, the
// host cost left out), worked out here from the kernel model's own interface, and the algorithm it picks.
std::pair<double, ConvolutionAlgorithm> kernel_model_speedup(const ConvolutionDimensions& dimensions,
                                                             const DeviceCompute& device) {
  KernelDevice kernel_device;
  kernel_device.peak_flops = device.vector_flops;
  kernel_device.sm_count = device.sm_count;
  kernel_device.memory_bandwidth_Bps = device.memory_bandwidth_Bps;
  KernelModelParameters parameters = fitted_kernel_parameters().parameters;
  parameters.of(KernelFamily::convolution).host_s = 0.0;
  parameters.of(KernelFamily::convolution).host_after_launch_s = 0.0;
  const PreparedKernel prepared = prepare_kernel(convolution_gemm(dimensions), kernel_device);
  const KernelPrediction fastest = predict_kernel(prepared, parameters);
  return {predict_kernel(prepared, parameters, ConvolutionAlgorithm::implicit_gemm).time_s / fastest.time_s,
          fastest.algorithm};
}

TEST(Winograd, ADetectorHeadsRegionsAndAWideMapAreConvolvedAsTheImagesTheyAre) {
  // Mask R-CNN's mask head runs its 3 x 3 convolutions on 128 regions of 14 x 14 per image (Tensor::instances): at
  // batch 2 that is 256 images of 14 x 14, not one image of the regions' positions; a 25 x 42 feature map is 25 x 42.
  const GpuSpec* v100 = find_gpu("v100-pcie-32gb");
  ASSERT_NE(v100, nullptr);
  const DeviceCompute device = whole_gpu(*v100, Precision::fp32, v100->memory_bytes);
  struct Case {
    Tensor input;
    ConvolutionDimensions dimensions;
  };
  const Case cases[] = {
      {{.channels = 256, .height = 14, .width = 14, .instances = 128.0, .requires_grad = true},
       three_by_three(256, 256, 14, 14)},
      {{.channels = 256, .height = 25, .width = 42, .requires_grad = true}, three_by_three(2, 256, 25, 42)},
  };
  for (const Case& c : cases) {
    LayerBuilder b;
    b.conv2d(c.input, "conv", Conv2d::square(256, 3, 1, 1));
    Workload workload;
    workload.layers = b.take_layers();
    std::vector<Kernel> kernels = iteration_kernels(workload, 2, Precision::fp32, Pass::inference);
    apply_winograd(kernels, workload, 2, Precision::fp32, device);
    ASSERT_EQ(kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(kernels.front().winograd_speedup, kernel_model_speedup(c.dimensions, device).first);
  }
}

TEST(Winograd, AJobsKernelTimesRunItsThreeByThreeConvolutionsAtTheSpeedup) {
  // kernel_times, which every job's compute plan calls, applies the speedup: the convolution's forward time above
  // the fixed cost is its implicit GEMM's over the kernel model's speedup for its shape.
  const GpuSpec* v100 = find_gpu("v100-pcie-32gb");
  ASSERT_NE(v100, nullptr);
  const DeviceCompute device = whole_gpu(*v100, Precision::fp32, v100->memory_bytes);
  const Workload workload = convolution_workload(256, 256, 56, 3, 1);
  ComputeParameters p = parameters(0.5, 1.0, 3e-6);
  const KernelTimes times = kernel_times(workload, 32, Precision::fp32, device, p, Pass::inference);
  const std::vector<Kernel> plain = iteration_kernels(workload, 32, Precision::fp32, Pass::inference);
  ASSERT_EQ(plain.size(), 1u);
  const double implicit_s = kernel_time_s(plain.front(), device, p) - p.kernel_fixed_s;
  const double speedup = kernel_model_speedup(three_by_three(32, 256, 56, 56), device).first;
  ASSERT_EQ(times.forward_s.size(), 1u);
  EXPECT_NEAR(times.forward_s.front() - p.kernel_fixed_s, implicit_s / speedup, 1e-12);
}

TEST(Winograd, WithTheFittedConstantsALargeConvolutionOnAV100RunsAsTheNonFusedFourByFour) {
  // VGG-16's conv3 (256 -> 256 channels over 56 x 56) at batch 32 on a V100 PCIe in fp32: the kernel model's fitted
  // constants make Winograd F(4x4, 3x3) the fastest (as cuDNN ran most of the V100's many-channel 3 x 3 convolutions
  // in NeuSight's data), bounded by its multiply saving: 144 / 36 = 4 at its efficiency over the implicit GEMM's.
  const GpuSpec* v100 = find_gpu("v100-pcie-32gb");
  ASSERT_NE(v100, nullptr);
  const DeviceCompute device = whole_gpu(*v100, Precision::fp32, v100->memory_bytes);
  const Workload workload = convolution_workload(256, 256, 56, 3, 1);
  std::vector<Kernel> kernels = iteration_kernels(workload, 32, Precision::fp32, Pass::inference);
  apply_winograd(kernels, workload, 32, Precision::fp32, device);
  ASSERT_EQ(kernels.size(), 1u);
  const KernelFamilyParameters& fitted = fitted_kernel_parameters().parameters.of(KernelFamily::convolution);
  EXPECT_GT(kernels.front().winograd_speedup, 2.25 * fitted.winograd_2x2_efficiency / fitted.peak_efficiency);
  EXPECT_LT(kernels.front().winograd_speedup, 4.0 * fitted.winograd_4x4_efficiency / fitted.peak_efficiency);
  EXPECT_EQ(kernel_model_speedup(three_by_three(32, 256, 56, 56), device).second, ConvolutionAlgorithm::winograd_4x4);
}

TEST(KernelTimes, SmallKernelTakesTheSameTimeOnAWholeGpuAndOnASliceWithEnoughSms) {
  // 10 tiles: a whole A100 (108 SMs) and a MIG 1g.5gb (14 SMs) each run them in one wave on 10 SMs at the same
  // per-SM rate; the kernel is compute bound on both (its few bytes fit either's bandwidth).
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  const DeviceCompute whole = whole_gpu(a100, Precision::fp16, a100.memory_bytes);
  const DeviceCompute slice = mig_instance(a100, *find_mig_profile(a100.id, "1g.5gb"), Precision::fp16);
  const Kernel kernel{.flop = 1e9, .bytes = 1e3, .tiles = 10, .kind = KernelKind::gemm};
  const ComputeParameters p = parameters(0.7, 0.8, 3e-6);
  EXPECT_DOUBLE_EQ(kernel_time_s(kernel, whole, p), kernel_time_s(kernel, slice, p));
  // By hand: 10 SMs at 312 Tflop/s / 108 SMs x 0.7.
  EXPECT_NEAR(kernel_time_s(kernel, whole, p), 3e-6 + 1e9 / (312e12 / 108 * 10 * 0.7), 1e-15);
  // 140 tiles fill the slice ten times over but the whole GPU's 108 SMs in two waves: the slice is slower.
  const Kernel big{.flop = 1e9, .bytes = 1e3, .tiles = 140, .kind = KernelKind::gemm};
  EXPECT_NEAR(kernel_time_s(big, slice, p) - 3e-6, 1e9 / (312e12 / 108 * 14 * 0.7), 1e-15);
  EXPECT_NEAR(kernel_time_s(big, whole, p) - 3e-6, 1e9 / (312e12 * 0.7 * 140.0 / 216.0), 1e-15);
}

TEST(KernelTimes, MemoryBoundLayerTakesBytesOverBandwidthTimesEfficiency) {
  // 1e6 activation elements per sample, no weights, batch 4, 80% of 1 TB/s.
  const Workload w = workload_of({layer(1.0, 1.0, 1e6, 0.0)});
  const KernelTimes tf32 = kernel_times(w, 4, Precision::tf32, kDevice, parameters(0.5, 0.8, 2e-6));
  const double tf32_bytes = 4 * 1e6 * 4.0;  // fp32 activations
  EXPECT_DOUBLE_EQ(tf32.forward_s[0], 2e-6 + tf32_bytes / 0.8e12);
  EXPECT_DOUBLE_EQ(tf32.backward_s[0], 2e-6 + 2.0 * tf32_bytes / 0.8e12);
  const KernelTimes amp = kernel_times(w, 4, Precision::fp16, kDevice, parameters(0.5, 0.8));
  EXPECT_DOUBLE_EQ(amp.forward_s[0], 4 * 1e6 * 2.0 / 0.8e12);  // 16-bit activations
}

TEST(KernelTimes, AMeasuredPassRunsAtItsOwnMemoryEfficiency) {
  // The same layer as a layer norm: 1e6 elements at batch 4, fp32, at 0.5 of 1 TB/s where the others get 0.8.
  Layer norm = layer(1.0, 1.0, 1e6, 0.0);
  norm.memory_pass = MemoryPass::layer_norm;
  ComputeParameters p = parameters(0.5, 0.8, 2e-6);
  p.pass_memory_efficiency.at(static_cast<std::size_t>(MemoryPass::layer_norm)) = 0.5;
  const KernelTimes t = kernel_times(workload_of({norm, layer(1.0, 1.0, 1e6, 0.0)}), 4, Precision::tf32, kDevice, p);
  EXPECT_DOUBLE_EQ(t.forward_s[0], 2e-6 + 4 * 1e6 * 4.0 / 0.5e12);
  EXPECT_DOUBLE_EQ(t.forward_gpu_s[1], 2e-6 + 4 * 1e6 * 4.0 / 0.8e12);  // a generic pass: memory_efficiency
  EXPECT_DOUBLE_EQ(p.memory_efficiency_of(MemoryPass::softmax), 0.8);   // not given: memory_efficiency
}

TEST(KernelTimes, LayerWithoutBackwardKernelsTakesNoBackwardTime) {
  const Workload w = workload_of({layer(1e9, 0.0, 1e6, 0.0, 0), layer(1e9, 2e9, 1e6, 0.0)});
  const KernelTimes t = kernel_times(w, 2, Precision::fp16, kDevice, parameters(1.0, 1.0));
  EXPECT_DOUBLE_EQ(t.backward_s[0], 0.0);
  EXPECT_GT(t.backward_s[1], 0.0);
  const KernelTimes inference = kernel_times(w, 2, Precision::fp16, kDevice, parameters(1.0, 1.0), Pass::inference);
  EXPECT_TRUE(inference.backward_s.empty());
  EXPECT_EQ(inference.kernels, 2);
}

TEST(KernelTimes, OptimizerIsOneMemoryBoundPassOverTrainableParameters) {
  // 1e6 trainable and 5e5 frozen parameters. Adam under AMP: read p, g, m, v (16 B), write p, m, v (12 B) and the
  // fp16 copy (2 B) = 30 B each; SGD with momentum in fp32: read p, g, v (12 B), write p, v (8 B) = 20 B.
  Layer frozen = layer(1.0, 1.0, 0.0, 5e5);
  frozen.trainable = false;
  const std::vector<Layer> layers = {layer(1.0, 1.0, 0.0, 1e6), frozen};
  const Workload adam = workload_of(layers, Optimizer::adam);
  EXPECT_DOUBLE_EQ(kernel_times(adam, 1, Precision::fp16, kDevice, parameters(1.0, 0.8)).optimizer_s,
                   1e6 * 30.0 / 0.8e12);
  const Workload sgd = workload_of(layers, Optimizer::sgd_momentum);
  EXPECT_DOUBLE_EQ(kernel_times(sgd, 1, Precision::tf32, kDevice, parameters(1.0, 0.8)).optimizer_s,
                   1e6 * 20.0 / 0.8e12);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(Optimizer::adam, Precision::fp32), 28.0);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(Optimizer::sgd_momentum, Precision::bf16), 22.0);
  // SGD: read p, g, write p (12 B); AdamW as Adam; LAMB: Adam's pass writing the update, then read p and the update
  // and write p for the trust ratio (28 + 12 B); Adafactor: read g, write and read back the update, read and write p.
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(Optimizer::sgd, Precision::fp32), 12.0);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(Optimizer::adamw, Precision::fp32), 28.0);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(Optimizer::lamb, Precision::fp16), 42.0);
  EXPECT_DOUBLE_EQ(optimizer_bytes_per_parameter(Optimizer::adafactor, Precision::fp32), 20.0);
}

TEST(KernelTimes, TensorFlowsPerTensorAdamIsItsOperationsOverEveryTensor) {
  // BERT-large fine-tuned on SQuAD as NVIDIA's TensorFlow BERT trains it: the optimizer is per-tensor operations,
  // 2 (gradient clipping) + 17 (AdamWeightDecay) kernels per tensor in fp32, moving 12 + 156 B per parameter. Its
  // tensors (google-research/bert modeling.py's variables): three embedding tables and their LayerNorm's two; per
  // block a weight and a bias for each of query, key, value, the projection and the two MLP products, and two per
  // LayerNorm (16); the span classifier's two. The pooler's two get no gradient.
  Workload bert = *make_workload("bert-large-squad-seq384");
  use_framework(bert, Framework::tensorflow);
  ASSERT_EQ(bert.optimizer_kernels, OptimizerKernels::per_tensor_ops);
  const int tensors = 3 + 2 + 24 * 16 + 2;
  EXPECT_EQ(bert.trainable_parameter_tensors(), tensors);
  const std::vector<Kernel> kernels = iteration_kernels(bert, 1, Precision::fp32, Pass::training);
  const Kernel& step = kernels.back();
  ASSERT_EQ(step.phase, Phase::optimizer);
  EXPECT_EQ(step.launches, 19 * tensors);
  EXPECT_DOUBLE_EQ(step.bytes, bert.trainable_parameters() * (12.0 + 156.0));
  // Under mixed precision the loss scale's unscaling and the finite check add 3 kernels and 14 B; LAMB's update is
  // 31 kernels and 196 B.
  bert.optimizer = Optimizer::lamb;
  const std::vector<Kernel> lamb_kernels = iteration_kernels(bert, 1, Precision::fp16, Pass::training);
  const Kernel& lamb = lamb_kernels.back();
  EXPECT_EQ(lamb.launches, (5 + 31) * tensors);
  EXPECT_DOUBLE_EQ(lamb.bytes, bert.trainable_parameters() * (26.0 + 196.0));
  // Accumulating 4 micro-batches per step (create_optimizer's accumulation branch): the gradients' kernels and an
  // add into each accumulator (1 kernel, 12 B) end every micro-batch's backward; the update runs once per step.
  const std::vector<Kernel> accumulating = iteration_kernels(bert, 1, Precision::fp16, Pass::training, 4);
  const Kernel& micro_batch = accumulating[accumulating.size() - 2];
  EXPECT_EQ(micro_batch.phase, Phase::backward);
  EXPECT_EQ(micro_batch.layer, 0u);
  EXPECT_EQ(micro_batch.launches, (5 + 1) * tensors);
  EXPECT_DOUBLE_EQ(micro_batch.bytes, bert.trainable_parameters() * (26.0 + 12.0));
  EXPECT_EQ(accumulating.back().phase, Phase::optimizer);
  EXPECT_EQ(accumulating.back().launches, 31 * tensors);
  EXPECT_DOUBLE_EQ(accumulating.back().bytes, bert.trainable_parameters() * 196.0);
  // PyTorch's (Apex's fused multi-tensor optimizers) stays one pass, launched in groups of at most 320 chunks of
  // 65,536 parameters: BERT-large's 334 million in 391 tensors (each with a partial last chunk, counted as half) are
  // 5,290 chunks, 17 launches.
  use_framework(bert, Framework::pytorch);
  const Kernel fused = iteration_kernels(bert, 1, Precision::fp16, Pass::training).back();
  EXPECT_EQ(fused.launches, static_cast<int>(std::ceil((bert.trainable_parameters() / 65536.0 + tensors / 2.0) / 320)));
  EXPECT_EQ(fused.launches, 17);
}

TEST(KernelTimes, ABiasGradientSumsTheOutputGradientOverTheRows) {
  // A linear layer of 100 rows x 64 columns per sample with a bias, at batch 4 in fp16: after its two gradient
  // kernels, one reduction reads the 4 x 100 x 64 output-gradient elements (2 B each) and writes 64 fp32 sums.
  Layer linear = gemm_layer(1e6, 100, 64);
  linear.parameters = 64 * 32 + 64;
  linear.trainable = true;
  linear.bias_tensors = 1;
  const std::vector<Kernel> kernels = iteration_kernels(workload_of({linear}), 4, Precision::fp16, Pass::training);
  ASSERT_EQ(kernels.size(), 5u);  // forward, two gradients, the bias's, the optimizer
  const Kernel& bias = kernels[3];
  EXPECT_EQ(bias.phase, Phase::backward);
  EXPECT_EQ(bias.pass, MemoryPass::bias_gradient);
  EXPECT_EQ(kernel_class(bias), KernelClass::bias_gradient);
  EXPECT_DOUBLE_EQ(bias.bytes, 4 * 100 * 64 * 2.0 + 64 * 4.0);
  EXPECT_DOUBLE_EQ(bias.flop, 4 * 100 * 64.0);
  // At the layer norm passes' efficiency where one is given.
  ComputeParameters p = parameters(1.0, 0.8);
  p.pass_memory_efficiency.at(static_cast<std::size_t>(MemoryPass::bias_gradient)) = 0.5;
  EXPECT_DOUBLE_EQ(kernel_time_s(bias, kDevice, p), (4 * 100 * 64 * 2.0 + 64 * 4.0) / 0.5e12);
  // A frozen layer computes no bias gradient.
  linear.trainable = false;
  for (const Kernel& kernel : iteration_kernels(workload_of({linear}), 4, Precision::fp16, Pass::training)) {
    EXPECT_NE(kernel.pass, MemoryPass::bias_gradient);
  }
}

TEST(KernelTimes, BertSumsEachOfItsTrainedBiasesGradients) {
  // BERT-large fine-tuned on SQuAD: per block the query's, key's and value's biases, the projection's and the two
  // MLP products' (6 x 24), and the span classifier's; the pooler's gets no gradient. In fp32 each reduction reads
  // 4 B per output element.
  const Workload bert = *make_workload("bert-large-squad-seq384");
  int launches = 0;
  for (const Kernel& kernel : iteration_kernels(bert, 2, Precision::fp32, Pass::training)) {
    if (kernel.pass == MemoryPass::bias_gradient) launches += kernel.launches;
  }
  EXPECT_EQ(launches, 6 * 24 + 1);
  // Inference computes no gradient.
  for (const Kernel& kernel : iteration_kernels(bert, 2, Precision::fp32, Pass::inference)) {
    EXPECT_NE(kernel.pass, MemoryPass::bias_gradient);
  }
}

// One layer of `parameters` in `tensors` trainable tensors, training with `optimizer` as `kernels` runs it.
Workload optimizer_workload(double parameters, int tensors, Optimizer optimizer, OptimizerKernels kernels) {
  Layer weights = layer(0.0, 0.0, 0.0, parameters);
  weights.parameter_tensors = tensors;
  Workload w = workload_of({weights}, optimizer);
  w.optimizer_kernels = kernels;
  return w;
}

TEST(OptimizerKernels, TorchsForeachAdamWIsEightPassesOverEveryTensorInMultiTensorLaunches) {
  // 640 chunks of 65,536 parameters in 2 tensors: 641 chunks with the two partial ones counted as half each, 3
  // launches of at most 320 per operation (2 tensors are far from any tensor limit). AdamW in torch/optim/adam.py's
  // _multi_tensor_adam: params *= 1 - lr wd (read and write 4 B each: 8), lerp of m towards g (read m and g, write m:
  // 12), v *= beta2 (8), v += (1 - beta2) g g (read v, g, g, write v: 16), d = sqrt(v) (8), d /= bc2 (8), d += eps
  // (8), params += -step m / d (read p, m, d, write p: 16): 8 operations, 84 B per parameter.
  const double parameters = 640 * 65536.0;
  const Workload adamw = optimizer_workload(parameters, 2, Optimizer::adamw, OptimizerKernels::torch_foreach);
  const Kernel step = iteration_kernels(adamw, 1, Precision::fp32, Pass::training).back();
  EXPECT_EQ(step.phase, Phase::optimizer);
  EXPECT_EQ(step.pass, MemoryPass::elementwise);
  EXPECT_EQ(step.launches, 8 * 3);
  EXPECT_DOUBLE_EQ(step.bytes, parameters * 84.0);
  // Adam runs no weight decay at torch.optim's default (weight_decay=0): 7 operations, 76 B. SGD with momentum: buf
  // *= momentum (8), buf += g (12), params += -lr buf (12): 3 operations, 32 B; plain SGD one add (12 B).
  const auto foreach = [&](Optimizer optimizer) {
    return iteration_kernels(optimizer_workload(parameters, 2, optimizer, OptimizerKernels::torch_foreach), 1,
                             Precision::fp32, Pass::training)
        .back();
  };
  EXPECT_EQ(foreach(Optimizer::adam).launches, 7 * 3);
  EXPECT_DOUBLE_EQ(foreach(Optimizer::adam).bytes, parameters * 76.0);
  EXPECT_EQ(foreach(Optimizer::sgd_momentum).launches, 3 * 3);
  EXPECT_DOUBLE_EQ(foreach(Optimizer::sgd_momentum).bytes, parameters * 32.0);
  EXPECT_EQ(foreach(Optimizer::sgd).launches, 3);
  EXPECT_DOUBLE_EQ(foreach(Optimizer::sgd).bytes, parameters * 12.0);
  // The fused pass over the same parameters: one operation, 28 B, 3 launches.
  const Kernel fused =
      iteration_kernels(optimizer_workload(parameters, 2, Optimizer::adamw, OptimizerKernels::multi_tensor), 1,
                        Precision::fp32, Pass::training)
          .back();
  EXPECT_EQ(fused.launches, 3);
  EXPECT_DOUBLE_EQ(fused.bytes, parameters * 28.0);
}

TEST(OptimizerKernels, ApexAndMegatronCopyTheMasterWeightsInAPassOfTheirOwn) {
  // 640 chunks of 65,536 parameters in 2 tensors, fused AdamW under bf16 (no convolutions): PyTorch keeps 16-bit
  // weights beside fp32 masters (Apex's O2, Megatron-LM), so the update is the fp32 pass alone, 28 B per parameter in
  // 3 launches, and the copy of the masters into the 16-bit weights follows it: read 4, write 2 = 6 B, 3 launches of
  // 2 lists (641 chunks at most 320 per launch).
  const double parameters = 640 * 65536.0;
  Workload gpt = optimizer_workload(parameters, 2, Optimizer::adamw, OptimizerKernels::multi_tensor);
  use_framework(gpt, Framework::pytorch);
  ASSERT_TRUE(gpt.master_weight_copy);
  const std::vector<Kernel> kernels = iteration_kernels(gpt, 1, Precision::bf16, Pass::training);
  ASSERT_GE(kernels.size(), 2u);
  const Kernel& update = kernels[kernels.size() - 2];
  const Kernel& copy = kernels.back();
  EXPECT_EQ(update.phase, Phase::optimizer);
  EXPECT_DOUBLE_EQ(update.bytes, parameters * 28.0);
  EXPECT_EQ(update.launches, 3);
  EXPECT_EQ(copy.phase, Phase::optimizer);
  EXPECT_DOUBLE_EQ(copy.bytes, parameters * 6.0);
  EXPECT_EQ(copy.launches, 3);
  // In fp32 there is nothing to copy; TensorFlow's graph keeps fp32 variables, counted as the fused pass writing the
  // 16-bit copy (28 + 2 B) in one kernel.
  EXPECT_DOUBLE_EQ(iteration_kernels(gpt, 1, Precision::fp32, Pass::training).back().bytes, parameters * 28.0);
  Workload tf = optimizer_workload(parameters, 2, Optimizer::sgd_momentum, OptimizerKernels::multi_tensor);
  use_framework(tf, Framework::tensorflow);
  EXPECT_FALSE(tf.master_weight_copy);
  EXPECT_DOUBLE_EQ(iteration_kernels(tf, 1, Precision::fp16, Pass::training).back().bytes, parameters * 22.0);
}

// The optimizer step's kernels of one iteration of `w` in `precision`: their launches, bytes, the host's waits and
// the launches a Python loop issues.
struct OptimizerStep {
  int launches = 0;
  double bytes = 0.0;
  int synchronizations = 0;
  int loop_launches = 0;
};
OptimizerStep optimizer_step(const Workload& w, Precision precision) {
  OptimizerStep step;
  for (const Kernel& kernel : iteration_kernels(w, 1, precision, Pass::training)) {
    if (kernel.phase != Phase::optimizer) continue;
    step.launches += kernel.launches;
    step.bytes += kernel.bytes;
    step.synchronizations += kernel.synchronizations;
    step.loop_launches += kernel.python_loop ? kernel.launches : 0;
  }
  return step;
}

TEST(OptimizerKernels, TorchsForLoopRunsTheSameOperationsTensorByTensor) {
  // _single_tensor_adam: the same 8 operations for AdamW, one kernel per tensor each: 8 x 5 tensors, all issued by
  // the Python loop.
  const double parameters = 1e6;
  Workload adamw = optimizer_workload(parameters, 5, Optimizer::adamw, OptimizerKernels::torch_for_loop);
  adamw.master_weight_copy = true;  // 16-bit weights beside the fp32 ones, as use_framework sets it without autocast
  const OptimizerStep step = optimizer_step(adamw, Precision::fp32);
  EXPECT_EQ(step.launches, 8 * 5);
  EXPECT_EQ(step.loop_launches, 8 * 5);
  EXPECT_DOUBLE_EQ(step.bytes, parameters * 84.0);
  EXPECT_EQ(step.synchronizations, 0);
  // Under fp16 with 16-bit weights beside the fp32 ones: GradScaler's foreach unscale of the gradients (read and
  // write 4 B; 1 launch: 1e6 parameters in 5 tensors are 18 chunks) and the copy to 16 bits (read 4, write 2; 1
  // launch), multi-tensor launches outside the loop.
  const OptimizerStep mixed = optimizer_step(adamw, Precision::fp16);
  EXPECT_EQ(mixed.launches, 1 + 1 + 8 * 5);
  EXPECT_EQ(mixed.loop_launches, 8 * 5);
  EXPECT_DOUBLE_EQ(mixed.bytes, parameters * (8.0 + 6.0 + 84.0));
  // bf16 needs no loss scale; under autocast the weights stay fp32 and no copy is written.
  EXPECT_DOUBLE_EQ(optimizer_step(adamw, Precision::bf16).bytes, parameters * (6.0 + 84.0));
  Workload autocast = adamw;
  autocast.autocast_weight_casts = true;
  autocast.master_weight_copy = false;
  EXPECT_DOUBLE_EQ(optimizer_step(autocast, Precision::bf16).bytes, parameters * 84.0);
}

TEST(OptimizerKernels, DeepLearningExamplesBertAdamClipsAndUpdatesTensorByTensor) {
  // 1e6 parameters in 5 tensors (18 chunks of 65,536: one multi-tensor launch), all weights (no bias, no LayerNorm).
  // run_squad.py's GradientClipper: Apex's multi_tensor_l2norm (the at::zeros of its per-block sums, 1 launch and its
  // cleanup kernel, read 4 B), the host reading the norm (1 wait), multi_tensor_scale (1 launch, read 4 and write 4).
  // Then BertAdam per tensor: clip_grad_norm_ (norm, stack, norm, add, reciprocal, product, and before PyTorch's PR
  // #61042 the comparison the host waits on: 7 kernels, read 4 B; since, clamp and the gradient's scaling instead: 8
  // kernels, 4 + 8 B) and the update (next_m: 8 + 12 B; next_v: 8 + 16; sqrt, + eps, divide: 8 + 8 + 12; weight decay's
  // product and add: 8 + 12; the learning rate's product, the negation and the add into the weights: 8 + 8 + 12; 12
  // kernels, 120 B); then zero_grad's zero_() per tensor (write 4 B).
  const double parameters = 1e6;
  const OptimizerStep waiting = optimizer_step(
      optimizer_workload(parameters, 5, Optimizer::adam, OptimizerKernels::bert_adam_sync), Precision::fp32);
  EXPECT_EQ(waiting.launches, 3 + 1 + (7 + 12 + 1) * 5);
  EXPECT_EQ(waiting.loop_launches, (7 + 12 + 1) * 5);
  EXPECT_DOUBLE_EQ(waiting.bytes, parameters * (4.0 + 8.0 + 4.0 + 120.0 + 4.0));
  EXPECT_EQ(waiting.synchronizations, 1 + 5);
  const OptimizerStep clamped =
      optimizer_step(optimizer_workload(parameters, 5, Optimizer::adam, OptimizerKernels::bert_adam), Precision::fp32);
  EXPECT_EQ(clamped.launches, 3 + 1 + (8 + 12 + 1) * 5);
  EXPECT_DOUBLE_EQ(clamped.bytes, parameters * (4.0 + 8.0 + 12.0 + 120.0 + 4.0));
  EXPECT_EQ(clamped.synchronizations, 1);
  // Biases get no weight decay (run_squad.py's no_decay): two of the five tensors save its 2 kernels each.
  Workload biased = optimizer_workload(parameters, 5, Optimizer::adam, OptimizerKernels::bert_adam_sync);
  biased.layers[0].bias_tensors = 2;
  EXPECT_EQ(optimizer_step(biased, Precision::fp32).launches, 3 + 1 + (7 + 10 + 1) * 5 + 2 * 3);

  // BERT-large fine-tuned on SQuAD: 391 trained tensors, of which weight matrices and embedding tables take weight
  // decay: per layer query, key, value, output and both MLP products (6 x 24), the three embedding tables and the
  // span classifier's weight, 148. The step: 18 kernels per tensor and 2 more for each of the 148.
  Workload bert = *make_workload("bert-large-squad-seq384");
  bert.optimizer_kernels = OptimizerKernels::bert_adam_sync;
  ASSERT_EQ(bert.trainable_parameter_tensors(), 391);
  const OptimizerStep step = optimizer_step(bert, Precision::fp32);
  EXPECT_EQ(step.loop_launches, 18 * 391 + 2 * 148);
  EXPECT_EQ(step.synchronizations, 1 + 391);
}

TEST(OptimizerKernels, DeepLearningExamplesBertUnderFp16UnscalesClipsAndUpdatesTheMasters) {
  // 1e6 parameters in 5 tensors (18 chunks of 65,536: one multi-tensor launch for any number of lists), fp16 weights
  // beside fp32 masters (Apex AMP O2). Apex zeroes its overflow flag (1 kernel), unscales the fp16 gradients into fp32
  // master gradients (multi_tensor_scale, read 2, write 4 B) and reads the flag (a wait); run_squad.py's
  // GradientClipper: multi_tensor_l2norm with the at::zeros of its per-block sums and its cleanup kernel (read 4 B),
  // the norm read on the host (a second wait), multi_tensor_scale (read 4, write 4); FusedAdam over the masters (read
  // 16, write 12: 28 B); O2's copy of the masters into the fp16 weights (read 4, write 2); then O2's zero_grad, a
  // Python loop writing zeros into each fp16 gradient (2 B, 5 launches).
  const double parameters = 1e6;
  Workload bert = optimizer_workload(parameters, 5, Optimizer::adam, OptimizerKernels::multi_tensor);
  use_framework(bert, Framework::pytorch);
  bert.optimizer_kernels = OptimizerKernels::bert_fused_adam;
  ASSERT_TRUE(bert.master_weight_copy);
  const OptimizerStep step = optimizer_step(bert, Precision::fp16);
  EXPECT_EQ(step.launches, 2 + 3 + 1 + 1 + 1 + 5);
  EXPECT_EQ(step.loop_launches, 5);
  EXPECT_DOUBLE_EQ(step.bytes, parameters * (6.0 + 4.0 + 8.0 + 28.0 + 6.0 + 2.0));
  EXPECT_EQ(step.synchronizations, 2);
  // Under gradient accumulation the code unscales and clips after every micro-batch's backward; the update, the copy
  // and zero_grad stay the step's.
  double accumulated_optimizer_bytes = 0.0;
  for (const Kernel& kernel : iteration_kernels(bert, 1, Precision::fp16, Pass::training, 4)) {
    if (kernel.phase == Phase::optimizer) accumulated_optimizer_bytes += kernel.bytes;
  }
  EXPECT_DOUBLE_EQ(accumulated_optimizer_bytes, parameters * (28.0 + 6.0 + 2.0));
  // The loader takes it for an Adam in PyTorch only.
  using enum OptimizerImplementation;
  EXPECT_EQ(optimizer_kernels_for(bert_fused_adam, Framework::pytorch, Optimizer::adamw).kernels,
            OptimizerKernels::bert_fused_adam);
  EXPECT_FALSE(optimizer_kernels_for(bert_fused_adam, Framework::tensorflow, Optimizer::adam).refused.empty());
  EXPECT_FALSE(optimizer_kernels_for(bert_fused_adam, Framework::pytorch, Optimizer::lamb).refused.empty());
}

TEST(OptimizerKernels, LaunchCountsMatchTheH200sProfiledForeachSteps) {
  // data/measured/h200-sxm-2026-12-04-optimizer/optimizer-steps.json (torch.profiler, PyTorch 2.11): AdamW foreach
  // over BERT-large's 398 tensors of 336,226,108 parameters launched 136 kernels, over a 1.3B GPT's 292 tensors of
  // 1,315,819,520 parameters 512; SGD with momentum 51 and 192; the for-loop AdamW 3,184 and 2,336.
  const auto launches = [](double parameters, int tensors, Optimizer optimizer, OptimizerKernels kernels) {
    return iteration_kernels(optimizer_workload(parameters, tensors, optimizer, kernels), 1, Precision::fp32,
                             Pass::training)
        .back()
        .launches;
  };
  EXPECT_EQ(launches(336226108, 398, Optimizer::adamw, OptimizerKernels::torch_foreach), 136);
  EXPECT_EQ(launches(1315819520, 292, Optimizer::adamw, OptimizerKernels::torch_foreach), 512);
  EXPECT_EQ(launches(336226108, 398, Optimizer::sgd_momentum, OptimizerKernels::torch_foreach), 51);
  EXPECT_EQ(launches(1315819520, 292, Optimizer::sgd_momentum, OptimizerKernels::torch_foreach), 192);
  EXPECT_EQ(launches(336226108, 398, Optimizer::adamw, OptimizerKernels::torch_for_loop), 3184);
  EXPECT_EQ(launches(1315819520, 292, Optimizer::adamw, OptimizerKernels::torch_for_loop), 2336);
}

TEST(OptimizerKernels, EachFrameworkCountsTheImplementationsItsCodeHas) {
  using enum OptimizerImplementation;
  EXPECT_EQ(optimizer_kernels_for(foreach, Framework::pytorch, Optimizer::adamw).kernels,
            OptimizerKernels::torch_foreach);
  EXPECT_EQ(optimizer_kernels_for(for_loop, Framework::pytorch, Optimizer::sgd).kernels,
            OptimizerKernels::torch_for_loop);
  EXPECT_EQ(optimizer_kernels_for(for_loop, Framework::tensorflow, Optimizer::lamb).kernels,
            OptimizerKernels::per_tensor_ops);
  for (Framework framework : {Framework::pytorch, Framework::tensorflow, Framework::mxnet}) {
    const OptimizerKernelsChoice choice = optimizer_kernels_for(fused, framework, Optimizer::lamb);
    EXPECT_EQ(choice.kernels, OptimizerKernels::multi_tensor);
    EXPECT_TRUE(choice.refused.empty());
  }
  // torch.optim has no LAMB; TensorFlow has no foreach; MXNet's loop is not counted.
  EXPECT_FALSE(optimizer_kernels_for(foreach, Framework::pytorch, Optimizer::lamb).refused.empty());
  EXPECT_FALSE(optimizer_kernels_for(foreach, Framework::tensorflow, Optimizer::adam).refused.empty());
  EXPECT_FALSE(optimizer_kernels_for(for_loop, Framework::tensorflow, Optimizer::sgd_momentum).refused.empty());
  EXPECT_FALSE(optimizer_kernels_for(for_loop, Framework::mxnet, Optimizer::sgd_momentum).refused.empty());
  // BertAdam is DeepLearningExamples' PyTorch code, an Adam.
  EXPECT_EQ(optimizer_kernels_for(bert_adam, Framework::pytorch, Optimizer::adamw).kernels,
            OptimizerKernels::bert_adam);
  EXPECT_EQ(optimizer_kernels_for(bert_adam_sync, Framework::pytorch, Optimizer::adam).kernels,
            OptimizerKernels::bert_adam_sync);
  EXPECT_FALSE(optimizer_kernels_for(bert_adam, Framework::tensorflow, Optimizer::adam).refused.empty());
  EXPECT_FALSE(optimizer_kernels_for(bert_adam_sync, Framework::pytorch, Optimizer::lamb).refused.empty());
}

TEST(KernelTimes, ATensorCoreConvolutionOnNchwTensorsPaysCudnnsTransposesPerCall) {
  // A convolution reading and writing 1e6 activation elements per sample with 1e5 weights, at batch 4, whose backward
  // runs an input and a weight gradient: on NCHW tensors in fp16 each of its three cuDNN calls adds a pass that reads
  // and writes its activations and filter once, 2 x (4 x 1e6 + 1e5) x 2 B = 16.4 MB, in 3 launches.
  Layer conv = layer(1e9, 2e9, 1e6, 1e5, 2);
  conv.kind = KernelKind::convolution;
  conv.gemm = {.rows_per_sample = 3136, .columns = 64};
  Workload w = workload_of({conv});
  w.layout = TensorLayout::nchw;
  const std::vector<Kernel> kernels = iteration_kernels(w, 4, Precision::fp16, Pass::training);
  // The forward product and its transposes; each backward product and its transposes; the optimizer.
  ASSERT_EQ(kernels.size(), 7u);
  const Phase phases[] = {Phase::forward, Phase::forward, Phase::backward, Phase::backward,
                          Phase::backward, Phase::backward, Phase::optimizer};
  for (std::size_t k = 0; k < kernels.size(); ++k) EXPECT_EQ(kernels[k].phase, phases[k]) << k;
  for (std::size_t k : {0u, 2u, 4u}) EXPECT_EQ(kernels[k].kind, KernelKind::convolution) << k;
  for (std::size_t k : {1u, 3u, 5u}) {
    EXPECT_EQ(kernels[k].kind, KernelKind::memory) << k;
    EXPECT_EQ(kernels[k].layer, 0u) << k;
    EXPECT_EQ(kernels[k].launches, 3) << k;
    EXPECT_DOUBLE_EQ(kernels[k].bytes, 2.0 * (4 * 1e6 + 1e5) * 2.0) << k;
    EXPECT_TRUE(kernels[k].within_previous_call) << k;  // cuDNN launches them inside the convolution's call
  }
  // A TF32 convolution runs on the tensor cores too: the same passes over its 4-byte activations and filter.
  const std::vector<Kernel> tf32 = iteration_kernels(w, 4, Precision::tf32, Pass::training);
  ASSERT_EQ(tf32.size(), 7u);
  for (std::size_t k : {1u, 3u, 5u}) EXPECT_DOUBLE_EQ(tf32[k].bytes, 2.0 * (4 * 1e6 + 1e5) * 4.0) << k;
  // fp32 on the CUDA cores and channels-last tensors pay none.
  EXPECT_EQ(iteration_kernels(w, 4, Precision::fp32, Pass::training).size(), 4u);
  w.layout = TensorLayout::nhwc;
  EXPECT_EQ(iteration_kernels(w, 4, Precision::fp16, Pass::training).size(), 4u);
  EXPECT_EQ(iteration_kernels(w, 4, Precision::tf32, Pass::training).size(), 4u);
  // The frameworks' defaults: PyTorch's NCHW, TensorFlow's NHWC.
  use_framework(w, Framework::pytorch);
  EXPECT_EQ(w.layout, TensorLayout::nchw);
  use_framework(w, Framework::tensorflow);
  EXPECT_EQ(w.layout, TensorLayout::nhwc);
}

TEST(KernelTimes, PyTorchsAutocastCastsEveryWeightTensorOfAConvolutionOrLinearLayerEachForward) {
  // ResNet-50 v1.5 has 25,557,032 parameters (torchvision), of which its 53 BatchNorms hold a scale and a shift per
  // channel: 2 x (64 + 3 x (64 + 64 + 256) + 256 + 4 x (128 + 128 + 512) + 512 + 6 x (256 + 256 + 1024) + 1024
  // + 3 x (512 + 512 + 2048) + 2048) = 53,120 (the stem's, each bottleneck's three, each stage's downsample);
  // autocast casts the rest, the 53 convolutions' weights and the classifier's weight and bias: 55 kernels moving
  // 6 B per parameter (read 4, write 2) in forward, and their gradients back in backward. PyTorch also runs the
  // loss's softmax over the 1,000 logits of each of the 8 images in fp32 (loss_bytes: 14 - 4 bytes more per logit
  // forward, 22 - 8 backward).
  const double cast_parameters = 25'557'032.0 - 53'120.0;
  Workload pytorch = *make_workload("resnet-50");
  use_framework(pytorch, Framework::pytorch);
  Workload tensorflow = *make_workload("resnet-50");
  use_framework(tensorflow, Framework::tensorflow);
  ASSERT_TRUE(pytorch.autocast_weight_casts);
  ASSERT_FALSE(tensorflow.autocast_weight_casts);
  pytorch.layout = tensorflow.layout;  // no transposes in either
  const auto totals = [](const std::vector<Kernel>& kernels, Phase phase) {
    std::pair<int, double> launches_and_bytes{0, 0.0};
    for (const Kernel& kernel : kernels) {
      if (kernel.phase != phase) continue;
      launches_and_bytes.first += kernel.launches;
      launches_and_bytes.second += kernel.bytes;
    }
    return launches_and_bytes;
  };
  const auto with = iteration_kernels(pytorch, 8, Precision::fp16, Pass::training);
  const auto without = iteration_kernels(tensorflow, 8, Precision::fp16, Pass::training);
  for (Phase phase : {Phase::forward, Phase::backward}) {
    EXPECT_EQ(totals(with, phase).first - totals(without, phase).first, 55);
    const double loss_bytes_more = 8 * 1000.0 * (phase == Phase::forward ? 14.0 - 4.0 : 22.0 - 8.0);
    EXPECT_NEAR(totals(with, phase).second - totals(without, phase).second, 6.0 * cast_parameters + loss_bytes_more,
                1.0);
  }
  // The optimizer then writes no 16-bit copy of the weights (SGD with momentum: 20 B per parameter, not 22).
  EXPECT_NEAR(totals(without, Phase::optimizer).second - totals(with, Phase::optimizer).second,
              2.0 * pytorch.trainable_parameters(), 1.0);
  // In fp32 nothing is cast; an inference batch casts as a forward does.
  EXPECT_EQ(totals(iteration_kernels(pytorch, 8, Precision::fp32, Pass::inference), Phase::forward).first,
            totals(iteration_kernels(tensorflow, 8, Precision::fp32, Pass::inference), Phase::forward).first);
  EXPECT_EQ(totals(iteration_kernels(pytorch, 8, Precision::fp16, Pass::inference), Phase::forward).first -
                totals(iteration_kernels(tensorflow, 8, Precision::fp16, Pass::inference), Phase::forward).first,
            55);
}

TEST(KernelTimes, EachKernelsDeviceTimeIsCountedInItsClass) {
  // On the made-up device (100 Tflop/s, 1 TB/s) at GEMM efficiency 0.5 and memory 0.8, no fixed cost: a GEMM of
  // 1 Gflop over 10 full waves takes 20 us; two element-wise launches of 8 MB 10 us each; a softmax of 4 MB 5 us; a
  // generic pass of 0.8 MB 1 us; the optimizer's pass of 16 MB 20 us, whatever its kind.
  const std::vector<Kernel> kernels = {
      {0, Phase::forward, 1e9, 0.0, 1000, KernelKind::gemm, MemoryPass::generic, 1},
      {0, Phase::forward, 0.0, 16e6, 0.0, KernelKind::memory, MemoryPass::elementwise, 2},
      {0, Phase::backward, 0.0, 4e6, 0.0, KernelKind::memory, MemoryPass::softmax, 1},
      {0, Phase::backward, 0.0, 0.8e6, 0.0, KernelKind::memory, MemoryPass::generic, 1},
      {0, Phase::optimizer, 0.0, 16e6, 0.0, KernelKind::memory, MemoryPass::elementwise, 1}};
  const KernelTimes t = time_kernels(kernels, 1, kDevice, parameters(0.5, 0.8));
  const auto of = [&](KernelClass kernel_class) { return t.by_class[static_cast<std::size_t>(kernel_class)]; };
  EXPECT_NEAR(of(KernelClass::gemm).gpu_s, 20e-6, 1e-15);
  EXPECT_EQ(of(KernelClass::gemm).kernels, 1);
  EXPECT_NEAR(of(KernelClass::elementwise).gpu_s, 20e-6, 1e-15);
  EXPECT_EQ(of(KernelClass::elementwise).kernels, 2);
  EXPECT_NEAR(of(KernelClass::softmax).gpu_s, 5e-6, 1e-15);
  EXPECT_NEAR(of(KernelClass::other_memory).gpu_s, 1e-6, 1e-15);
  EXPECT_NEAR(of(KernelClass::optimizer).gpu_s, 20e-6, 1e-15);
  EXPECT_EQ(of(KernelClass::convolution).kernels, 0);
  EXPECT_EQ(of(KernelClass::layer_norm).kernels, 0);
  EXPECT_NEAR(t.gpu_busy_s, 66e-6, 1e-15);  // the classes make up the whole
  EXPECT_EQ(to_string(KernelClass::other_memory), "other_memory");
}

TEST(HostDispatch, AKernelOfManyLaunchesTimesAsThatManyKernels) {
  // 40 launches of 2 us each (2 MB at 1 TB/s) behind a host issuing one every 5 us, then 40 of 20 us: as one Kernel
  // of 40 launches each, or as 40 separate ones, the step ends at the same time with the same device time.
  std::vector<Kernel> separate;
  for (double bytes : {2e6, 20e6}) {
    for (int i = 0; i < 40; ++i) {
      separate.push_back({0, Phase::forward, 0.0, bytes, 0.0, KernelKind::memory, MemoryPass::generic, 1});
    }
  }
  const std::vector<Kernel> grouped = {{0, Phase::forward, 0.0, 40 * 2e6, 0.0, KernelKind::memory,
                                        MemoryPass::generic, 40},
                                       {0, Phase::forward, 0.0, 40 * 20e6, 0.0, KernelKind::memory,
                                        MemoryPass::generic, 40}};
  const ComputeParameters host_paced = parameters(1.0, 1.0, 1e-6, 5e-6);
  const KernelTimes one_by_one = time_kernels(separate, 1, kDevice, host_paced);
  const KernelTimes together = time_kernels(grouped, 1, kDevice, host_paced);
  // By hand: the first 40 are host-bound and the last of them ends at 39 x 5 + 3 us; the next 40 (21 us each) start
  // at 40 x 5 = 200 us, after which the device is never idle: 200 + 40 x 21 us.
  EXPECT_NEAR(one_by_one.total_s(), 200e-6 + 40 * 21e-6, 1e-12);
  EXPECT_NEAR(together.total_s(), one_by_one.total_s(), 1e-12);
  EXPECT_NEAR(together.gpu_busy_s, one_by_one.gpu_busy_s, 1e-12);
  EXPECT_EQ(together.kernels, 80);
}

TEST(HostDispatch, ALibrarysOwnLaunchesInsideACallCostTheHostTheirLaunchesAlone) {
  // Three kernels of 1 us at a dispatch of 20 us, the second 3 launches that the first's call makes itself
  // (Kernel::within_previous_call, cuDNN's transposes): the first is issued at 0 and ends at 1 us, the library's run
  // straight after it (ends at 4 us), the third is issued a dispatch after the first, at 20 us, and ends at 21 us.
  // Dispatched by the framework like any other kernel the five launches would end at 4 x 20 + 1 = 81 us.
  std::vector<Kernel> kernels(3, Kernel{0, Phase::forward, 0.0, 1e6, 0.0, KernelKind::memory, MemoryPass::generic, 1});
  kernels[1].launches = 3;
  kernels[1].bytes = 3e6;
  const ComputeParameters p = parameters(1.0, 1.0, 0.0, 20e-6);
  EXPECT_NEAR(time_kernels(kernels, 1, kDevice, p).total_s(), 81e-6, 1e-15);
  kernels[1].within_previous_call = true;
  const KernelTimes t = time_kernels(kernels, 1, kDevice, p);
  EXPECT_NEAR(t.total_s(), 21e-6, 1e-15);
  EXPECT_NEAR(t.gpu_busy_s, 5e-6, 1e-15);
  EXPECT_EQ(t.kernels, 5);
  // The library's launches 30 us each (at 1 TB/s): they run straight after the first kernel, 1 to 91 us, and the third
  // follows at 92 us; dispatched one by one at 20, 40 and 60 us they would start at 20, 50 and 80 us, the third
  // kernel, issued at 80 us, ending at 111 us.
  kernels[1].bytes = 90e6;
  EXPECT_NEAR(time_kernels(kernels, 1, kDevice, p).total_s(), 92e-6, 1e-12);
  kernels[1].within_previous_call = false;
  EXPECT_NEAR(time_kernels(kernels, 1, kDevice, p).total_s(), 111e-6, 1e-12);
  // Each of the library's launches costing the host 4 us (ComputeParameters::library_launch_host_s), 1 us each on the
  // device: the library's are issued at 4, 8 and 12 us and end at 5, 9 and 13 us; the third kernel is issued a
  // dispatch after the first plus the launches, at 20 + 12 = 32 us, and ends at 33 us. At 30 us each, the first
  // starts when issued, at 4 us, the others straight after it (34 to 94 us); the third kernel runs from 94 to 95 us.
  kernels[1].within_previous_call = true;
  ComputeParameters launching = p;
  launching.library_launch_host_s = 4e-6;
  kernels[1].bytes = 3e6;
  const KernelTimes launched = time_kernels(kernels, 1, kDevice, launching);
  EXPECT_NEAR(launched.total_s(), 33e-6, 1e-15);
  EXPECT_NEAR(launched.gpu_busy_s, 5e-6, 1e-15);
  kernels[1].bytes = 90e6;
  EXPECT_NEAR(time_kernels(kernels, 1, kDevice, launching).total_s(), 95e-6, 1e-12);
}

TEST(HostDispatch, AHostThatWaitsForTheDeviceIssuesItsNextKernelADispatchLater) {
  // 4 launches of t each in 2 groups, the host waiting for the device after each (Kernel::synchronizations), at a
  // dispatch of d. Host-bound (t = 1 us, d = 10 us): launches issued at 0 and d end at d + t; the host, done waiting
  // then, dispatches the third a d later, at 2d + t, and the fourth at 3d + t: the step ends at 3d + 2t = 32 us,
  // against 3d + t without the wait. Device-bound (t = 20 us, d = 5 us): the first two end at 2t; the third is
  // issued at 2t + d and the device never idles after: 4t + d = 85 us, against 4t.
  const auto step_s = [](double t, double d, int synchronizations) {
    Kernel kernel{0, Phase::forward, 0.0, 4 * t * 1e12, 0.0, KernelKind::memory, MemoryPass::generic, 4};
    kernel.synchronizations = synchronizations;
    return time_kernels({kernel}, 1, kDevice, parameters(1.0, 1.0, 0.0, d)).total_s();
  };
  EXPECT_NEAR(step_s(1e-6, 10e-6, 2), 32e-6, 1e-15);
  EXPECT_NEAR(step_s(1e-6, 10e-6, 0), 31e-6, 1e-15);
  EXPECT_NEAR(step_s(20e-6, 5e-6, 2), 85e-6, 1e-15);
  EXPECT_NEAR(step_s(20e-6, 5e-6, 0), 80e-6, 1e-15);
}

TEST(HostDispatch, APythonLoopsLaunchesCostTheLoopsOwnHostTime) {
  // 10 launches of 1 us issued by a Python loop at 4 us each, behind a kernel issued at the job's dispatch of 20 us
  // and followed by another: the loop's launches are issued at 20, 24, ..., 56 us, the next kernel 4 us after the
  // last (60 us), ending at 61 us; at the job's dispatch throughout it would end at 11 x 20 + 1 = 221 us.
  std::vector<Kernel> kernels(3, Kernel{0, Phase::forward, 0.0, 1e6, 0.0, KernelKind::memory, MemoryPass::generic, 1});
  kernels[1].launches = 10;
  kernels[1].bytes = 10e6;
  kernels[1].python_loop = true;
  ComputeParameters p = parameters(1.0, 1.0, 0.0, 20e-6);
  EXPECT_NEAR(time_kernels(kernels, 1, kDevice, p).total_s(), 221e-6, 1e-15);
  p.loop_op_host_s = 4e-6;
  EXPECT_NEAR(time_kernels(kernels, 1, kDevice, p).total_s(), 61e-6, 1e-15);
}

TEST(HostDispatch, AfterAWaitALoopDispatchesItsNextLaunchAtItsOwnPace) {
  // A Python loop of 4 launches of 10 us at 2 us each, waiting for the device after every 2, the job's dispatch
  // 50 us: launches at 0 and 2 us end at 20; the loop dispatches the third 2 us later, at 22, and the fourth at 24,
  // behind the third: the step ends at 42 us (at the job's dispatch after the wait it would end at 90).
  Kernel loop{0, Phase::forward, 0.0, 4 * 10e-6 * 1e12, 0.0, KernelKind::memory, MemoryPass::generic, 4};
  loop.synchronizations = 2;
  loop.python_loop = true;
  ComputeParameters p = parameters(1.0, 1.0, 0.0, 50e-6);
  p.loop_op_host_s = 2e-6;
  EXPECT_NEAR(time_kernels({loop}, 1, kDevice, p).total_s(), 42e-6, 1e-15);
}

TEST(HostDispatch, ShortKernelsRunAtTheHostsPace) {
  // 50 memory kernels of 1 us each (1 MB at 1 TB/s) issued every 10 us: kernel i starts when issued at 10 i us, so
  // the iteration ends at 49 x 10 + 1 us; the device is busy 50 us of it.
  std::vector<Layer> layers(50, layer(0.0, 0.0, 0.25e6, 0.0, 0));  // 0.25e6 fp32 elements = 1 MB
  const Workload w = workload_of(layers);
  const KernelTimes t = kernel_times(w, 1, Precision::fp32, kDevice, parameters(1.0, 1.0, 0.0, 10e-6), Pass::inference);
  EXPECT_NEAR(t.total_s(), 49 * 10e-6 + 1e-6, 1e-15);
  EXPECT_NEAR(t.gpu_busy_s, 50e-6, 1e-15);
  // Kernels of 20 us each outrun a host that issues one every 10 us: the device is never idle.
  std::vector<Layer> long_layers(50, layer(0.0, 0.0, 5e6, 0.0, 0));  // 20 MB each
  const KernelTimes busy = kernel_times(workload_of(long_layers), 1, Precision::fp32, kDevice,
                                        parameters(1.0, 1.0, 0.0, 10e-6), Pass::inference);
  EXPECT_NEAR(busy.total_s(), 50 * 20e-6, 1e-15);
}

TEST(HostDispatch, ALaunchCostMovesADeviceBoundStepByKernelsTimesTheDifference) {
  // Every kernel outlasts the host's 5 us per kernel, so the device paces the step: each extra microsecond of fixed
  // cost adds one per kernel.
  const Workload w = workload_of(
      {gemm_layer(1e10, 12800, 1280), layer(0.0, 0.0, 5e6, 0.0), gemm_layer(1e10, 12800, 1280)}, Optimizer::adam);
  const KernelTimes at_3us = kernel_times(w, 1, Precision::fp16, kDevice, parameters(0.5, 0.8, 3e-6, 5e-6));
  const KernelTimes at_8us = kernel_times(w, 1, Precision::fp16, kDevice, parameters(0.5, 0.8, 8e-6, 5e-6));
  ASSERT_EQ(at_3us.kernels, 3 + 5 + 1);  // forward 3; backward 2 + 1 + 2; optimizer 1
  EXPECT_NEAR(at_8us.total_s() - at_3us.total_s(), at_3us.kernels * 5e-6, 1e-15);
}

TEST(DataLoading, ALoaderSlowerThanTheDeviceSetsTheStepAlone) {
  const Workload w = workload_of({gemm_layer(1e10, 12800, 1280)});
  ComputeParameters p = parameters(0.5, 0.8);
  const KernelTimes times = kernel_times(w, 1, Precision::fp16, kDevice, p);
  p.data_loading_s = 3.0 * times.total_s();
  EXPECT_DOUBLE_EQ(alone_step_s(times, p), 3.0 * times.total_s());
  p.data_loading_s = 0.5 * times.total_s();  // hidden behind the device's work
  EXPECT_DOUBLE_EQ(alone_step_s(times, p), times.total_s());
}

TEST(Devices, WholeGpuHasTheDatasheetPeakAndTheGivenMemory) {
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  const DeviceCompute vgpu = whole_gpu(a100, Precision::tf32, 20 * kGiB);  // A100X-20C: half the framebuffer
  EXPECT_DOUBLE_EQ(vgpu.peak_flops, 156e12);                               // A100 datasheet, TF32 dense
  EXPECT_DOUBLE_EQ(vgpu.vector_flops, 19.5e12);                            // A100 datasheet, FP32
  EXPECT_DOUBLE_EQ(vgpu.memory_bandwidth_Bps, 1555e9);                     // A100 40GB datasheet
  EXPECT_DOUBLE_EQ(vgpu.memory_bytes, 20 * kGiB);
  EXPECT_EQ(vgpu.sm_count, 108);
}

TEST(Devices, Mig1g5gbHas14SmsAtThePerSmRateAndAnEighthOfTheBandwidth) {
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  const DeviceCompute small = mig_instance(a100, *find_mig_profile("a100-40gb-sxm4", "1g.5gb"), Precision::fp16);
  const DeviceCompute full = mig_instance(a100, *find_mig_profile("a100-40gb-sxm4", "7g.40gb"), Precision::fp16);
  // MIG on leaves 98 of 108 SMs (nvidia-smi mig -lgip: 7g.40gb has 98), each at 312 / 108 Tflop/s.
  EXPECT_DOUBLE_EQ(full.peak_flops, 312e12 * 98.0 / 108.0);
  EXPECT_DOUBLE_EQ(small.peak_flops, 312e12 * 14.0 / 108.0);
  EXPECT_EQ(small.sm_count, 14);
  EXPECT_DOUBLE_EQ(small.memory_bandwidth_Bps, 1555e9 / 8.0);
  EXPECT_DOUBLE_EQ(small.memory_bytes, 4.75 * kGiB);  // nvidia-smi mig -lgip
}

TEST(FixedCosts, DominateAtBatchOneAndFadeAtLargeBatch) {
  // ResNet-50 training on an A100 with the fitted parameters: the share of the step that is not work (kernel fixed
  // costs and waiting for the host) is most of it at batch 1 and a small part at batch 256.
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  const Workload rn50 = *make_workload("resnet-50");
  const DeviceCompute device = whole_gpu(a100, Precision::fp16, a100.memory_bytes);
  const auto overhead_share = [&](int batch) {
    ComputeParameters p =
        resolve_compute(a100, Precision::fp16, rn50, batch, HostSide{}, published_compute_fit(), CalibratedParameters{})
            .parameters;
    p.data_loading_s = 0.0;
    const double step = kernel_times(rn50, batch, Precision::fp16, device, p).total_s();
    p.kernel_fixed_s = 0.0;
    p.host_dispatch_s = 0.0;
    const double work = kernel_times(rn50, batch, Precision::fp16, device, p).total_s();
    return (step - work) / step;
  };
  EXPECT_GT(overhead_share(1), 0.5);
  EXPECT_LT(overhead_share(256), 0.2);
}

TEST(MigShare, OneSliceGetsFarMoreThanItsSmShareAtSmallBatchAndApproachesItAtLargeBatch) {
  // ResNet-50 AMP training on an A100 40GB: a 1g.5gb instance against the 7g.40gb one. Its SM share is 14/98; at
  // batch 8 a step is bound by the host and by kernels too small to fill 98 SMs, so the slice loses far less.
  const GpuSpec& a100 = *find_gpu("a100-40gb-sxm4");
  const Workload rn50 = *make_workload("resnet-50");
  const auto throughput = [&](const char* profile, int batch) {
    const DeviceCompute device = mig_instance(a100, *find_mig_profile(a100.id, profile), Precision::fp16);
    ComputeParameters p =
        resolve_compute(a100, Precision::fp16, rn50, batch, HostSide{}, published_compute_fit(), CalibratedParameters{})
            .parameters;
    p.data_loading_s = 0.0;
    return samples_per_s(kernel_times(rn50, batch, Precision::fp16, device, p), batch, 1);
  };
  const double sm_share = 14.0 / 98.0;
  const double small_batch_share = throughput("1g.5gb", 8) / throughput("7g.40gb", 8);
  const double large_batch_share = throughput("1g.5gb", 256) / throughput("7g.40gb", 256);
  EXPECT_GT(small_batch_share, 2.0 * sm_share);
  EXPECT_LT(large_batch_share, small_batch_share);
  EXPECT_NEAR(large_batch_share, sm_share, 0.25 * sm_share);
  // 2g and 3g sit between 1g and 7g at batch 8.
  const double two_g = throughput("2g.10gb", 8) / throughput("7g.40gb", 8);
  const double three_g = throughput("3g.20gb", 8) / throughput("7g.40gb", 8);
  EXPECT_LE(small_batch_share, two_g);
  EXPECT_LE(two_g, three_g);
  EXPECT_LE(three_g, 1.0);
}

TEST(Workload, TransformersTrainWithAdamAndCnnsWithMomentum) {
  EXPECT_EQ(make_workload("bert-large-squad-seq384")->optimizer, Optimizer::adam);
  EXPECT_EQ(make_workload("gpt3-175b")->optimizer, Optimizer::adam);
  EXPECT_EQ(make_workload("resnet-50")->optimizer, Optimizer::sgd_momentum);
  EXPECT_EQ(make_workload("mask-rcnn-r50-fpn")->optimizer, Optimizer::sgd_momentum);
}

TEST(Workload, LayersRunAsKernelsOfTheirKind) {
  const Workload rn50 = *make_workload("resnet-50");
  int convolutions = 0;
  int gemms = 0;
  for (const Layer& l : rn50.layers) {
    convolutions += l.kind == KernelKind::convolution;
    gemms += l.kind == KernelKind::gemm;
  }
  EXPECT_EQ(convolutions, 53);  // He et al. 2016, Table 1: 1 + 3 x (3 + 4 + 6 + 3) convolutions + 4 projections
  EXPECT_EQ(gemms, 1);          // the classifier
  // The first convolution's input is the image: no input gradient, only the weight gradient.
  EXPECT_EQ(rn50.layers.front().backward_kernels, 1);
}

}  // namespace
}  // namespace vtsim

namespace vtsim {
namespace {

TEST(ScoreBytes, EagerAttentionMovesEachPassOverTheScores) {
  // Per score, hand-counted (compute_model.cpp): under AMP Q.K^T writes 2; scale 4; mask 4; cast up 6; fp32
  // softmax 8; fp32 dropout 9; cast down 6; P.V reads 2: 41. Backward: dP 2, dV reads P 2, cast 6, dropout 9,
  // softmax 12, cast 6, scale 4, dQ and dK read dS 4: 45. fp32: 4 + 8 + 8 + 8 + 9 + 4 = 41 and
  // 4 + 4 + 9 + 12 + 8 + 8 = 45, the casts' bytes replaced by the wider passes.
  for (Precision precision : {Precision::fp16, Precision::bf16, Precision::fp32, Precision::tf32}) {
    const ScoreBytes with = score_bytes(ScorePasses::eager, true, precision);
    EXPECT_DOUBLE_EQ(with.forward, 41.0);
    EXPECT_DOUBLE_EQ(with.backward, 45.0);
    const ScoreBytes without = score_bytes(ScorePasses::eager, false, precision);
    EXPECT_DOUBLE_EQ(without.forward, 32.0);   // no dropout pass (9)
    EXPECT_DOUBLE_EQ(without.backward, 36.0);  // nor its gradient (9)
  }
}

TEST(ScoreBytes, TensorFlowsMixedPrecisionKeepsTheSoftmax16Bit) {
  // TensorFlow's AMP rewrite leaves Softmax on its gray list: no casts, every pass in 16 bits. Forward: 2 + 4 + 4 +
  // 4 (softmax) + 5 (dropout) + 2 = 21; backward: 2 + 2 + 5 + 6 + 4 + 4 = 23.
  const ScoreBytes bytes = score_bytes(ScorePasses::eager, true, Precision::fp16, false);
  EXPECT_DOUBLE_EQ(bytes.forward, 21.0);
  EXPECT_DOUBLE_EQ(bytes.backward, 23.0);
  EXPECT_DOUBLE_EQ(score_bytes(ScorePasses::eager, true, Precision::fp32, false).forward, 41.0);  // no casts in fp32
  EXPECT_FALSE(softmax_in_fp32_under_amp(Framework::tensorflow));
  EXPECT_TRUE(softmax_in_fp32_under_amp(Framework::pytorch));
  Workload bert = *make_workload("bert-large-squad-seq384");
  use_framework(bert, Framework::tensorflow);
  for (const Layer& l : bert.layers) EXPECT_FALSE(l.score_softmax_fp32);
}

TEST(ScoreBytes, MegatronsFusedSoftmaxIsOnePassEachWay) {
  // 16-bit: Q.K^T writes 2, the fused scale-mask-softmax reads and writes 4, dropout 5, P.V reads 2: 13. Backward:
  // dP 2, dV reads P 2, dropout 5, the softmax's gradient reads two and writes one 6, dQ and dK read dS 4: 19.
  const ScoreBytes bytes = score_bytes(ScorePasses::fused_softmax, true, Precision::bf16);
  EXPECT_DOUBLE_EQ(bytes.forward, 13.0);
  EXPECT_DOUBLE_EQ(bytes.backward, 19.0);
  const ScoreBytes without = score_bytes(ScorePasses::fused_softmax, false, Precision::bf16);
  EXPECT_DOUBLE_EQ(without.forward, 8.0);
  EXPECT_DOUBLE_EQ(without.backward, 14.0);
}

TEST(ScoreBytes, AnAttentionCoreIsBoundByItsScoresTraffic) {
  // One attention core of 1,000 scores per sample, 1 flop, no other traffic: forward 41 B per score at 1 TB/s x 0.5,
  // backward 45 B, batch 10.
  Layer core = layer(1.0, 1.0, 0.0, 0.0);
  core.kind = KernelKind::gemm;
  core.gemm = {.rows_per_sample = 10, .columns = 10, .problems_per_sample = 10};
  core.score_elements = 1000;
  core.score_passes = ScorePasses::eager;
  core.score_dropout = true;
  const KernelTimes times =
      kernel_times(workload_of({core}), 10, Precision::fp16, kDevice, parameters(0.5, 0.5));
  EXPECT_NEAR(times.forward_gpu_s[0], 10 * 1000 * 41.0 / 0.5e12, 1e-15);
  EXPECT_NEAR(times.backward_gpu_s[0], 10 * 1000 * 45.0 / 0.5e12, 1e-15);
}

}  // namespace
}  // namespace vtsim
