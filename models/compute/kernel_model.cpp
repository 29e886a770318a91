#include "models/compute/kernel_model.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>
#include <span>

namespace vtsim {
namespace {

// The reference tile: 128 x 128 outputs per thread block, one block per SM at a time (CUTLASS's default SGEMM and
// tensor-op threadblock shape, cutlass/gemm/device/default_gemm_configuration.h; cuBLAS's "*_128x128_*" kernels).
// Smaller tiles run several blocks per SM in the same registers and shared memory: (128 x 128) / (tm x tn) of them.
constexpr double kReferenceTileArea = 128.0 * 128.0;

// The tile shapes cuBLAS's SGEMM kernels are named for in the measured data (data/kernels/README.md): ampere_sgemm_
// 128x128, 128x64, 64x64, 128x32, 32x128, 64x32 and 32x32 (64x32 only as a sliced1x4 kernel, 32x32 and 128x32 also
// so), volta_ and maxwell_ alike. A name's AxB is A of the output's columns by B of its rows (cuBLAS multiplies
// column-major matrices, so PyTorch's row-major output is its transpose): every linear layer of the data, and every
// batched product that ran such a kernel, has the launch grid ceil(columns / A) x ceil(rows / B). As the model's
// tm x tn (rows x columns), {tm, tn} = {B, A}.
constexpr std::array<std::array<int, 2>, 7> kCublasTiles = {
    {{128, 128}, {64, 128}, {64, 64}, {32, 128}, {128, 32}, {32, 64}, {32, 32}}};
// Convolutions' implicit GEMMs (cuDNN's scudnn_128x128, 128x64 and 128x32 kernels, whose orientation the data do not
// show) and the tensor-core families (cuBLAS's and cuDNN's tensor-op kernels, DeepBench's column-major GEMMs) take
// both orientations of the shapes above but 64x32.
constexpr std::array<std::array<int, 2>, 7> kTiles = {
    {{128, 128}, {128, 64}, {64, 128}, {64, 64}, {128, 32}, {32, 128}, {32, 32}}};

// The tile shapes a product of `family` may run with.
std::span<const std::array<int, 2>> tiles_of(KernelFamily family) {
  const bool cuda_core_gemm = family == KernelFamily::gemm || family == KernelFamily::batched_gemm;
  return cuda_core_gemm ? std::span<const std::array<int, 2>>(kCublasTiles)
                        : std::span<const std::array<int, 2>>(kTiles);
}

// Winograd's minimal filtering (Lavin and Gray, CVPR 2016): F(2x2, 3x3) multiplies a 4 x 4 input tile by the 4 x 4
// transformed filter, 16 products per 2 x 2 outputs (4 per output, against 9 directly); F(4x4, 3x3) a 6 x 6 input
// tile, one GEMM per point of it.
constexpr double kWinograd2x2ProductsPerOutput = 4.0;
constexpr double kWinograd4x4Points = 36.0;

// Split-K: cuBLAS splits the reduction when the output's tiles cannot fill the SMs (the measured kernels' grid z).
constexpr int kMaxSplit = 256;
// A split leaves at least this many K iterations per slice.
constexpr double kMinKPerSplit = 8.0;
// The most tilings for_each_tiling visits: every tile shape with each split 1, 2, 4, ..., kMaxSplit.
constexpr std::size_t kMaxTilings = std::max(kCublasTiles.size(), kTiles.size()) * std::bit_width(unsigned{kMaxSplit});
// prepare_kernel's lists hold no more, and predict_kernel's pick works in an array of this size: a PreparedKernel
// assembled by hand must not hold more in a list either.
static_assert(kMaxTilings == 63);

template <typename Visit>
void for_each_tiling(const KernelShape& shape, const KernelDevice& device, Visit visit) {
  const double k = std::max(shape.k, shape.padded_k);
  for (const auto& [tm, tn] : tiles_of(shape.family)) {
    const double tiles = shape.batch * std::ceil(shape.m / tm) * std::ceil(shape.n / tn);
    const double slots = device.sm_count * std::max(1.0, kReferenceTileArea / (tm * tn));
    for (int split = 1; split <= kMaxSplit; split *= 2) {
      if (split > 1 && (tiles * split > 2.0 * slots || k / split < kMinKPerSplit)) break;
      const double reduction = split > 1 ? 2.0 * split * shape.batch * shape.m * shape.n * shape.element_bytes : 0.0;
      const double tiles_per_sm = std::ceil(tiles * split / device.sm_count);
      visit(Tiling{tm, tn, split, std::ceil(tiles * split / slots), tiles_per_sm, std::ceil(k / split), reduction,
                   tm * tn / static_cast<double>(tm + tn), tiles_per_sm * 2.0 * tm * tn});
    }
  }
}

// Whether `a` is at least as fast as `b` under every parameter value: no more flop per K iteration on the busiest SM,
// no more K iterations, no lower tile intensity (the efficiency only grows with it) and no more reduction traffic
// (whose rate is the same or higher when it is smaller: L2). Each operation of predict_kernel's math time is
// correctly rounded and so monotone in its operands, and the parameters are positive, so the computed time of `a` is
// then no more than that of `b`, and its math too.
bool dominates(const Tiling& a, const Tiling& b) {
  return a.flop_per_k <= b.flop_per_k && a.k_per_tile <= b.k_per_tile && a.intensity >= b.intensity &&
         a.reduction_bytes <= b.reduction_bytes;
}

// The tilings of `shape` on `device` but those an earlier one dominates. predict_kernel takes the first tiling of least
// (time, math), so one dominated by an earlier tiling is never its pick, whatever the parameters: leaving it out
// changes no prediction and halves the tilings a fit evaluates (gemm 12.9 -> 6.8 per measured kernel, batched_gemm
// 9.3 -> 5.6, convolution 30.9 -> 15.7). Domination is transitive, so comparing with the kept ones is enough. The
// result is allocated once, at its size.
std::vector<Tiling> undominated_tilings(const KernelShape& shape, const KernelDevice& device) {
  std::array<Tiling, kMaxTilings> kept;
  std::size_t count = 0;
  for_each_tiling(shape, device, [&](const Tiling& tiling) {
    const auto end = kept.begin() + static_cast<std::ptrdiff_t>(count);
    if (std::none_of(kept.begin(), end, [&](const Tiling& earlier) { return dominates(earlier, tiling); })) {
      assert(count < kMaxTilings);
      kept[count++] = tiling;
    }
  });
  return {kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(count)};
}

double memory_rate_Bps(double bytes, const KernelDevice& device, const KernelFamilyParameters& parameters) {
  const double l2 = bytes <= device.l2_bytes ? parameters.l2_speedup : 1.0;
  return device.memory_bandwidth_Bps * parameters.memory_efficiency * l2;
}

}  // namespace

const std::vector<KernelFamily>& kernel_families() {
  static const std::vector<KernelFamily> families = {
      KernelFamily::gemm,    KernelFamily::batched_gemm, KernelFamily::convolution, KernelFamily::elementwise,
      KernelFamily::softmax, KernelFamily::layer_norm,   KernelFamily::tensor_gemm, KernelFamily::tensor_convolution};
  return families;
}

std::string_view to_string(KernelFamily family) {
  switch (family) {
    case KernelFamily::gemm: return "gemm";
    case KernelFamily::batched_gemm: return "batched_gemm";
    case KernelFamily::convolution: return "convolution";
    case KernelFamily::elementwise: return "elementwise";
    case KernelFamily::softmax: return "softmax";
    case KernelFamily::layer_norm: return "layer_norm";
    case KernelFamily::tensor_gemm: return "tensor_gemm";
    case KernelFamily::tensor_convolution: return "tensor_convolution";
  }
  return "?";
}

bool is_matrix_product(KernelFamily family) {
  return family == KernelFamily::gemm || family == KernelFamily::batched_gemm || is_convolution(family) ||
         family == KernelFamily::tensor_gemm;
}

bool is_convolution(KernelFamily family) {
  return family == KernelFamily::convolution || family == KernelFamily::tensor_convolution;
}

bool runs_on_tensor_cores(KernelFamily family) {
  return family == KernelFamily::tensor_gemm || family == KernelFamily::tensor_convolution;
}

KernelFamily tensor_core_family(KernelFamily family) {
  if (is_convolution(family)) return KernelFamily::tensor_convolution;
  return is_matrix_product(family) ? KernelFamily::tensor_gemm : family;
}

std::string_view to_string(KernelBound bound) {
  switch (bound) {
    case KernelBound::math: return "math";
    case KernelBound::memory: return "memory";
    case KernelBound::host: return "host";
  }
  return "?";
}

double KernelShape::flop() const { return is_matrix_product(family) ? 2.0 * batch * m * n * k : 0.0; }

double KernelShape::bytes() const {
  if (!is_convolution(family) && is_matrix_product(family)) return batch * (m * k + k * n + m * n) * element_bytes;
  return tensors * elements * element_bytes;
}

KernelShape convolution_gemm(const ConvolutionDimensions& d) {
  assert(d.images >= 1 && d.in_channels >= 1 && d.out_channels >= 1 && d.width >= 1 && d.height >= 1);
  assert(d.filter_width >= 1 && d.filter_height >= 1 && d.stride_width >= 1 && d.stride_height >= 1);
  assert(d.pad_width >= 0 && d.pad_height >= 0);
  assert(d.width + 2 * d.pad_width >= d.filter_width && d.height + 2 * d.pad_height >= d.filter_height);
  const double output_width = std::floor((d.width + 2.0 * d.pad_width - d.filter_width) / d.stride_width) + 1.0;
  const double output_height = std::floor((d.height + 2.0 * d.pad_height - d.filter_height) / d.stride_height) + 1.0;
  const double filter = d.filter_width * d.filter_height;
  KernelShape shape;
  shape.family = KernelFamily::convolution;
  shape.m = d.images * output_width * output_height;
  shape.n = d.out_channels;
  shape.k = d.in_channels * filter;
  // Traffic: the input images, the filters and the output, each once (the implicit GEMM reads the input in place).
  shape.elements = d.images * d.in_channels * d.width * d.height + d.out_channels * d.in_channels * filter +
                   d.images * d.out_channels * output_width * output_height;
  shape.tensors = 1;
  shape.images = d.images;
  shape.in_channels = d.in_channels;
  shape.output_width = output_width;
  shape.output_height = output_height;
  // cuDNN's Winograd kernels take 3 x 3 filters at stride 1 (the only convolutions of the measured data).
  shape.winograd = d.filter_width == 3 && d.filter_height == 3 && d.stride_width == 1 && d.stride_height == 1;
  return shape;
}

KernelShape convolution_gemm(double batch, double in_channels, double out_channels, double kernel, double size,
                             double stride, double padding) {
  return convolution_gemm(ConvolutionDimensions{.images = batch,
                                                .in_channels = in_channels,
                                                .out_channels = out_channels,
                                                .width = size,
                                                .height = size,
                                                .filter_width = kernel,
                                                .filter_height = kernel,
                                                .stride_width = stride,
                                                .stride_height = stride,
                                                .pad_width = padding,
                                                .pad_height = padding});
}

KernelShape on_tensor_cores(KernelShape shape, double element_bytes) {
  assert(element_bytes == 2 || element_bytes == 4);
  shape.family = tensor_core_family(shape.family);
  shape.element_bytes = element_bytes;
  shape.winograd = false;
  shape.padded_k = 0;  // a padding for another operand width does not carry over
  if (is_convolution(shape.family) && shape.in_channels > 0) {
    const double multiple = kTensorCoreAccessBytes / element_bytes;
    const double channels = std::ceil(shape.in_channels / multiple) * multiple;
    if (channels > shape.in_channels) shape.padded_k = shape.k / shape.in_channels * channels;
  }
  return shape;
}

std::string_view to_string(ConvolutionShape shape) {
  switch (shape) {
    case ConvolutionShape::three_by_three:
      return "3x3 stride 1";
    case ConvolutionShape::pointwise:
      return "1x1 stride 1";
    case ConvolutionShape::strided:
      return "strided";
    case ConvolutionShape::other:
      return "other";
  }
  return "?";
}

ConvolutionShape convolution_shape(int filter_height, int filter_width, int stride_height, int stride_width) {
  assert(filter_height >= 1 && filter_width >= 1 && stride_height >= 1 && stride_width >= 1);
  if (stride_height > 1 || stride_width > 1) return ConvolutionShape::strided;
  if (filter_height == 3 && filter_width == 3) return ConvolutionShape::three_by_three;
  if (filter_height == 1 && filter_width == 1) return ConvolutionShape::pointwise;
  return ConvolutionShape::other;
}

std::string_view to_string(ConvolutionGradient gradient) {
  return gradient == ConvolutionGradient::input ? "input" : "weight";
}

double cuda_core_gradient_cost(ConvolutionShape shape, ConvolutionGradient gradient) {
  const bool input = gradient == ConvolutionGradient::input;
  // The upper median of gradient / forward time over DeepBench's fp32 rows of the shape on the P100, V100 SXM2 and
  // T4 together (input gradients over 87, 81 and 75 rows; weight gradients over 96, 81 and 96).
  switch (shape) {
    case ConvolutionShape::three_by_three:
      return input ? 1.0 : 0.9936180657830145;
    case ConvolutionShape::pointwise:
      return input ? 1.0704225352112675 : 1.5145631067961165;
    case ConvolutionShape::strided:
      return input ? 1.7789473684210526 : 1.5384615384615385;
    case ConvolutionShape::other:
      return 1.0;
  }
  return 1.0;
}

std::string_view to_string(ConvolutionAlgorithm algorithm) {
  switch (algorithm) {
    case ConvolutionAlgorithm::implicit_gemm: return "implicit GEMM";
    case ConvolutionAlgorithm::winograd_2x2: return "Winograd 2x2";
    case ConvolutionAlgorithm::winograd_4x4: return "Winograd 4x4";
  }
  return "?";
}

const KernelFamilyParameters& KernelModelParameters::of(KernelFamily family) const {
  return families.at(static_cast<std::size_t>(family));
}
KernelFamilyParameters& KernelModelParameters::of(KernelFamily family) {
  return families.at(static_cast<std::size_t>(family));
}

KernelDevice kernel_device(const GpuSpec& gpu) {
  assert(gpu.sm_count > 0);
  // The P100's fp16 peak is half2 on the CUDA cores, and the P4 has no fast fp16: no tensor-core path.
  KernelDevice device;
  device.gpu_id = gpu.id;
  device.peak_flops = gpu.fp32_flops;
  device.tensor16_flops = has_tensor_cores(gpu.architecture) ? gpu.fp16_flops.value_or(0.0) : 0.0;
  device.tf32_flops = gpu.tf32_flops.value_or(0.0);
  device.sm_count = gpu.sm_count;
  device.memory_bandwidth_Bps = gpu.memory_bandwidth_Bps;
  device.l2_bytes = gpu.l2_bytes;
  return device;
}

bool is_tf32(const KernelShape& shape) { return runs_on_tensor_cores(shape.family) && shape.element_bytes == 4; }

double datasheet_peak_flops(const KernelShape& shape, const KernelDevice& device) {
  if (!runs_on_tensor_cores(shape.family)) return device.peak_flops;
  return is_tf32(shape) ? device.tf32_flops : device.tensor16_flops;
}

double family_peak_flops(const KernelShape& shape, const KernelDevice& device) {
  return datasheet_peak_flops(shape, device) * device.clock(shape.family);
}

PreparedKernel prepare_kernel(const KernelShape& shape, const KernelDevice& device) {
  assert(!runs_on_tensor_cores(shape.family) || shape.element_bytes == 2 || shape.element_bytes == 4);
  assert(family_peak_flops(shape, device) > 0 && device.sm_count > 0 && device.memory_bandwidth_Bps > 0);
  PreparedKernel kernel{shape, device, {}, {}, {}, 0.0};
  if (is_matrix_product(shape.family)) {
    assert(shape.batch >= 1 && shape.m >= 1 && shape.n >= 1 && shape.k >= 1);
    kernel.tilings = undominated_tilings(shape, device);
  }
  if (shape.family == KernelFamily::convolution && shape.winograd) {
    // F(2x2, 3x3): 16 products per 2 x 2 outputs and input channel instead of 36, in the implicit GEMM's shape.
    KernelShape fused = shape;
    fused.k = shape.in_channels * kWinograd2x2ProductsPerOutput;
    kernel.winograd_2x2_tilings = undominated_tilings(fused, device);
    // F(4x4, 3x3): one GEMM per point of the 6 x 6 transformed tile, over the images' 4 x 4 output tiles.
    const double tiles = shape.images * std::ceil(shape.output_width / 4.0) * std::ceil(shape.output_height / 4.0);
    KernelShape batched = shape;
    batched.batch = kWinograd4x4Points;
    batched.m = tiles;
    batched.k = shape.in_channels;
    kernel.winograd_4x4_tilings = undominated_tilings(batched, device);
    // Transformed input and output written and read once each, and the transformed filters written.
    const double transformed = 2.0 * kWinograd4x4Points * tiles * (shape.in_channels + shape.n);
    kernel.winograd_4x4_transform_bytes =
        (transformed + kWinograd4x4Points * shape.in_channels * shape.n) * shape.element_bytes;
  }
  return kernel;
}

KernelPrediction predict_kernel(const PreparedKernel& kernel, const KernelModelParameters& parameters,
                                std::optional<ConvolutionAlgorithm> only) {
  assert(!only || *only == ConvolutionAlgorithm::implicit_gemm || kernel.shape.winograd);
  const KernelShape& shape = kernel.shape;
  const KernelDevice& device = kernel.device;
  const KernelFamilyParameters& family = parameters.of(shape.family);
  const double bytes = shape.bytes();
  KernelPrediction prediction;
  prediction.memory_s = bytes / (memory_rate_Bps(bytes, device, family) * device.memory_share(shape.family));
  double device_s = prediction.memory_s;
  if (!kernel.tilings.empty()) {
    const double per_sm_flops = family_peak_flops(shape, device) / device.sm_count;
    const auto consider = [&](const std::vector<Tiling>& tilings, double peak_efficiency, double extra_s,
                              ConvolutionAlgorithm algorithm) {
      if ((only && *only != algorithm) || tilings.empty()) return;
      // Each tiling's math first, then the pick: the divisions of one tiling do not wait on the comparisons of the
      // one before, and the pick is a running index, not a branch per tiling (a fit predicts each measured kernel
      // hundreds of times).
      assert(tilings.size() <= kMaxTilings);
      std::array<double, kMaxTilings> maths_s;
      // A tile shape's splits come one after another (for_each_tiling): its efficiency is worked out once for them.
      double intensity = 0;
      double efficiency = 0;
      for (std::size_t i = 0; i < tilings.size(); ++i) {
        const Tiling& tiling = tilings[i];
        assert(tiling.intensity > 0 && "a tiling comes from for_each_tiling, which works out its intensity");
        if (tiling.intensity != intensity) {
          intensity = tiling.intensity;
          efficiency = peak_efficiency * std::min(1.0, intensity / family.tile_knee);
        }
        // An unsplit tiling has no reduction: adding its 0 s leaves the math as it is.
        const double reduction_s =
            tiling.split > 1 ? tiling.reduction_bytes / memory_rate_Bps(tiling.reduction_bytes, device, family) : 0.0;
        maths_s[i] =
            tiling.flop_per_k * (tiling.k_per_tile + family.k_overhead) / (per_sm_flops * efficiency) + reduction_s;
      }
      // The fastest; among equally fast ones (traffic binding them all), the one with the least math; among equal
      // ones, the first.
      std::size_t best = 0;
      double best_s = std::max(maths_s[0], prediction.memory_s) + extra_s;
      for (std::size_t i = 1; i < tilings.size(); ++i) {
        const double total_s = std::max(maths_s[i], prediction.memory_s) + extra_s;
        const bool faster = total_s < best_s || (total_s == best_s && maths_s[i] < maths_s[best]);
        best = faster ? i : best;
        best_s = faster ? total_s : best_s;
      }
      // The same against the algorithms considered before.
      const bool faster = best_s < device_s || (best_s == device_s && maths_s[best] < prediction.math_s);
      if (prediction.tile_m == 0 || faster) {
        const Tiling& tiling = tilings[best];
        device_s = best_s;
        prediction.math_s = maths_s[best];
        prediction.tile_m = tiling.tile_m;
        prediction.tile_n = tiling.tile_n;
        prediction.split_k = tiling.split;
        prediction.waves = tiling.waves;
        prediction.algorithm = algorithm;
      }
    };
    consider(kernel.tilings, family.peak_efficiency, 0.0, ConvolutionAlgorithm::implicit_gemm);
    consider(kernel.winograd_2x2_tilings, family.winograd_2x2_efficiency, 0.0, ConvolutionAlgorithm::winograd_2x2);
    const double transforms_s =
        kernel.winograd_4x4_transform_bytes / memory_rate_Bps(kernel.winograd_4x4_transform_bytes, device, family);
    consider(kernel.winograd_4x4_tilings, family.winograd_4x4_efficiency, transforms_s,
             ConvolutionAlgorithm::winograd_4x4);
  }
  prediction.device_s = device_s;
  prediction.time_s = kernel_time_s(device_s, family);
  if (family.host_s >= device_s) {
    prediction.bound = KernelBound::host;
  } else {
    prediction.bound = prediction.math_s >= prediction.memory_s ? KernelBound::math : KernelBound::memory;
  }
  if (is_matrix_product(shape.family)) {
    prediction.utilization = shape.flop() / (prediction.time_s * datasheet_peak_flops(shape, device));
  }
  return prediction;
}

double kernel_time_s(double device_s, const KernelFamilyParameters& family) {
  return family.host_s + std::max(0.0, device_s - family.host_after_launch_s);
}

KernelPrediction predict_kernel(const KernelShape& shape, const KernelDevice& device,
                                const KernelModelParameters& parameters) {
  return predict_kernel(prepare_kernel(shape, device), parameters);
}

}  // namespace vtsim
