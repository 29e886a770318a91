// Reading operator rows in NeuSight's columns: what each dimension becomes, and one clear line for each bad row.

#include "calibrate/kernel_measurements.hpp"

#include <gtest/gtest.h>

#include "models/core/error.hpp"

namespace vtsim::calibrate {
namespace {

std::string measurements_error_of(const std::string& text, const std::string& gpu = "") {
  try {
    read_kernel_csv(text, "ops.csv", gpu);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

TEST(KernelMeasurements, ReadsEachOperatorsDimensions) {
  const std::string text =
      "OPName,Latency,Device,B,M,N,K,H,Input_Channel,Output_Channel,Kernel_Szie,Input_Size,Stride,Padding\n"
      "linear,0.5,Tesla T4,4,100,768,3072,,,,,,,\n"
      "bmm,0.25,Tesla T4,16,128,64,128,,,,,,,\n"
      "conv,2,NVIDIA A100 80GB PCIe,8,,,,,64,128,3,56,1,1\n"
      "add,0.03,Tesla P4,2,,,,1024,,,,,,\n"
      "ln,,Tesla V100-PCIE-32GB,2,,,,1024,,,,,,\n";
  const std::vector<MeasuredKernel> kernels = read_kernel_csv(text, "ops.csv");
  ASSERT_EQ(kernels.size(), 5u);
  // linear: (B x M) x N input by a K x N weight: rows B x M, reduction N, columns K.
  EXPECT_EQ(kernels[0].shape.family, KernelFamily::gemm);
  EXPECT_DOUBLE_EQ(kernels[0].shape.m, 400);
  EXPECT_DOUBLE_EQ(kernels[0].shape.k, 768);
  EXPECT_DOUBLE_EQ(kernels[0].shape.n, 3072);
  EXPECT_EQ(kernels[0].gpu_id, "t4");
  EXPECT_DOUBLE_EQ(*kernels[0].latency_s, 0.5e-3);
  EXPECT_EQ(kernels[0].line, 2);
  EXPECT_EQ(kernels[1].shape.family, KernelFamily::batched_gemm);
  EXPECT_DOUBLE_EQ(kernels[1].shape.batch, 16);
  EXPECT_DOUBLE_EQ(kernels[1].shape.k, 64);
  EXPECT_EQ(kernels[2].shape.family, KernelFamily::convolution);
  EXPECT_DOUBLE_EQ(kernels[2].shape.m, 8.0 * 56 * 56);
  EXPECT_EQ(kernels[2].gpu_id, "a100-80gb-pcie");
  EXPECT_EQ(kernels[3].shape.family, KernelFamily::elementwise);
  EXPECT_DOUBLE_EQ(kernels[3].shape.bytes(), 3.0 * 2048 * 4);
  EXPECT_EQ(kernels[3].gpu_id, "p4");
  EXPECT_EQ(kernels[4].shape.family, KernelFamily::layer_norm);
  EXPECT_FALSE(kernels[4].latency_s.has_value());
  EXPECT_EQ(kernels[4].gpu_id, "v100-pcie-32gb");
}

TEST(KernelMeasurements, WithoutADeviceColumnEveryRowIsOnTheNamedGpu) {
  const auto kernels = read_kernel_csv("OPName,B,H\nsoftmax,4,512\n", "ops.csv", "h100-sxm5");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_EQ(kernels[0].gpu_id, "h100-sxm5");
  EXPECT_EQ(measurements_error_of("OPName,B,H\nsoftmax,4,512\n"), "ops.csv:1: no Device column: name the GPU (--gpu)");
}

TEST(KernelMeasurements, BadRowsNameTheFileLineAndColumn) {
  EXPECT_EQ(measurements_error_of("OPName,B,H,Latncy\nadd,1,2,3\n", "t4"),
            "ops.csv:1: unknown column 'Latncy'; did you mean 'Latency'?");
  // A column named twice would have one of its values dropped without a word.
  EXPECT_EQ(measurements_error_of("OPName,B,M,N,K,B\nlinear,1,2,3,4,5\n", "t4"),
            "ops.csv:1: column 'B' named twice (fields 2 and 6)");
  // A cell echoed in a message has its control characters escaped: a NUL would end the message, an ESC drive the
  // terminal.
  EXPECT_EQ(measurements_error_of(std::string("OPName,B,H\nre\0lu\x1b[2J,1,2\n", 25), "t4"),
            "ops.csv:2: unknown operator 're\\x00lu\\x1b[2J'");
  EXPECT_EQ(measurements_error_of("OPName,B,H\nadd,1,2\nadd,0,2\n", "t4"),
            "ops.csv:3: column B: expected an integer >= 1, got '0'");
  EXPECT_EQ(measurements_error_of("OPName,B,H\nrelux,1,2\n", "t4"),
            "ops.csv:2: unknown operator 'relux'; did you mean 'relu'?");
  EXPECT_EQ(measurements_error_of("OPName,B,M,N\nlinear,1,2,3\n", "t4"), "ops.csv:2: column K is empty or missing");
  EXPECT_EQ(measurements_error_of("OPName,B,H,Latency\nadd,1,2,-1\n", "t4"),
            "ops.csv:2: column Latency: expected a number > 0, got '-1'");
  EXPECT_EQ(measurements_error_of("OPName,B,H\nadd,1,2,3\n", "t4"), "ops.csv:2: 4 fields, the header has 3");
  EXPECT_EQ(measurements_error_of("OPName,Device,B,H\nadd,Voodoo 5,1,2\n"),
            "ops.csv:2: Device 'Voodoo 5' matches no catalog GPU (see `vtsim catalog gpus`)");
  EXPECT_EQ(measurements_error_of("OPName,B,Input_Channel,Output_Channel,Kernel_Size,Input_Size,Stride,Padding\n"
                     "conv,1,3,8,7,2,1,0\n",
                     "t4"),
            "ops.csv:2: the 7-wide kernel does not fit the padded input");
}

TEST(KernelMeasurements, APrecisionColumnPutsSixteenBitProductsOnTheTensorCores) {
  const std::vector<MeasuredKernel> kernels = read_kernel_csv(
      "OPName,Latency,Device,Precision,B,M,N,K,H\n"
      "linear,0.5,NVIDIA H200,fp16,4,100,768,3072,\n"
      "bmm,0.25,NVIDIA H200,bf16,16,128,64,128,\n"
      "linear,0.5,NVIDIA H200,fp32,4,100,768,3072,\n"
      "add,0.03,NVIDIA H200,fp16,2,,,,1024\n",
      "ops.csv");
  ASSERT_EQ(kernels.size(), 4u);
  EXPECT_EQ(kernels[0].gpu_id, "h200-sxm");
  EXPECT_EQ(kernels[0].shape.family, KernelFamily::tensor_gemm);
  EXPECT_DOUBLE_EQ(kernels[0].shape.m, 400);
  EXPECT_DOUBLE_EQ(kernels[0].shape.k, 768);
  EXPECT_DOUBLE_EQ(kernels[0].shape.n, 3072);
  EXPECT_DOUBLE_EQ(kernels[0].shape.element_bytes, 2);
  EXPECT_DOUBLE_EQ(*kernels[0].latency_s, 0.5e-3);  // measured on the path it is predicted on: kept
  EXPECT_EQ(kernels[1].shape.family, KernelFamily::tensor_gemm);
  EXPECT_DOUBLE_EQ(kernels[1].shape.batch, 16);
  EXPECT_EQ(kernels[2].shape.family, KernelFamily::gemm);
  EXPECT_DOUBLE_EQ(kernels[2].shape.element_bytes, 4);
  EXPECT_EQ(kernels[3].shape.family, KernelFamily::elementwise);
  EXPECT_DOUBLE_EQ(kernels[3].shape.bytes(), 3.0 * 2048 * 2);
  // TF32: fp32 tensors whose products ran on the tensor cores; 4-byte operands, and an fp32 pass stays one.
  const std::vector<MeasuredKernel> tf32 = read_kernel_csv(
      "OPName,Latency,Device,Precision,B,M,N,K,H,Input_Channel,Output_Channel,Kernel_Size,Input_Size,Stride,Padding\n"
      "linear,0.5,NVIDIA H200,tf32,4,100,768,3072,,,,,,,\n"
      "add,0.03,NVIDIA H200,tf32,2,,,,1024,,,,,,\n"
      "conv,0.1,NVIDIA H200,tf32,1,,,,,3,8,3,8,1,1\n",
      "ops.csv");
  ASSERT_EQ(tf32.size(), 3u);
  EXPECT_EQ(tf32[0].shape.family, KernelFamily::tensor_gemm);
  EXPECT_DOUBLE_EQ(tf32[0].shape.element_bytes, 4);
  EXPECT_EQ(tf32[1].shape.family, KernelFamily::elementwise);
  EXPECT_DOUBLE_EQ(tf32[1].shape.bytes(), 3.0 * 2048 * 4);
  EXPECT_EQ(tf32[2].shape.family, KernelFamily::tensor_convolution);
  // 3 input channels padded to 4 (16 bytes of 4-byte values), not 8: K = 3 x 9 loops over 4 x 9.
  EXPECT_DOUBLE_EQ(tf32[2].shape.padded_k, 4.0 * 9);
  EXPECT_EQ(measurements_error_of("OPName,Precision,B,H\nadd,fp8,1,2\n", "t4"),
            "ops.csv:2: Precision 'fp8': expected fp32, tf32, fp16 or bf16");
  // A product on tensor cores the row's GPU does not have was not measured there.
  EXPECT_EQ(measurements_error_of("OPName,Precision,B,M,N,K\nlinear,tf32,1,64,64,64\n", "t4"),
            "ops.csv:2: Precision 'tf32' on t4, which has no TF32 tensor cores (before Ampere)");
  EXPECT_EQ(measurements_error_of("OPName,Precision,B,M,N,K\nlinear,fp16,1,64,64,64\n", "p100-pcie-16gb"),
            "ops.csv:2: Precision 'fp16' on p100-pcie-16gb, which has no tensor cores");
  // A 16-bit convolution runs on the tensor cores as an implicit GEMM: no Winograd form there.
  const std::vector<MeasuredKernel> conv = read_kernel_csv(
      "OPName,Precision,B,Input_Channel,Output_Channel,Kernel_Size,Input_Size,Stride,Padding\n"
      "conv,fp16,1,3,8,3,8,1,1\n",
      "ops.csv", "t4");
  EXPECT_EQ(conv.front().shape.family, KernelFamily::tensor_convolution);
  EXPECT_DOUBLE_EQ(conv.front().shape.element_bytes, 2);
  EXPECT_FALSE(conv.front().shape.winograd);
}

// The first lines of DeepBench's Convolution section as its results files have them (data/kernels/deepbench/
// v100-results-fp16-ip-mixed-math.csv, lines 164-165; p100-results-fp32.csv for the algorithms).
constexpr const char* kConvolutionHeader =
    "Convolution,,,,,,,,,,,,,,,,,,,,,,,\n"
    ",,W,H,C,N,K ,S (Filter width),R (Filter height),pad_w,pad_h,Horizontal stride,Vertical stride,Forward (msec),"
    "wrt Inputs (msec),wrt Parameters (msec),,P,Q,Total Time (msec),FWD TERAFLOPS,BWD INPUTS TERAFLOPS,"
    "BWD PARMS TERAFLOPS,Forward Algorithm\n";

TEST(KernelMeasurements, ReadsDeepBenchConvolutionsWithTheirGradients) {
  const std::string mixed = std::string("Precision,\"16 bit inputs, 16 bit multiplication, 32 bit addition\"\n") +
                            kConvolutionHeader +
                            ",DeepSpeech,700,161,1,4,32,20,5,0,0,2,2,0.591,N/A*,1.028,,341,79,1.619,"
                            "1.1669008460236887,N/A*,0.6708544747081712,IMPLICIT_PRECOMP_GEMM\n"
                            ",,,* = The backward pass wrt inputs is excluded for these kernels,,,\n";
  const std::vector<MeasuredKernel> kernels = read_kernel_csv(mixed, "v100-results-fp16-ip-mixed-math.csv");
  ASSERT_EQ(kernels.size(), 1u);
  const MeasuredKernel& conv = kernels.front();
  EXPECT_EQ(conv.op, "conv");
  EXPECT_EQ(conv.line, 4);
  EXPECT_EQ(conv.shape.family, KernelFamily::tensor_convolution);
  EXPECT_DOUBLE_EQ(conv.shape.element_bytes, 2);
  // Output P x Q = ((700 - 20) / 2 + 1) x ((161 - 5) / 2 + 1) = 341 x 79, as the row's P and Q columns say; the GEMM
  // is (4 images x 341 x 79 positions) x 32 filters over 1 channel x 20 x 5.
  EXPECT_DOUBLE_EQ(conv.shape.output_width, 341);
  EXPECT_DOUBLE_EQ(conv.shape.output_height, 79);
  EXPECT_DOUBLE_EQ(conv.shape.m, 4.0 * 341 * 79);
  EXPECT_DOUBLE_EQ(conv.shape.n, 32);
  EXPECT_DOUBLE_EQ(conv.shape.k, 100);
  // The row's own FWD TERAFLOPS is the same flop over its forward time.
  EXPECT_NEAR(conv.shape.flop() / *conv.latency_s / 1e12, 1.1669008460236887, 1e-9);
  EXPECT_EQ(conv.ran, ConvolutionAlgorithm::implicit_gemm);
  // Its gradients: the input's is "N/A*" (the first layer's), the weights' 1.028 ms; a 20 x 5 filter at stride 2.
  EXPECT_FALSE(conv.input_gradient_s);
  ASSERT_TRUE(conv.weight_gradient_s);
  EXPECT_NEAR(*conv.weight_gradient_s, 1.028e-3, 1e-15);
  EXPECT_EQ(conv.convolution_shape, ConvolutionShape::strided);

  // On the CUDA cores, cuDNN's choice is read as the model knows it.
  const auto fp32_row = [](const std::string& fields) {
    return read_kernel_csv(std::string("Precision,Float\n") + kConvolutionHeader + fields, "p100-results-fp32.csv")
        .front();
  };
  const MeasuredKernel winograd = fp32_row(",OCR,240,24,16,16,32,3,3,1,1,1,1,0.1,0.1,0.1,,240,24,0.3,1,1,1,WINOGRAD");
  EXPECT_EQ(winograd.shape.family, KernelFamily::convolution);
  EXPECT_TRUE(winograd.shape.winograd);
  EXPECT_EQ(winograd.ran, ConvolutionAlgorithm::winograd_2x2);
  EXPECT_EQ(winograd.convolution_shape, ConvolutionShape::three_by_three);
  ASSERT_TRUE(winograd.input_gradient_s);
  EXPECT_NEAR(*winograd.input_gradient_s, 1e-4, 1e-15);
  EXPECT_EQ(fp32_row(",OCR,240,24,16,16,32,3,3,1,1,1,1,0.1,0.1,0.1,,240,24,0.3,1,1,1,WINOGRAD_NONFUSED").ran,
            ConvolutionAlgorithm::winograd_4x4);
  EXPECT_TRUE(fp32_row(",OCR,240,24,16,16,32,3,3,1,1,1,1,0.1,0.1,0.1,,240,24,0.3,1,1,1,FFT_TILING").ran_unmodelled);
  // Winograd on a 5 x 5 filter: a form the model does not have.
  EXPECT_TRUE(fp32_row(",OCR,240,24,16,16,32,5,5,2,2,1,1,0.1,0.1,0.1,,240,24,0.3,1,1,1,WINOGRAD").ran_unmodelled);
  EXPECT_EQ(measurements_error_of(std::string("Precision,Float\n") + kConvolutionHeader +
                                      ",OCR,4,4,16,16,32,9,9,0,0,1,1,0.1,0.1,0.1,,1,1,0.3,1,1,1,WINOGRAD\n",
                                  "t4"),
            "ops.csv:4: the filter does not fit the padded input");
  EXPECT_EQ(measurements_error_of(std::string("Precision,Float\n") + kConvolutionHeader +
                                      ",OCR,240,24,16,16,32,3,3,1,1,1,1,N/A*,0.1,0.1,,240,24,0.3,1,1,1,GEMM\n",
                                  "t4"),
            "ops.csv:4: column Forward (msec): expected a number > 0, got 'N/A*'");
}

TEST(KernelMeasurements, ReadsDeepBenchConvolutionColumnsByTheirNames) {
  // The P100's file names its filter and stride columns R, S, pad_h, pad_w, Vertical stride, Horizontal stride: its
  // first DeepSpeech layer is the V100's (700 x 161 input, 20 wide by 5 high, stride 2), so its output is
  // ((700 - 20) / 2 + 1) x ((161 - 5) / 2 + 1) = 341 x 79. Its input gradient (1 channel: the data) is left out, as
  // the V100's file leaves it out ("N/A*").
  const std::string p100_header =
      "Convolution,,,,,,,,,,,,,,,,,,,,,,,\n"
      ",,W,H,C,N,K ,R,S,pad_h,pad_w,Vertical stride,Horizontal stride,Forward (msec),wrt Inputs (msec),"
      "wrt Parameters (msec),,P,Q,Total Time (msec),FWD TERAFLOPS,BWD INPUTS TERAFLOPS,BWD PARMS TERAFLOPS,"
      "Forward Algorithm\n";
  const std::vector<MeasuredKernel> kernels = read_kernel_csv(
      std::string("Precision,Float\n") + p100_header +
          ",,700,161,1,4,32,5,20,0,0,2,2,0.142,0.482,0.301,,78.5,340.5,0.925,4.8,1.4,2.3,IMPLICIT_PRECOMP_GEMM\n",
      "p100-results-fp32.csv");
  ASSERT_EQ(kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(kernels.front().shape.output_width, 341);
  EXPECT_DOUBLE_EQ(kernels.front().shape.output_height, 79);
  EXPECT_DOUBLE_EQ(kernels.front().shape.k, 100);
  EXPECT_FALSE(kernels.front().input_gradient_s);
  ASSERT_TRUE(kernels.front().weight_gradient_s);
  EXPECT_NEAR(*kernels.front().weight_gradient_s, 0.301e-3, 1e-15);
  // A section without its row of names, or with one lacking a column it needs, is refused.
  EXPECT_EQ(measurements_error_of("Precision,Float\nConvolution,,\n,,700,161,1,4,32,5,20,0,0,2,2,0.1,0.1,0.1\n",
                                  "p100-pcie-16gb"),
            "ops.csv:3: a Convolution row before the section's row of column names (W, H, C, ...)");
  EXPECT_EQ(measurements_error_of("Precision,Float\nConvolution,,\n,,W,H,C,N,K,R,S\n", "p100-pcie-16gb"),
            "ops.csv:3: the Convolution section's column names lack 'pad_w'");
  // R is the P100's name for "R (Filter height)": a row naming both would leave one of them unread.
  EXPECT_EQ(
      measurements_error_of("Precision,Float\nConvolution,,\n,,W,H,C,N,K,R,R (Filter height),S\n", "p100-pcie-16gb"),
      "ops.csv:3: the Convolution section names column 'R (Filter height)' twice");
}

TEST(KernelMeasurements, ReadsDeepBenchGemmsOnTheirPath) {
  // DeepBench's layout: a Precision row, then sections; C = A (M x K) B (K x N), the time in ms in the 9th column.
  const std::string mixed =
      "Precision,\"16 bit inputs, 16 bit multiplication, 32 bit addition\",,,,,,,,\n"
      "Dense Matrix Multiplication,,M,N,K,A Transpose,B Transpose,,Time (msec),TERAFLOPS\n"
      ",DeepSpeech,1760,16,1760,N,N,,0.02,4.95\n"
      ",DeepSpeech,1760,32,1760,N,N,,0.021,9.44\n"
      "Recurrent Neural Network,,,,,,,,,\n"
      ",DeepSpeech,1760,16,1,vanilla,,,0.1,\n";
  const std::vector<MeasuredKernel> kernels = read_kernel_csv(mixed, "data/v100-results-fp16.csv");
  ASSERT_EQ(kernels.size(), 2u);  // the recurrent layers are not read
  EXPECT_EQ(kernels[0].shape.family, KernelFamily::tensor_gemm);
  EXPECT_DOUBLE_EQ(kernels[0].shape.element_bytes, 2);
  EXPECT_DOUBLE_EQ(kernels[0].shape.m, 1760);
  EXPECT_DOUBLE_EQ(kernels[0].shape.n, 16);
  EXPECT_DOUBLE_EQ(kernels[0].shape.k, 1760);
  EXPECT_DOUBLE_EQ(*kernels[1].latency_s, 0.021e-3);
  EXPECT_EQ(kernels[1].line, 4);
  EXPECT_EQ(kernels[0].gpu_id, "v100-sxm2-16gb");  // named for the V100 of DeepBench's DGX-1
  const std::string fp32 = "Precision,Float\nDense Matrix Multiplication,,M,N,K,A,B,,ms\n,x,8,8,8,N,N,,0.01\n";
  EXPECT_EQ(read_kernel_csv(fp32, "t4-results-fp32.csv").front().shape.family, KernelFamily::gemm);
  EXPECT_EQ(measurements_error_of(fp32),
            "ops.csv: a DeepBench file not named for its GPU (v100-, t4-, p100-): name it (--gpu)");
  EXPECT_EQ(measurements_error_of("Precision,Float\nDense Matrix Multiplication\n,x,8,8,8,N,N,,fast\n", "t4"),
            "ops.csv:3: column Time (msec): expected a number > 0, got 'fast'");
  EXPECT_EQ(measurements_error_of("Precision,Double\n", "t4"),
            "ops.csv:1: DeepBench precision 'Double' is none vtsim reads");
  EXPECT_EQ(measurements_error_of(mixed, "p100-pcie-16gb"),
            "ops.csv:1: tensor-core kernels (mixed math), but p100-pcie-16gb has no tensor cores");
  EXPECT_EQ(measurements_error_of(mixed, "v100"), "ops.csv: unknown GPU 'v100' (see `vtsim catalog gpus`)");
}

}  // namespace
}  // namespace vtsim::calibrate
