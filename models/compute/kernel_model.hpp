#pragma once
// Kernel model: the time of one operator (a GEMM, a convolution, an element-wise pass, a softmax, a layer norm) on one
// GPU, from the operator's dimensions, the GPU's datasheet (SMs, peak, memory bandwidth, L2) and a few constants per
// kernel family that are the same on every GPU. docs/compute-model.md derives every formula; calibrate/kernel_fit.*
// fits the constants to measured kernels (data/kernels/) and checks them on GPUs they were not fitted on.
//
// A kernel's time is the operator's fixed cost on the host, plus the longer of its math and its memory traffic less
// what of that cost comes after the kernel was launched (the kernel runs meanwhile):
//   t = host_s + max(0, max(t_math, t_memory) - host_after_launch_s)
//   t_memory = bytes / (memory_bandwidth x memory_share x memory_efficiency x (l2_speedup when the bytes fit in L2,
//              else 1))
// memory_share is a memory-bound family's measured share of the card's bandwidth relative to the best card of the
// data (KernelDevice::memory_share; 1 for a GPU without data and for a matrix product's traffic).
// An operator timed alone on an idle GPU between two CUDA events (as the measured data are: NeuSight's collect.py,
// measure_once, data/kernels/README.md) spans the host's whole call: the start event is timestamped at once, the
// kernel starts when the host has dispatched and launched it, and the end event is timestamped when both the kernel
// and the host's return through the call (to recording the end event) are done. host_s is that whole call,
// host_after_launch_s its part after the launch.
// A matrix product (GEMM, batched GEMM, convolution as an implicit GEMM) runs as thread blocks, each computing one
// tm x tn tile of the output over the reduction K. The model lets the library pick, as cuBLAS and cuDNN do, the tile
// shape and split of K (split-K) that finish first:
//   tiles = batch x ceil(M / tm) x ceil(N / tn) x split
//   tiles_per_sm = ceil(tiles / sm_count)                   the busiest SM's tiles
//   t_math = tiles_per_sm x 2 x tm x tn x (ceil(K / split) + k_overhead) / (peak_per_sm x tile_efficiency)
//            + (split > 1: the partial outputs' reduction, 2 x split x batch x M x N x 4 bytes at t_memory's rate)
//   tile_efficiency = peak_efficiency x min(1, (tm x tn / (tm + tn)) / tile_knee)
// Tiles resident on one SM share its math: an SM's time is its own tiles' work at its rate, so smaller tiles spread a
// partial wave more evenly (a 128 x 128 tile fills an SM; up to (128 x 128) / (tm x tn) smaller ones run at once, and
// `waves` reports ceil(tiles / slots) of those). A tile's math per byte loaded grows with tm x tn / (tm + tn): small
// tiles fill more SMs but reach less of the peak.
// k_overhead is the prologue and epilogue of a tile in units of its K loop's iterations.
// A 3 x 3 convolution at stride 1 on the CUDA cores may also run as Winograd's minimal filtering (Lavin and Gray,
// CVPR 2016), as cuDNN runs most of them in the measured data; the model takes the fastest of:
//   implicit GEMM   M = images x output positions, N = out channels, K = in channels x 9
//   Winograd 2x2    F(2x2, 3x3), fused: the same GEMM with 16 multiplies per 2 x 2 outputs instead of 36: K = in x 4
//   Winograd 4x4    F(4x4, 3x3), not fused: 36 GEMMs of (images x 4x4 output tiles) x in by in x out (36 multiplies
//                   per 4 x 4 outputs instead of 144), after the input and filters are transformed through memory and
//                   before the output is: 2 x 36 x tiles x (in + out) + 36 x in x out values more traffic
// each at its own peak efficiency, counted in its own flop. A measured convolution whose row says which algorithm
// cuDNN ran is fitted (and checked) with that one.
// A convolution on the tensor cores (tensor_convolution) runs as the implicit GEMM alone: cuDNN ran every one of the
// measured 16-bit convolutions so (DeepBench's forward algorithm column, data/kernels/README.md).

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/catalog/gpu_spec.hpp"

namespace vtsim {

/// The kinds of kernel the model times, each with its own constants. gemm, batched_gemm and convolution run fp32 on
/// the CUDA cores; tensor_gemm and tensor_convolution multiply 16-bit inputs on the tensor cores and accumulate in
/// fp32 (the convolutions as implicit GEMMs only: cuDNN ran every measured one so, data/kernels/README.md).
enum class KernelFamily {
  gemm,
  batched_gemm,
  convolution,
  elementwise,
  softmax,
  layer_norm,
  tensor_gemm,
  tensor_convolution
};
inline constexpr std::size_t kKernelFamilyCount = 8;

/// Every family, in a fixed order.
const std::vector<KernelFamily>& kernel_families();
/// "gemm", "batched_gemm", "convolution", "elementwise", "softmax", "layer_norm", "tensor_gemm",
/// "tensor_convolution".
std::string_view to_string(KernelFamily family);
/// Whether the family is a matrix product (tiles and waves) rather than a memory-bound pass.
bool is_matrix_product(KernelFamily family);
/// Whether the family is a convolution (on the CUDA cores or the tensor cores).
bool is_convolution(KernelFamily family);
/// Whether the family runs on the tensor cores (tensor_gemm, tensor_convolution).
bool runs_on_tensor_cores(KernelFamily family);
/// The family `family` runs as on the tensor cores (16-bit or TF32 operands): a matrix product's tensor-core family; a
/// memory-bound pass is itself.
KernelFamily tensor_core_family(KernelFamily family);

/// How a convolution runs (see the file comment); other matrix products are implicit_gemm, their one GEMM.
enum class ConvolutionAlgorithm { implicit_gemm, winograd_2x2, winograd_4x4 };
/// "implicit GEMM", "Winograd 2x2", "Winograd 4x4".
std::string_view to_string(ConvolutionAlgorithm algorithm);

/// A convolution's shape as its gradients' cost depends on it: cuDNN computes the input and weight gradients of a
/// 3 x 3 convolution at stride 1 with Winograd's algorithms as it does its forward pass, those of a 1 x 1 one (a
/// plain matrix product) and of a strided one with algorithms of their own (docs/compute-model.md, "Convolution
/// gradients on the CUDA cores").
enum class ConvolutionShape {
  three_by_three,  ///< 3 x 3 at stride 1
  pointwise,       ///< 1 x 1 at stride 1
  strided,         ///< any filter at a stride above 1 in either direction
  other,           ///< any other filter at stride 1 (5 x 5, 1 x 7, 7 x 1, ...)
};
std::string_view to_string(ConvolutionShape shape);
/// REQUIRES: every argument >= 1.
ConvolutionShape convolution_shape(int filter_height, int filter_width, int stride_height, int stride_width);

/// The two gradients a convolution's backward pass computes.
enum class ConvolutionGradient { input, weight };
std::string_view to_string(ConvolutionGradient gradient);

/// How long cuDNN takes for a convolution's `gradient` on the CUDA cores (fp32), over its forward pass on the same
/// shape: the upper median over Baidu DeepBench's fp32 convolutions on a P100 (cuDNN 6.0), a V100 SXM2 and a T4
/// (cuDNN 7.6) together, the rows of data/kernels/deepbench/*-results-fp32.csv with the gradient's time
/// (calibrate::measure_gradient_costs measures it; `vtsim validate --check` and the test
/// KernelFit.GradientCostsReproduceTheData check these values against the data). 1 for ConvolutionShape::other, of
/// which the data hold too few rows (nine 5 x 5 convolutions) to measure it.
double cuda_core_gradient_cost(ConvolutionShape shape, ConvolutionGradient gradient);

/// One operator's dimensions, as the measured data give them. Matrix products: the output is batch x (M x N), the
/// reduction K. Convolutions are given as their implicit GEMM (convolution_gemm()). Memory-bound passes: `elements`
/// values, each read or written `tensors` times (an add reads two tensors and writes one: 3).
struct KernelShape {
  KernelFamily family = KernelFamily::gemm;
  double batch = 1;  ///< independent products of a batched GEMM; 1 otherwise
  double m = 0;
  double n = 0;
  double k = 0;
  double elements = 0;       ///< memory-bound passes: values per tensor; convolutions: input, filters and output
  double tensors = 0;        ///< memory-bound passes: tensors read and written; convolutions: 1
  /// Bytes per value: 4 for fp32; on the tensor-core families 2 for fp16 and bf16, 4 for TF32, which is how a
  /// tensor-core product's peak is chosen (datasheet_peak_flops).
  double element_bytes = 4;
  /// Convolutions: images, input channels and output width and height, and whether Winograd applies (3 x 3 on the
  /// CUDA cores, stride 1).
  double images = 0;
  double in_channels = 0;
  double output_width = 0;
  double output_height = 0;
  bool winograd = false;
  /// The reduction the tiles loop over where it exceeds k: a tensor-core convolution's input channels padded to a
  /// multiple of 8 (on_tensor_cores); 0: k. The flop stay the operator's own.
  double padded_k = 0;

  /// flop of the operator: 2 x batch x M x N x K for a product; 0 for a memory-bound pass (its few flop per value
  /// never bind on the CUDA cores).
  double flop() const;
  /// Bytes it reads and writes in device memory, each operand once.
  double bytes() const;
};

/// A 2-D convolution's dimensions: `images` of in_channels x height x width by out_channels filters of
/// filter_height x filter_width, at its strides and zero padding.
struct ConvolutionDimensions {
  double images = 1;
  double in_channels = 1;
  double out_channels = 1;
  double width = 1;
  double height = 1;
  double filter_width = 1;
  double filter_height = 1;
  double stride_width = 1;
  double stride_height = 1;
  double pad_width = 0;
  double pad_height = 0;
};

/// The convolution as the implicit GEMM cuDNN computes on the CUDA cores (family convolution): M = images x output
/// positions, N = out_channels, K = in_channels x filter_height x filter_width.
/// REQUIRES: every dimension >= 1 but the paddings >= 0, and the filter fits the padded input.
KernelShape convolution_gemm(const ConvolutionDimensions& dimensions);
/// A square convolution: `batch` images of `in_channels` x size x size by `out_channels` filters of kernel x kernel.
KernelShape convolution_gemm(double batch, double in_channels, double out_channels, double kernel, double size,
                             double stride, double padding);

/// `shape` on the tensor cores (tensor_core_family) with operands of `element_bytes`: 2 for fp16 and bf16, 4 for
/// TF32 (fp32 values in memory, multiplied as TF32: NVIDIA A100 whitepaper, "TF32"); a convolution as an implicit
/// GEMM only (no Winograd form on the tensor cores in the model), its input channels padded to a whole number of
/// kTensorCoreAccessBytes (8 channels of 2 bytes, 4 of 4). REQUIRES: element_bytes is 2 or 4.
KernelShape on_tensor_cores(KernelShape shape, double element_bytes = 2);

/// Whether `shape` is a TF32 product: on the tensor cores with 4-byte operands (on_tensor_cores(shape, 4)).
bool is_tf32(const KernelShape& shape);

/// cuDNN runs a 16-bit convolution on the tensor cores with its channels a multiple of 8, padding them where they
/// are not (cuDNN 7.2 onwards: "Tensor Ops Made Easier in cuDNN", NVIDIA technical blog, 2018; cuDNN Developer
/// Guide, "Tensor Transformations": padding): a convolution of 1 or 3 input channels loops over 8. Eight 2-byte
/// channels are the 128-bit accesses tensor-core kernels load ("most kernels targeting Tensor Cores require 128b
/// aligned memory accesses", NVIDIA/cutlass issue #75, a maintainer, citing cuBLAS's tensor-op restrictions): a TF32
/// convolution's 4-byte channels are taken as padded to 4, which no TF32 measurement checks.
inline constexpr double kTensorCoreAccessBytes = 16;

/// The constants of one family; the same on every GPU (the GPU enters through its datasheet only).
struct KernelFamilyParameters {
  double host_s = 30e-6;           ///< fixed cost per operator: dispatch, launch and the measurement's own, s
  /// Of host_s, the part after the kernel is launched, which the kernel's run hides, s; 0: none (t = host + device).
  double host_after_launch_s = 0;
  double peak_efficiency = 0.9;    ///< fraction of the SMs' datasheet peak a large tile reaches, (0, 1]
  double tile_knee = 40;           ///< tile intensity tm x tn / (tm + tn) from which a tile reaches peak_efficiency
  double k_overhead = 8;           ///< a tile's prologue and epilogue, in iterations of its K loop
  double memory_efficiency = 0.8;  ///< fraction of datasheet DRAM bandwidth a pass reaches
  double l2_speedup = 1.0;         ///< how much faster than DRAM a pass whose bytes fit in L2 runs, >= 1
  /// Convolutions only: the peak efficiency of each Winograd algorithm, in its own (fewer) flop; peak_efficiency is
  /// the implicit GEMM's.
  double winograd_2x2_efficiency = 0.7;
  double winograd_4x4_efficiency = 0.7;

  bool operator==(const KernelFamilyParameters&) const = default;
};

/// The parameters of every family.
struct KernelModelParameters {
  std::vector<KernelFamilyParameters> families = std::vector<KernelFamilyParameters>(kKernelFamilyCount);

  /// The parameters of `family`.
  const KernelFamilyParameters& of(KernelFamily family) const;
  KernelFamilyParameters& of(KernelFamily family);
};

/// What a GPU offers a kernel, from its datasheet: its fp32 CUDA-core and 16-bit and TF32 tensor-core peaks, SMs,
/// bandwidth, L2.
struct KernelDevice {
  std::string gpu_id;
  double peak_flops = 0;  ///< dense fp32 peak on the CUDA cores, flop/s
  double tensor16_flops = 0;  ///< dense 16-bit tensor-core peak with fp32 accumulate, flop/s; 0 where none
  int sm_count = 0;
  double memory_bandwidth_Bps = 0;
  double l2_bytes = 0;
  double tf32_flops = 0;  ///< dense TF32 tensor-core peak, flop/s; 0 before Ampere
  /// Per family (indexed by KernelFamily), 1 unless measured on this GPU (models/compute/kernel_parameters.hpp's
  /// SustainedClock): for a matrix product, the fraction of the datasheet's peak (its boost clock) the SMs sustain
  /// under the family's long products (a card held back by its power limit or its cooling runs below its boost
  /// clock, by how much no datasheet says); for a memory-bound pass, the fraction of the datasheet's memory bandwidth
  /// its long passes sustain (the V100's and A100's HBM2 reach 0.91-0.95 of it, the P100's 0.75-0.79, as the GDDR
  /// cards do, which no datasheet says either).
  std::array<double, kKernelFamilyCount> sustained_clock = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0};

  /// sustained_clock of `family`: for a matrix product, of its compute clock.
  double clock(KernelFamily family) const { return sustained_clock.at(static_cast<std::size_t>(family)); }
  /// The share of the datasheet memory bandwidth a pass of `family` sustains: sustained_clock for a memory-bound
  /// family; 1 for a matrix product, whose clock does not slow its memory.
  double memory_share(KernelFamily family) const { return is_matrix_product(family) ? 1.0 : clock(family); }
};

/// `gpu` as its datasheet describes it (tensor16_flops: its fp16 tensor-core peak, 0 before Volta, whose fp16 runs
/// on the CUDA cores; tf32_flops: its TF32 one, 0 before Ampere), at its boost clock. REQUIRES: gpu.sm_count > 0.
KernelDevice kernel_device(const GpuSpec& gpu);

/// The datasheet peak of `shape`'s path on `device`: for the tensor-core families the tensor cores' peak for its
/// operands (TF32's for 4-byte values, the 16-bit one for 2-byte), else the fp32 CUDA cores'.
double datasheet_peak_flops(const KernelShape& shape, const KernelDevice& device);

/// The peak `shape` runs at on `device`: its datasheet peak at its family's sustained clock (a card's tensor cores
/// hold the clock its 16-bit products measured under TF32 too: the same units under the same power limit).
double family_peak_flops(const KernelShape& shape, const KernelDevice& device);

/// What binds a kernel.
enum class KernelBound { math, memory, host };
/// "math", "memory" or "host".
std::string_view to_string(KernelBound bound);

/// One kernel's predicted time and why.
struct KernelPrediction {
  double time_s = 0;    ///< kernel_time_s(device_s, the family's parameters)
  double device_s = 0;  ///< the device's part: the slower of the math and the traffic (and a Winograd's transforms), s
  double math_s = 0;    ///< the chosen tiling's math (matrix products), s
  double memory_s = 0;  ///< its traffic at the pass's rate, s
  KernelBound bound = KernelBound::math;
  int tile_m = 0;  ///< chosen tile (matrix products); 0 otherwise
  int tile_n = 0;
  int split_k = 1;
  ConvolutionAlgorithm algorithm = ConvolutionAlgorithm::implicit_gemm;  ///< the chosen one (convolutions)
  double waves = 0;        ///< waves of thread blocks over the SMs (matrix products)
  double utilization = 0;  ///< achieved flop/s over the datasheet peak (matrix products), of the whole kernel time
};

/// One way of running a matrix product: a tile shape, a split of K, and what follows from them on one device.
struct Tiling {
  int tile_m = 128;
  int tile_n = 128;
  int split = 1;
  double waves = 0;            ///< ceil(tiles x split / slots), slots = SMs x (128 x 128) / (tm x tn)
  double tiles_per_sm = 0;     ///< tiles (split slices included) on the busiest SM: ceil(tiles x split / SMs)
  double k_per_tile = 0;       ///< ceil(K / split)
  double reduction_bytes = 0;  ///< the partial outputs' reduction when split > 1
  // What the prediction needs of it that no parameter changes, worked out once (a fit predicts each kernel many times).
  double intensity = 0;   ///< tm x tn / (tm + tn): the tile's flop per element it loads, over 2
  double flop_per_k = 0;  ///< 2 x tiles_per_sm x tm x tn: the busiest SM's flop per iteration of the K loop
};

/// A shape on a device with what does not depend on the parameters worked out once (a fit predicts each measured
/// kernel hundreds of times).
struct PreparedKernel {
  KernelShape shape;
  KernelDevice device;
  /// Matrix products: every tiling the library may pick (a convolution's implicit GEMM) but those an earlier one
  /// dominates (no more flop per K iteration, K iterations or reduction traffic, no lower intensity), which
  /// predict_kernel would never pick whatever the parameters.
  std::vector<Tiling> tilings;
  std::vector<Tiling> winograd_2x2_tilings;  ///< a convolution Winograd applies to: those of each of its GEMMs
  std::vector<Tiling> winograd_4x4_tilings;
  double winograd_4x4_transform_bytes = 0;  ///< the non-fused algorithm's transforms through memory
};

/// Prepares `shape` on `device`. REQUIRES: the shape's dimensions >= 1, device values > 0.
PreparedKernel prepare_kernel(const KernelShape& shape, const KernelDevice& device);

/// Predicts a prepared kernel with `parameters`: the fastest tiling of the fastest algorithm, or of `only` when given
/// (a measured convolution timed with the algorithm it ran; REQUIRES: one the shape has).
KernelPrediction predict_kernel(const PreparedKernel& kernel, const KernelModelParameters& parameters,
                                std::optional<ConvolutionAlgorithm> only = std::nullopt);

/// A kernel's time from its device part: the family's host cost, and the device's time past the part of the host's
/// cost that comes after the launch (which the kernel's run hides).
double kernel_time_s(double device_s, const KernelFamilyParameters& family);

/// predict_kernel(prepare_kernel(shape, device), parameters).
KernelPrediction predict_kernel(const KernelShape& shape, const KernelDevice& device,
                                const KernelModelParameters& parameters);

}  // namespace vtsim
