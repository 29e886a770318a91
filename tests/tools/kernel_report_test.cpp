// The held-out kernel report: which 16-bit products count as aligned, that an error is the prediction over the
// measurement, and that a GPU the constants were fitted to is refused.

#include "tools/report/kernel_report.hpp"

#include <gtest/gtest.h>

#include "calibrate/kernel_measurements.hpp"
#include "models/catalog/gpu_catalog.hpp"
#include "models/compute/kernel_parameters.hpp"
#include "models/core/error.hpp"

namespace vtsim::tools {
namespace {

TEST(HeldOutKernels, AlignedMeansTheReductionAndTheOutputColumnsStartEverySixteenBytes) {
  KernelShape shape;
  shape.family = KernelFamily::tensor_gemm;
  shape.element_bytes = 2;
  shape.m = 3;  // the rows do not matter: no operand's leading dimension is M
  shape.k = 1024;
  shape.n = 4096;
  EXPECT_TRUE(operands_aligned(shape));
  shape.n = 50257;  // GPT-2's vocabulary
  EXPECT_FALSE(operands_aligned(shape));
  shape.n = 4096;
  shape.k = 12;  // 24 bytes
  EXPECT_FALSE(operands_aligned(shape));
  shape.element_bytes = 4;  // 12 fp32 values are 48 bytes
  EXPECT_TRUE(operands_aligned(shape));
}

// The committed constants' own prediction of `kernel` on its GPU.
double predicted_s(const calibrate::MeasuredKernel& kernel) {
  const FittedKernelParameters& fitted = fitted_kernel_parameters();
  const KernelDevice device = kernel_device(*find_gpu(kernel.gpu_id), fitted.clocks);
  return predict_kernel(prepare_kernel(kernel.shape, device), fitted.parameters, std::nullopt).time_s;
}

TEST(HeldOutKernels, AnErrorIsThePredictionOverTheMeasurementAndTheBoundSelectsTheLongRows) {
  std::vector<calibrate::MeasuredKernel> kernels = calibrate::read_kernel_csv(
      "OPName,Device,Precision,B,M,N,K\n"
      "linear,NVIDIA H200,fp32,1,4096,4096,4096\n"
      "linear,NVIDIA H200,fp32,1,64,64,64\n"
      "linear,NVIDIA H200,fp16,1,4096,4096,4096\n"
      "linear,NVIDIA H200,fp16,1,4096,4096,4095\n",
      "ops.csv");
  ASSERT_EQ(kernels.size(), 4u);
  // Measured 1.25x the prediction (error -20%), 0.8x (+25%), 1.25x, and 2x (-50%).
  const double factors[] = {1.25, 0.8, 1.25, 2.0};
  for (std::size_t i = 0; i < kernels.size(); ++i) kernels[i].latency_s = factors[i] * predicted_s(kernels[i]);
  // The bound between the small product's time and the long ones'.
  const double bound = 2.0 * *kernels[1].latency_s;
  ASSERT_GT(*kernels[0].latency_s, bound);
  const HeldOutReport report = held_out_report(kernels, {"ops.csv"}, bound);
  EXPECT_EQ(report.gpus, std::vector<std::string>{"h200-sxm"});
  ASSERT_EQ(report.groups.size(), 3u);
  EXPECT_EQ(report.groups[0].name, "gemm");
  EXPECT_EQ(report.groups[0].all.kernels, 2);
  EXPECT_NEAR(report.groups[0].all.mean_abs, (0.2 + 0.25) / 2, 1e-12);
  EXPECT_EQ(report.groups[0].device_bound.kernels, 1);
  EXPECT_NEAR(report.groups[0].device_bound.mean_abs, 0.2, 1e-12);
  EXPECT_NEAR(report.groups[0].device_bound.bias, -0.2, 1e-12);
  EXPECT_EQ(report.groups[1].name, "tensor_gemm, aligned");
  EXPECT_NEAR(report.groups[1].all.bias, -0.2, 1e-12);
  EXPECT_EQ(report.groups[2].name, "tensor_gemm, unaligned");  // 4095 output columns
  EXPECT_NEAR(report.groups[2].all.bias, -0.5, 1e-12);
}

TEST(HeldOutKernels, AGpuTheConstantsWereFittedToIsRefused) {
  std::vector<calibrate::MeasuredKernel> kernels =
      calibrate::read_kernel_csv("OPName,Latency,Device,B,H\nadd,0.05,Tesla T4,4,1024\n", "t4.csv");
  try {
    held_out_report(kernels, {"t4.csv"}, 100e-6);
    FAIL() << "a T4 row was taken as held out";
  } catch (const InputError& error) {
    EXPECT_STREQ(error.what(), "t4.csv:2: t4 is among the GPUs the committed elementwise constants were fitted to: "
                               "not held out");
  }
}

}  // namespace
}  // namespace vtsim::tools
