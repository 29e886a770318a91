#pragma once
// Measured (or to-be-predicted) operators read from CSV in the layout of NeuSight's public kernel data
// (data/kernels/README.md): one row per PyTorch operator, its name in `OPName`, its dimensions in named columns, its
// measured time in `Latency` (milliseconds; optional) and its GPU in `Device` (optional, as CUDA names it).
//
// Operators and their columns (the data's own names):
//   linear            B, M, N, K: input B x M x N, weight K x N, output B x M x K (reduction N)
//   bmm               B, M, N, K: B products of (M x N) by (N x K) (reduction N)
//   conv              B, Input_Channel, Output_Channel, Kernel_Size (the data spell it Kernel_Szie; both are read),
//                     Input_Size, Stride, Padding: a square 2-D convolution (fp16 / bf16: tensor_convolution)
//   add, mul          B, H: element-wise over B x H, two inputs
//   relu, gelu        B, H: element-wise over B x H, one input
//   softmax, ln       B, H: softmax or layer norm over H, B rows
// `Precision` (vtsim's own column, written by calibrate/gpu_harness/measure_kernels.py; NeuSight's rows have none
// and are fp32): fp32, or fp16 / bf16, whose linear, bmm and conv rows ran on the tensor cores with 2-byte operands.
// Columns the data carry about the kernel cuBLAS/cuDNN chose (Kernel Name, Grid x, ...) are read past; any other
// column is an error. Bad input throws one InputError naming the file, the line and the column.
//
// Baidu DeepBench's results files (their first line is `Precision,...`) are read too: the GEMMs of their `Dense
// Matrix Multiplication` section (M, N, K, time in ms) and the forward passes of their `Convolution` section (W, H,
// C, N, K, filter, padding, strides, time in ms, the algorithm cuDNN chose; with the times of its input and weight
// gradients, which calibrate::measure_gradient_costs reads), on the tensor cores when the precision
// is "16 bit inputs, 16 bit multiplication, 32 bit addition" (tensor_gemm, tensor_convolution), else on the CUDA
// cores (gemm, convolution). Their GPU is the one the file is named for (v100-, t4-, p100-) unless one is given.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/compute/kernel_model.hpp"

namespace vtsim::calibrate {

/// One operator row.
struct MeasuredKernel {
  std::string op;          ///< the data's operator name (linear, bmm, conv, add, ...)
  KernelShape shape;       ///< as the kernel model reads it
  std::string gpu_id;      ///< catalog id of the row's Device, or the GPU the caller named; "" when neither
  std::optional<double> latency_s;  ///< measured time, when the row has one
  /// Convolutions whose row lists the kernels cuDNN ran (NeuSight's `Kernels`): the algorithm they are, read from
  /// their names (ran_algorithm()); empty otherwise.
  std::optional<ConvolutionAlgorithm> ran;
  /// The row's kernels are an algorithm the model does not have for the shape (cuDNN's FFT convolutions; Winograd
  /// other than 3 x 3 at stride 1).
  bool ran_unmodelled = false;
  /// DeepBench's convolutions: their shape as their gradients' cost depends on it, and the times of the input and
  /// weight gradients on the same shape where the row has them (none of the input gradient of a layer with at most
  /// 3 input channels, which reads the data).
  std::optional<ConvolutionShape> convolution_shape;
  std::optional<double> input_gradient_s;
  std::optional<double> weight_gradient_s;
  std::string file;        ///< the file it was read from
  int line = 0;            ///< line in its file (1 is the header)

  /// "FILE:LINE", for messages.
  std::string where() const { return file + ":" + std::to_string(line); }
};

/// What a convolution's kernels (the names in NeuSight's `Kernels` column, ';'-separated) say cuDNN ran: Winograd
/// F(4x4, 3x3) when its transforms are there (`winograd_nonfused::winogradforward*4x4`, around 36 batched GEMMs), the
/// fused Winograd kernel (`*scudnn_winograd*`, F(2x2, 3x3) in the model), FFT (`fft`, or the complex GEMMs
/// `*gcgemm*` of its transformed operands: nullopt, not modelled), else an implicit GEMM (`*scudnn_128x64*`,
/// `implicit_convolve_sgemm`, `explicit_convolve_sgemm`, ...). Sets `ran` and `ran_unmodelled` of `kernel`.
void read_ran_algorithm(const std::string& kernel_names, MeasuredKernel& kernel);

/// Reads CSV `text` of `file` (gzip-compressed or not). A row's Device names its GPU (matched to the catalog);
/// without the column, every row is on `gpu_id`, which must then be given. Throws InputError "FILE:LINE: ..." on a
/// bad row, an unknown operator or column, or a Device no catalog GPU matches.
std::vector<MeasuredKernel> read_kernel_csv(std::string_view text, const std::string& file,
                                            const std::string& gpu_id = "");

/// Reads every `*.csv` and `*.csv.gz` file under `folder` (recursively, in name order). Throws InputError when the
/// folder holds none.
std::vector<MeasuredKernel> read_kernel_folder(const std::string& folder);

/// Reads each of `paths`, a file (read_kernel_csv with `gpu_id`) or a folder (read_kernel_folder), in order.
std::vector<MeasuredKernel> read_kernel_paths(const std::vector<std::string>& paths, const std::string& gpu_id = "");

}  // namespace vtsim::calibrate
