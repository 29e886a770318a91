#pragma once
// Compute model: the time of each kernel of one training (or inference) iteration on one device, and how the host that
// issues those kernels paces them. docs/compute-model.md derives every formula and cites every constant.
//
// A layer runs as kernels of its kind (workload.hpp's KernelKind): forward one kernel; backward one per gradient it
// computes (weights, input), none when it computes neither. The optimizer is one fused memory-bound pass over the
// trainable parameters, or, where the framework's code writes it tensor by tensor (Workload::optimizer_kernels), its
// operations' kernels. A kernel's time on the device is
//   t = kernel_fixed_s + max(F / R, B / (memory_bandwidth x memory_efficiency))
// where R, for a GEMM or convolution kernel, is the rate of the SMs its tiles occupy:
//   R = peak_flops x efficiency(kind) x tiles / (waves x sm_count),   waves = ceil(tiles / sm_count)
// with tiles the 128 x 128 output tiles of its (implicit) GEMM, one thread block each: a kernel that exposes fewer
// tiles than the device has SMs leaves SMs idle, which is why a small job uses a MIG slice well and a whole GPU badly.
// A memory kernel's flop run on the CUDA cores at the device's fp32 rate.
// The host issues one kernel every host_dispatch_s (framework dispatch and the CUDA launch, asynchronous): kernel i
// cannot start before the host issued it, so a step of many short kernels is bound by the host, not the GPU:
//   issue_i = i x host_dispatch_s,   start_i = max(end_(i-1), issue_i),   end_i = start_i + t_i
// (a library's own launches inside a framework's call, cuDNN's transposes, cost library_launch_host_s each instead).
// The iteration ends when its last kernel does. Data loading (decode, augmentation) runs on the VM's CPU cores in
// loader workers beside the device (data_loading_s per batch): an iteration cannot start before its batch is ready.

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "models/catalog/gpu_spec.hpp"
#include "models/catalog/mig_profile.hpp"
#include "models/compute/kernel_model.hpp"
#include "models/core/precision.hpp"
#include "models/workload/workload.hpp"

namespace vtsim {

/// What one rank's device offers a job in its precision: a whole GPU, a MIG instance or a time-sliced vGPU (which
/// has all SMs while it runs).
struct DeviceCompute {
  std::string description;          ///< e.g. "NVIDIA A100 40GB SXM4, fp16, MIG 1g.5gb"
  double peak_flops = 0;            ///< dense peak of the device's SMs for the job's precision path, flop/s
  double vector_flops = 0;          ///< fp32 CUDA-core peak of the same SMs (elementwise work), flop/s
  double memory_bandwidth_Bps = 0;  ///< device memory bandwidth, bytes/s (datasheet)
  double memory_bytes = 0;          ///< memory the job may use, bytes
  int sm_count = 0;                 ///< SMs the job's kernels can occupy
};

/// A whole GPU: bare metal, passthrough or a time-sliced vGPU, which has all SMs while it runs but only its profile's
/// framebuffer (`memory_bytes`). REQUIRES: gpu.peak_flops(precision) has a value.
DeviceCompute whole_gpu(const GpuSpec& gpu, Precision precision, double memory_bytes);

/// A MIG instance: its own SMs (profile.sm_count) at the GPU's per-SM rate and memory_slices / gpu_memory_slices of
/// the bandwidth (NVIDIA MIG user guide: memory in eighths, an A30's in quarters). REQUIRES: profile.gpu_id == gpu.id, gpu.peak_flops(precision) has a
/// value.
DeviceCompute mig_instance(const GpuSpec& gpu, const MigProfile& profile, Precision precision);

/// The constants a kernel's time and the host's pace depend on, resolved for one job on one device.
struct ComputeParameters {
  double gemm_efficiency = 1.0;  ///< fraction of its SMs' peak a full wave of GEMM tiles reaches, (0, 1]
  /// The same for convolutions, counted in direct-convolution flop: cuDNN's Winograd and FFT algorithms need fewer
  /// (Winograd F(2x2,3x3): 2.25x fewer multiplies, Lavin and Gray 2016), so it may exceed 1, up to 2.25. An fp32
  /// 3 x 3, stride-1 convolution's Winograd speedup is apart from it (Kernel::winograd_speedup, apply_winograd).
  double convolution_efficiency = 1.0;
  double memory_efficiency = 1.0;  ///< fraction of datasheet bandwidth a memory-bound pass reaches, (0, 1]
  /// The same for memory layers of a measured kernel family (element-wise, softmax, layer norm, indexed by
  /// MemoryPass); 0 where not given: memory_efficiency.
  std::array<double, 5> pass_memory_efficiency = {0.0, 0.0, 0.0, 0.0, 0.0};
  /// Extra reduction length each output tile of a GEMM kernel (kind gemm) spends, in elements of K: a tile's time is
  /// taken as proportional to K + this (its pipeline's fill and drain and its epilogue), so a product of depth K runs
  /// at K / (K + this) of gemm_efficiency. 0: not modelled.
  double gemm_depth_overhead = 0.0;
  /// The same for a convolution kernel (kind convolution), in elements of its implicit GEMM's K. 0: not modelled.
  double convolution_depth_overhead = 0.0;
  double kernel_fixed_s = 0.0;     ///< per kernel on the device: launch latency, ramp and tail, s
  double host_dispatch_s = 0.0;    ///< host time to issue one kernel (framework and CUDA launch), s
  /// Host time of one operation of a Python loop over parameter tensors (Kernel::python_loop), s; 0: host_dispatch_s.
  double loop_op_host_s = 0.0;
  /// Host time of one launch a library makes inside a framework's call (Kernel::within_previous_call: cuDNN's layout
  /// transposes), the CUDA launch alone, s; 0: none counted.
  double library_launch_host_s = 0.0;
  double data_loading_s = 0.0;     ///< time the rank's loader workers take to prepare one batch, s (beside the device)

  /// The memory efficiency of a memory-bound kernel doing `pass`.
  double memory_efficiency_of(MemoryPass pass) const {
    const double given = pass_memory_efficiency.at(static_cast<std::size_t>(pass));
    return given > 0.0 ? given : memory_efficiency;
  }
};

/// Whether an iteration trains (forward, backward, optimizer) or only infers (forward).
enum class Pass { training, inference };

/// What a kernel does, for a step's device time by class beside a profiler's breakdown (KernelTimes::by_class): its
/// kind, a memory-bound kernel's pass, and every optimizer kernel as the optimizer.
enum class KernelClass { gemm, convolution, elementwise, softmax, layer_norm, bias_gradient, other_memory, optimizer };
inline constexpr std::size_t kKernelClasses = 8;
std::string_view to_string(KernelClass kernel_class);

/// Device time and kernels of one class in an iteration.
struct ClassTime {
  double gpu_s = 0;
  int kernels = 0;
};

/// Kernel times of one iteration (one micro-batch) on one device: per layer, the time from the end of the previous
/// layer's last kernel to the end of this layer's last one, so host stalls fall on the layer they delay. Data loading
/// is not in them: it runs beside the device (alone_step_s; the engine times it against the real iteration).
struct KernelTimes {
  std::vector<double> forward_s;   ///< per layer, forward order
  std::vector<double> backward_s;  ///< per layer, forward order (backward runs them last to first); empty: inference
                                   ///< (a training iteration has its optimizer kernel)
  double optimizer_s = 0;          ///< the optimizer step
  /// The part of each of the times above the device spends running kernels; the rest it waits for the host (or the
  /// data loader) with nothing to run, time a time-sliced GPU gives to other vGPUs.
  std::vector<double> forward_gpu_s;
  std::vector<double> backward_gpu_s;
  double optimizer_gpu_s = 0;
  /// Bytes the kernels of each of the times above read and write in device memory (what they ask of HBM while a
  /// collective shares it, sim/training/training_job_state.hpp run_shared).
  std::vector<double> forward_bytes;
  std::vector<double> backward_bytes;
  double optimizer_bytes = 0;
  int kernels = 0;        ///< kernels launched in the iteration
  double gpu_busy_s = 0;  ///< sum of the kernels' device times (without host stalls)
  /// gpu_busy_s by KernelClass (index static_cast<std::size_t>(class)); empty for an iteration read from a trace.
  std::array<ClassTime, kKernelClasses> by_class{};

  /// Forward, backward and optimizer together, seconds.
  double total_s() const;
};

/// Where in an iteration a kernel runs.
enum class Phase { forward, backward, optimizer };

/// One kernel of an iteration, independent of the device it runs on.
struct Kernel {
  std::size_t layer = 0;  ///< the layer it belongs to (forward and backward); unused for the optimizer
  Phase phase = Phase::forward;
  double flop = 0;   ///< flop
  double bytes = 0;  ///< bytes read and written in device memory
  double tiles = 0;  ///< output tiles of a GEMM or convolution kernel; 0 for a memory-bound one
  KernelKind kind = KernelKind::memory;
  MemoryPass pass = MemoryPass::generic;  ///< memory-bound kernels: what they do
  int launches = 1;  ///< identical kernels it stands for, issued one after another, sharing its flop and bytes
  double depth = 0;  ///< a GEMM kernel's reduction length K (GemmShape::depth); 0: its K-depth cost not modelled
  /// A convolution kernel's rate over its implicit GEMM's: how much faster the fastest algorithm cuDNN has for its
  /// layer runs on the device (apply_winograd: a 3 x 3, stride-1 fp32 convolution on the CUDA cores may run as
  /// Winograd's minimal filtering); 1 for every other kernel.
  double winograd_speedup = 1.0;
  /// A conv2d's gradient kernel on the CUDA cores: its math time over its forward pass's, as cuDNN's gradient
  /// algorithms measured on its shape (cuda_core_gradient_cost in models/compute/kernel_model.hpp); its depth is then
  /// the forward pass's. 1 for every other kernel.
  double gradient_cost = 1.0;
  /// How often the host waits for the device among its launches: they are issued in this many groups as even as
  /// can be, and after each the host issues nothing more until the device has run everything issued (a value read
  /// back with `.item()` or a branch on a GPU tensor). 0: the host never waits.
  int synchronizations = 0;
  /// Issued by a Python loop over parameter tensors, an operation at a time (an optimizer's for-loop step): each
  /// launch costs the host ComputeParameters::loop_op_host_s instead of host_dispatch_s.
  bool python_loop = false;
  /// Launched by the library inside the call that launched the kernel before it (cuDNN's layout transposes around a
  /// convolution on NCHW tensors): the framework dispatches that call once, so these cost the host no dispatch of
  /// their own, only their launches (ComputeParameters::library_launch_host_s each).
  bool within_previous_call = false;
};

/// Whether cuDNN transposes the operands and result of `workload`'s convolutions in `precision`: tensor-core
/// convolutions (convolves_on_tensor_cores) on NCHW tensors (TensorLayout; iteration_kernels counts the passes).
bool transposes_layout_around_convolutions(const Workload& workload, Precision precision);

/// The kernels of one iteration with `batch` samples, in the order the host issues them, for an optimizer step every
/// `accumulation_steps` micro-batches (what a per-tensor optimizer does per micro-batch depends on it).
/// REQUIRES: batch >= 1, accumulation_steps >= 1.
std::vector<Kernel> iteration_kernels(const Workload& workload, int batch, Precision precision, Pass pass,
                                      int accumulation_steps = 1);

/// Sets each fp32 convolution kernel's winograd_speedup on `device` (the kernels of `workload`'s iteration with
/// `batch` samples, iteration_kernels): a 3 x 3 convolution at stride 1 (GemmShape::winograd) on the CUDA cores runs
/// as cuDNN's fastest of the implicit GEMM and Winograd's F(2x2, 3x3) and F(4x4, 3x3), as the kernel model times them
/// with its constants fitted to measured convolutions (models/compute/kernel_model.hpp); the kernel's time is its
/// implicit GEMM's over the ratio of the two. Other precisions run their convolutions on the tensor cores as implicit
/// GEMMs (as cuDNN ran every measured 16-bit one): their kernels stay at 1. `kernel_model`: the kernel model's
/// constants; null: the fitted ones (models/compute/kernel_parameters.json).
void apply_winograd(std::vector<Kernel>& kernels, const Workload& workload, int batch, Precision precision,
                    const DeviceCompute& device, const KernelModelParameters* kernel_model = nullptr);

/// The class `kernel` is counted in.
KernelClass kernel_class(const Kernel& kernel);

/// Times `kernels` (of a workload with `layers` layers) on `device`, paced by the host (see the file comment).
/// REQUIRES: efficiencies > 0.
KernelTimes time_kernels(const std::vector<Kernel>& kernels, std::size_t layers, const DeviceCompute& device,
                         const ComputeParameters& parameters);

/// Output tiles (thread blocks) a GEMM or convolution kernel of `shape` exposes at `batch` samples: 128 x 128 tiles.
double gemm_tiles(const GemmShape& shape, int batch);

/// Fraction of the device's SMs busy on average over a kernel's waves: tiles / (ceil(tiles / sm_count) x sm_count).
double wave_utilization(double tiles, int sm_count);

/// Device time of `kernel` on `device`. REQUIRES: efficiencies > 0.
double kernel_time_s(const Kernel& kernel, const DeviceCompute& device, const ComputeParameters& parameters);

/// time_kernels(iteration_kernels(...)): every kernel of one iteration with `batch` samples, paced by the host.
KernelTimes kernel_times(const Workload& workload, int batch, Precision precision, const DeviceCompute& device,
                         const ComputeParameters& parameters, Pass pass = Pass::training, int accumulation_steps = 1);

/// Bytes read and written per trainable parameter by one optimizer step (see compute_model.cpp for the derivation).
double optimizer_bytes_per_parameter(Optimizer optimizer, Precision precision);

/// Bytes an attention core's passes over its scores move per score, forward and backward: the first product's
/// write, the passes between the products, the second product's read, and in backward the same in reverse, as
/// models/compute/compute_model.cpp derives them; `softmax_fp32`: eager passes under mixed precision run the softmax
/// and the dropout after it in fp32, with casts (Layer::score_softmax_fp32). REQUIRES: passes != ScorePasses::none.
struct ScoreBytes {
  double forward = 0.0;
  double backward = 0.0;
};
ScoreBytes score_bytes(ScorePasses passes, bool dropout, Precision precision, bool softmax_fp32 = true);

/// Bytes per logit a softmax cross-entropy moves in forward and in backward. Forward reads the logits and writes the
/// (log-)probabilities; backward writes the loss's gradient over the probabilities, reads it and them and writes the
/// logits' gradient. Under mixed precision with `softmax_fp32` (PyTorch's autocast runs log_softmax and nll_loss, the
/// two parts of cross_entropy, in float32: aten/src/ATen/autocast_mode.cpp; Megatron-LM's vocabulary-parallel cross
/// entropy casts the logits to float) it runs in fp32 between two casts: forward e + 4 (cast) + 2 x 4, backward
/// 4 + 3 x 4 + 4 + e (cast back).
ScoreBytes loss_bytes(Precision precision, bool softmax_fp32 = true);

/// One iteration of `micro_batches` forward and backward passes and one optimizer step alone on one device, data
/// loading included: the loader prepares each batch while the device works on the previous one, so the step is the
/// longer of the two. REQUIRES: micro_batches >= 1.
double alone_step_s(const KernelTimes& times, const ComputeParameters& parameters, int micro_batches = 1);

/// The device's busy time in that step: `micro_batches` times the iteration's kernels but the optimizer's, and the
/// optimizer's once. REQUIRES: micro_batches >= 1.
double alone_busy_s(const KernelTimes& times, int micro_batches = 1);

/// Samples/s of one device: batch / (forward + backward + optimizer / accumulation_steps), or batch / forward for
/// inference. REQUIRES: accumulation_steps >= 1.
double samples_per_s(const KernelTimes& times, int batch, int accumulation_steps);

}  // namespace vtsim
