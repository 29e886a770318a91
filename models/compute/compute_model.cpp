#include "models/compute/compute_model.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <optional>

#include "models/compute/kernel_model.hpp"
#include "models/compute/kernel_parameters.hpp"

namespace vtsim {
namespace {

// Output tile of one thread block of a tensor-core GEMM: 128 x 128, the threadblock shape of CUTLASS's default
// tensor-op GEMM configurations for Volta, Turing and Ampere (cutlass/gemm/device/default_gemm_configuration.h) and of
// the cuBLAS kernels named "*_128x128_*". Libraries also pick smaller tiles and split-K for small problems; this model
// does not, so it is pessimistic for small GEMMs on many SMs (docs/compute-model.md, "Limits").
constexpr double kTileRows = 128.0;
constexpr double kTileColumns = 128.0;

// Bytes of one weight as a kernel reads it: AMP runs forward and backward on the 16-bit copy of the weights.
double weight_bytes(Precision precision) { return is_mixed_precision(precision) ? 2.0 : 4.0; }

// The rate a job's products run at: the datasheet's peak for its precision, but for 16-bit values on a GPU without
// tensor cores (Pascal) the fp32 one: frameworks multiply them with fp32 arithmetic there (cuBLAS's GemmEx with fp32
// compute), not as the P100's half2 at twice the rate (nor the P4's fp16 at 1/64): DeepBench's P100 "16 bit inputs,
// 32 bit multiplication" GEMMs take the time of its fp32 ones (median ratio 1.00 over the 160 shapes of both files,
// data/kernels/deepbench/).
double peak_or_die(const GpuSpec& gpu, Precision precision) {
  if (precision == Precision::fp16 && !has_tensor_cores(gpu.architecture)) return gpu.fp32_flops;
  const std::optional<double> peak = gpu.peak_flops(precision);
  assert(peak.has_value() && "REQUIRES: the GPU supports the precision");
  return peak.value_or(0.0);
}

std::string describe(const GpuSpec& gpu, Precision precision) {
  return gpu.name + ", " + std::string(to_string(precision));
}

// The host issues kernels in order, one every host_dispatch_s (or at the pace set for a group of them; a library's own
// launches inside the call before them one every library_launch_host_s); the device runs them in order (one stream).
class StreamTimeline {
 public:
  explicit StreamTimeline(double host_dispatch_s) : pace_s_(host_dispatch_s) {}

  /// The host issues the kernels that follow one every `dispatch_s` (from the next kernel on).
  void set_pace(double dispatch_s) {
    if (dispatch_s == pace_s_) return;
    anchor(issue_s(kernels_));
    pace_s_ = dispatch_s;
  }
  /// Issues `launches` kernels of `device_s` seconds each on the device, one after another; returns when the last ends.
  double run(double device_s, int launches = 1) {
    assert(launches >= 1);
    // Kernel j (0-based) starts at max(the end of the one before, its issue time); the last ends at the later of the
    // first's start plus all of them and the last's issue plus its own time (the ends between are linear in j).
    const double first_issued = issue_s(kernels_);
    last_issued_s_ = issue_s(kernels_ + launches - 1);
    end_s_ = std::max(std::max(end_s_, first_issued) + launches * device_s, last_issued_s_ + device_s);
    busy_s_ += launches * device_s;
    kernels_ += launches;
    return end_s_;
  }
  /// Issues `launches` kernels of `device_s` seconds each inside the call that issued the kernel before them (a
  /// library's own launches, as cuDNN's transposes around a convolution): the host spends no framework dispatch on
  /// them, only `launch_s` for each launch itself, one after another from the previous kernel's issue; the next
  /// kernel is issued that much later than it would have been without them. Returns when the last ends.
  double run_within_previous_call(double device_s, int launches, double launch_s) {
    assert(launches >= 1 && kernels_ >= 1 && launch_s >= 0.0);
    // As run(): launch j (1-based) is issued at the previous kernel's issue + j x launch_s and starts when both it is
    // issued and the one before has ended; the ends between the first and the last are linear in j.
    const double first_issued = last_issued_s_ + launch_s;
    last_issued_s_ += launches * launch_s;
    end_s_ = std::max(std::max(end_s_, first_issued) + launches * device_s, last_issued_s_ + device_s);
    busy_s_ += launches * device_s;
    kernels_ += launches;
    anchor_s_ += launches * launch_s;
    anchor_kernels_ += launches;  // issue_s(kernels_) later by the launches' host time alone
    return end_s_;
  }
  /// The host waits until the device has run everything issued, then dispatches its next kernel at its pace: that
  /// kernel is issued a dispatch after the device's last end at the soonest (the device idles meanwhile).
  void synchronize() { anchor(std::max(issue_s(kernels_), end_s_ + pace_s_)); }
  double busy_s() const { return busy_s_; }
  int kernels() const { return kernels_; }

 private:
  // When the host issues kernel `k` (0-based, from the anchor on): one dispatch after another since the anchor.
  double issue_s(int k) const { return anchor_s_ + static_cast<double>(k - anchor_kernels_) * pace_s_; }
  // The host issues its next kernel at `host_s`.
  void anchor(double host_s) {
    anchor_s_ = host_s;
    anchor_kernels_ = kernels_;
  }

  double pace_s_;          ///< host time per kernel issued
  /// When the host issues kernel anchor_kernels_ (0 and 0 until it waits, changes pace or a library launches inside a
  /// call).
  double anchor_s_ = 0.0;
  int anchor_kernels_ = 0;
  double last_issued_s_ = 0.0;  ///< when the host issued the last kernel run
  double end_s_ = 0.0;
  double busy_s_ = 0.0;
  int kernels_ = 0;
};

}  // namespace

DeviceCompute whole_gpu(const GpuSpec& gpu, Precision precision, double memory_bytes) {
  return {.description = describe(gpu, precision),
          .peak_flops = peak_or_die(gpu, precision),
          .vector_flops = gpu.fp32_flops,
          .memory_bandwidth_Bps = gpu.memory_bandwidth_Bps,
          .memory_bytes = memory_bytes,
          .sm_count = gpu.sm_count};
}

DeviceCompute mig_instance(const GpuSpec& gpu, const MigProfile& profile, Precision precision) {
  assert(profile.gpu_id == gpu.id && gpu.sm_count > 0 && profile.sm_count > 0);
  // An instance's SMs run at the GPU's per-SM rate (the datasheet peak spread over the product's SMs); MIG mode
  // itself leaves mig_sm_count usable (A100: 98 of 108), which the 7g profile's SM count already says.
  const double share = static_cast<double>(profile.sm_count) / gpu.sm_count;
  return {.description = describe(gpu, precision) + ", MIG " + profile.id,
          .peak_flops = peak_or_die(gpu, precision) * share,
          .vector_flops = gpu.fp32_flops * share,
          .memory_bandwidth_Bps = gpu.memory_bandwidth_Bps * profile.memory_slices / profile.gpu_memory_slices,
          .memory_bytes = profile.memory_bytes,
          .sm_count = profile.sm_count};
}

double KernelTimes::total_s() const {
  double total = optimizer_s;
  for (double t : forward_s) total += t;
  for (double t : backward_s) total += t;
  return total;
}

double gemm_tiles(const GemmShape& shape, int batch) {
  const double column_tiles = std::ceil(shape.columns / kTileColumns);
  if (shape.problems_per_sample > 0.0) {
    return batch * shape.problems_per_sample * std::ceil(shape.rows_per_sample / kTileRows) * column_tiles;
  }
  return std::ceil(batch * shape.rows_per_sample / kTileRows) * column_tiles;
}

double wave_utilization(double tiles, int sm_count) {
  assert(tiles >= 1.0 && sm_count >= 1);
  const double waves = std::ceil(tiles / sm_count);
  return tiles / (waves * sm_count);
}

double kernel_time_s(const Kernel& kernel, const DeviceCompute& device, const ComputeParameters& parameters) {
  assert(parameters.gemm_efficiency > 0.0 && parameters.convolution_efficiency > 0.0);
  assert(parameters.memory_efficiency > 0.0 && parameters.memory_efficiency <= 1.0);
  const double efficiency = kernel.kind == KernelKind::memory ? parameters.memory_efficiency_of(kernel.pass)
                                                               : parameters.memory_efficiency;
  const double memory_s = kernel.bytes / (device.memory_bandwidth_Bps * efficiency);
  double math_s = 0.0;
  if (kernel.kind == KernelKind::memory) {
    math_s = kernel.flop / device.vector_flops;
  } else {
    const double math_efficiency =
        kernel.kind == KernelKind::gemm ? parameters.gemm_efficiency : parameters.convolution_efficiency;
    math_s = kernel.flop /
             (device.peak_flops * math_efficiency * wave_utilization(std::max(kernel.tiles, 1.0), device.sm_count));
    if (kernel.depth > 0.0) {
      const double overhead = kernel.kind == KernelKind::gemm ? parameters.gemm_depth_overhead
                                                              : parameters.convolution_depth_overhead;
      math_s *= (kernel.depth + overhead) / kernel.depth;
    }
    math_s *= kernel.gradient_cost / kernel.winograd_speedup;
  }
  return parameters.kernel_fixed_s + std::max(math_s, memory_s);
}

// One optimizer step reads and writes, per trainable parameter (fp32 state, as Apex's fused multi-tensor optimizers
// and torch.optim keep it; a fused pass reads each tensor once and writes it once):
//   SGD:               read param 4 + grad 4,                write param 4                         = 12 B
//   SGD with momentum: read param 4 + grad 4 + momentum 4,   write param 4 + momentum 4            = 20 B
//   Adam, AdamW:       read param 4 + grad 4 + m 4 + v 4,    write param 4 + m 4 + v 4             = 28 B
//   LAMB:              Adam's pass writing the update u instead of the parameter (28 B), then a second pass for the
//                      layer's trust ratio ||param|| / ||u||: read param 4 + u 4, write param 4 (You et al. 2020,
//                      Algorithm 2; Apex FusedLAMB's two stages)                                   = 40 B
//   Adafactor:         read grad 4 (row and column means of its square), write the update 4, read it back 4
//                      for its RMS clipping, read param 4 + write param 4 (Shazeer and Stern 2018, Alg. 4)  = 20 B
//   under AMP each also writes the 16-bit copy of the updated weights the next forward reads:      +  2 B
// (a job whose code copies fp32 master weights into 16-bit ones in a pass of its own, Workload::master_weight_copy,
// runs the fp32 pass alone and the copy after it: iteration_kernels)
double optimizer_bytes_per_parameter(Optimizer optimizer, Precision precision) {
  double fp32_pass = 28.0;
  switch (optimizer) {
    case Optimizer::sgd: fp32_pass = 12.0; break;
    case Optimizer::sgd_momentum: fp32_pass = 20.0; break;
    case Optimizer::adam:
    case Optimizer::adamw: fp32_pass = 28.0; break;
    case Optimizer::lamb: fp32_pass = 40.0; break;
    case Optimizer::adafactor: fp32_pass = 20.0; break;
  }
  return fp32_pass + (is_mixed_precision(precision) ? 2.0 : 0.0);
}

namespace {

// An optimizer step written per parameter tensor as TensorFlow operations, as NVIDIA's TensorFlow BERT writes it
// (DeepLearningExamples TensorFlow/LanguageModeling/BERT/optimization.py @002bcd8c; every operation one kernel, all
// tensors fp32: the AMP graph rewrite keeps variables, gradients and optimizer state in fp32), per tensor and per
// parameter:
//   gradients (create_optimizer): clip_by_global_norm, an L2 reduction (read 4) and a scaling (read 4, write 4): 2
//     kernels, 12 B; under mixed precision also the loss scale's unscaling (8 B), is_finite (read 4, write a byte)
//     and its reduce_all (1 B): 3 more kernels, 14 B;
//   AdamWeightDecayOptimizer: next_m = b1 m + (1 - b1) g: two scalings and an add (8 + 8 + 12 = 28 B); next_v: a
//     square, two scalings and an add (36 B); m / (sqrt(v) + eps): sqrt, add, divide (8 + 8 + 12 = 28 B); weight
//     decay: a scaling and an add (20 B); the learning rate's scaling (8 B); param - update (12 B); three assigns
//     copying param, m and v back (24 B): 17 kernels, 156 B;
//   LAMBOptimizer: Adam's moments (7 kernels, 64 B), their bias corrections (2, 16 B), the update (3, 28 B) and
//     weight decay (2, 20 B); the norms of param and update, a square and a reduction each (2 x 2 kernels, 2 x 12 B),
//     and 8 scalar kernels for the trust ratio (sqrt twice, greater twice, where twice, a divide, its product with
//     the learning rate); the update's scaling (8 B), param - update (12 B), the three assigns (24 B): 31, 196 B.
// Weight decay is counted on every tensor (the code skips biases and LayerNorm's, a sliver of the parameters but
// most of the tensors: about 1.3 kernels per tensor too many). Under gradient accumulation (create_optimizer's
// num_accumulation_steps > 1 branch) the gradients' kernels run per micro-batch, followed by an add into the tensor's
// accumulator (assign_add: read 8, write 4; 1 kernel, 12 B), and the update once per step.
struct PerTensorOps {
  int kernels_per_tensor = 0;
  double bytes_per_parameter = 0.0;
};

PerTensorOps gradient_ops(Precision precision, int accumulation_steps) {
  const PerTensorOps ops = is_mixed_precision(precision) ? PerTensorOps{5, 26.0} : PerTensorOps{2, 12.0};
  return accumulation_steps > 1 ? PerTensorOps{ops.kernels_per_tensor + 1, ops.bytes_per_parameter + 12.0} : ops;
}

PerTensorOps update_ops(Optimizer optimizer) {
  assert(optimizer == Optimizer::adam || optimizer == Optimizer::adamw || optimizer == Optimizer::lamb);
  return optimizer == Optimizer::lamb ? PerTensorOps{31, 196.0} : PerTensorOps{17, 156.0};
}

// An element-wise pass of `launches` kernels moving `bytes_per_parameter` per trainable parameter of `workload`, in
// `phase` (layer 0's: the last in backward).
Kernel parameter_pass(const Workload& workload, double bytes_per_parameter, int launches, Phase phase) {
  return {.layer = 0,
          .phase = phase,
          .flop = 0.0,
          .bytes = workload.trainable_parameters() * bytes_per_parameter,
          .tiles = 0.0,
          .kind = KernelKind::memory,
          .pass = MemoryPass::elementwise,
          .launches = std::max(1, launches)};
}

// The kernels of `ops` over every trainable tensor of `workload`, in `phase` (in backward: layer 0's, the last).
Kernel per_tensor_kernel(const Workload& workload, const PerTensorOps& ops, Phase phase) {
  return parameter_pass(workload, ops.bytes_per_parameter,
                        ops.kernels_per_tensor * workload.trainable_parameter_tensors(), phase);
}

// The copy of fp32 master weights into the 16-bit ones the next forward reads: read 4, write 2 bytes per parameter.
constexpr double kMasterWeightCopyBytes = 6.0;

// Whether the step ends with that copy as a pass of its own (Workload::master_weight_copy, under mixed precision).
bool copies_master_weights(const Workload& workload, Precision precision) {
  return is_mixed_precision(precision) && workload.master_weight_copy;
}

// A multi-tensor launch (PyTorch's multi_tensor_apply, aten/src/ATen/native/cuda/MultiTensorApply.cuh, and Apex's,
// which it copies) covers chunks of 65,536 elements of up to depth_to_max_tensors[lists - 1] tensors, at most 320
// chunks (thread blocks) per launch: a pass over the workload's trainable tensors is launched as often as the tighter
// of the two limits needs. Each tensor's last chunk is partial, counted as half a chunk. (On the H200, 2026-12-04,
// data/measured/h200-sxm-2026-12-04-optimizer/: BERT-large's 398 tensors, 336 million parameters, take 17 launches per
// foreach operation, a 1.3B GPT's 292 tensors 64; this gives 17 and 64.)
constexpr double kMultiTensorChunkElements = 65536.0;
constexpr double kMultiTensorMaxChunks = 320.0;
constexpr std::array<double, 4> kMultiTensorMaxTensors = {110.0, 64.0, 48.0, 36.0};  // by the lists it passes, 1-4

int multi_tensor_launches(const Workload& workload, int lists) {
  assert(lists >= 1 && lists <= static_cast<int>(kMultiTensorMaxTensors.size()));
  const double tensors = workload.trainable_parameter_tensors();
  const double chunks = workload.trainable_parameters() / kMultiTensorChunkElements + 0.5 * tensors;
  const double launches = std::max(std::ceil(tensors / kMultiTensorMaxTensors.at(static_cast<std::size_t>(lists - 1))),
                                    std::ceil(chunks / kMultiTensorMaxChunks));
  return std::max(1, static_cast<int>(launches));
}

// A fused optimizer's lists: parameters and gradients, and each state tensor (momentum; Adam's two moments).
int fused_lists(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::sgd: return 2;
    case Optimizer::sgd_momentum: return 3;
    default: return 4;
  }
}

// One element-wise operation of torch.optim's update over every parameter tensor: the tensor lists it passes (a
// multi-tensor launch's depth) and the bytes it moves per parameter in fp32.
struct TorchOp {
  int lists = 1;
  double bytes_per_parameter = 0.0;
};

// torch.optim's update as its code writes it (torch/optim/sgd.py `_multi_tensor_sgd` and `_single_tensor_sgd`,
// torch/optim/adam.py `_multi_tensor_adam` and `_single_tensor_adam`, which AdamW runs with decoupled weight decay;
// PyTorch 2.x at its defaults: no weight decay but AdamW's, no Nesterov, no amsgrad, capturable=False, whose step
// counters stay on the CPU and launch nothing). The foreach and the for-loop implementations run the same operations,
// the first over all tensors at once, the second tensor by tensor:
//   SGD:       params += -lr grads (add_: read 8, write 4)                                            1 op,  12 B
//   momentum:  buf *= momentum (mul_: 8); buf += grads (add_: 12); params += -lr buf (add_: 12)       3 ops, 32 B
//   Adam:      m = lerp(m, g) (12); v *= beta2 (8); v += (1 - beta2) g g (addcmul_: read v, g, g, write v: 16);
//              d = sqrt(v) (8); d /= sqrt(bias correction 2) (8); d += eps (8);
//              params += -step m / d (addcdiv_: read p, m, d, write p: 16)                            7 ops, 76 B
//   AdamW:     Adam's, after params *= 1 - lr wd (mul_: 8)                                            8 ops, 84 B
// (Measured on the H200, 2026-12-04, at the card's copy rate: 34.6, 80.0 and 88.3-89.1 B per parameter for SGD with
// momentum, Adam and AdamW foreach, with 3, 7 and 8 launches per 17-launch group: docs/compute-model.md.)
std::vector<TorchOp> torch_update_ops(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::sgd: return {{2, 12.0}};
    case Optimizer::sgd_momentum: return {{1, 8.0}, {2, 12.0}, {2, 12.0}};
    case Optimizer::adamw: return {{1, 8.0}, {2, 12.0}, {1, 8.0}, {3, 16.0}, {2, 8.0}, {1, 8.0}, {1, 8.0}, {3, 16.0}};
    case Optimizer::adam: return {{2, 12.0}, {1, 8.0}, {3, 16.0}, {2, 8.0}, {1, 8.0}, {1, 8.0}, {3, 16.0}};
    case Optimizer::lamb:
    case Optimizer::adafactor: break;
  }
  assert(false && "torch.optim's operations are counted for SGD, momentum, Adam and AdamW (optimizer_kernels_for)");
  return {};
}

// The torch.optim step's kernels: under fp16 mixed precision GradScaler's unscale first
// (`_amp_foreach_non_finite_check_and_unscale_` over the gradients, torch/amp/grad_scaler.py: read 4, write 4; a
// foreach pass whichever the optimizer's implementation), the update's operations, and where the model keeps 16-bit
// weights beside the fp32 ones (not autocast's casts) their copy (read 4, write 2). The for-loop implementation's
// update is a Python loop over the tensors (Kernel::python_loop), a kernel of its own.
std::vector<Kernel> torch_optimizer_kernels(const Workload& workload, Precision precision) {
  std::vector<TorchOp> foreach_ops;
  if (precision == Precision::fp16) foreach_ops.push_back({1, 8.0});
  if (copies_master_weights(workload, precision)) foreach_ops.push_back({2, kMasterWeightCopyBytes});
  const std::vector<TorchOp> update = torch_update_ops(workload.optimizer);
  const bool foreach = workload.optimizer_kernels == OptimizerKernels::torch_foreach;
  if (foreach) foreach_ops.insert(foreach_ops.end(), update.begin(), update.end());
  double bytes = 0.0;
  int launches = 0;
  for (const TorchOp& op : foreach_ops) {
    bytes += op.bytes_per_parameter;
    launches += multi_tensor_launches(workload, op.lists);
  }
  std::vector<Kernel> kernels;
  if (launches > 0) kernels.push_back(parameter_pass(workload, bytes, launches, Phase::optimizer));
  if (!foreach) {
    double loop_bytes = 0.0;
    for (const TorchOp& op : update) loop_bytes += op.bytes_per_parameter;
    Kernel loop =
        parameter_pass(workload, loop_bytes, static_cast<int>(update.size()) * workload.trainable_parameter_tensors(),
                       Phase::optimizer);
    loop.python_loop = true;
    kernels.push_back(loop);
  }
  return kernels;
}

// run_squad.py's GradientClipper.step after each micro-batch's backward (DeepLearningExamples b2763ae2, a07d20a1),
// in `phase`: Apex's multi_tensor_l2norm over every gradient (read 4 B; the at::zeros clearing its per-block sums, its
// launches and a cleanup kernel: csrc/multi_tensor_l2norm_kernel.cu at NVIDIA/apex e13873de), `.item()` on the norm
// (the host waits for the GPU), and multi_tensor_scale of the gradients by max_norm / norm (read 4, write 4) when the
// norm exceeds 1.0 (counted: whether it does depends on the data). The script runs it with and without --fp16.
std::array<Kernel, 2> gradient_clipper_kernels(const Workload& workload, Phase phase) {
  Kernel norm = parameter_pass(workload, 4.0, 1 + multi_tensor_launches(workload, 1) + 1, phase);
  norm.synchronizations = 1;
  return {norm, parameter_pass(workload, 8.0, multi_tensor_launches(workload, 2), phase)};
}

// DeepLearningExamples' PyTorch BERT fine-tuning step as its code writes it without --fp16 (--amp), read at
// NVIDIA/DeepLearningExamples b2763ae2 (README of July 2020, NGC 20.06) and a07d20a1 (21.11); the same code since:
//   run_squad.py, after each micro-batch's backward, GradientClipper.step (gradient_clipper_kernels);
//   optimization.py, BertAdam.step, tensor by tensor: torch.nn.utils.clip_grad_norm_(p, 1.0), then
//     next_m.mul_(b1).add_(1 - b1, grad)                                       2 kernels, 8 + 12 B
//     next_v.mul_(b2).addcmul_(1 - b2, grad, grad)                             2 kernels, 8 + 16 B
//     update = next_m / (next_v.sqrt() + e)                                    3 kernels, 8 + 8 + 12 B
//     update += weight_decay * p.data (run_squad.py's no_decay: not 'bias', 'LayerNorm.bias', 'LayerNorm.weight')
//                                                                              2 kernels, 8 + 12 B
//     update_with_lr = lr * update; p.data.add_(-update_with_lr)               3 kernels, 8 + 8 + 12 B
//   so 10 kernels and 100 B per parameter, 12 and 120 B where weight decay applies (counted on every parameter of
//   a tensor that is not a LayerNorm's, biases included: under 0.1% of BERT-large's). clip_grad_norm_ on one tensor
//   runs torch.norm of the gradient (read 4 B), torch.stack of that norm, torch.norm of the stack, `+ 1e-6` and
//   `max_norm / (...)` (Tensor.__rdiv__: a reciprocal and a product): 6 kernels; then PyTorch before
//   pytorch/pytorch PR #61042 (2021-07; NGC 20.06 runs PyTorch 1.6) compares `clip_coef < 1` (a 7th kernel) and
//   branches on it on the host, which waits for the GPU (bert_adam_sync); since, it clamps the coefficient and
//   multiplies every gradient by it (clamp and mul_, read 4, write 4: 8 kernels, 12 B) without waiting (bert_adam;
//   NGC 22.10's PyTorch 1.13). The sync variant skips the scaling: GradientClipper has brought the norm under 1.
//   Then run_squad.py's optimizer.zero_grad(), torch.optim.Optimizer's (BertAdam has its own defaults, so no
//   foreach path; set_to_none false before PyTorch 2.0): a zero_() per tensor in a Python loop (write 4 B).
// The per-tensor operations are one Kernel whose launches share its bytes evenly (a large tensor's longer wait is
// not seen). Not counted: the add of each new gradient into the zeroed one in the next backward (12 B per parameter,
// a kernel per tensor issued by autograd's engine while the device is busy with the backward: about 1% of a V100's
// step).
std::vector<Kernel> bert_adam_kernels(const Workload& workload, Precision precision, int accumulation_steps) {
  const bool synchronizing = workload.optimizer_kernels == OptimizerKernels::bert_adam_sync;
  const std::array<Kernel, 2> clipper =
      gradient_clipper_kernels(workload, accumulation_steps > 1 ? Phase::backward : Phase::optimizer);
  std::vector<Kernel> kernels(clipper.begin(), clipper.end());
  int decayed_tensors = 0;
  double decayed_parameters = 0.0;
  for (const Layer& layer : workload.layers) {
    if (!layer.trainable || layer.memory_pass == MemoryPass::layer_norm) continue;
    decayed_tensors += layer.parameter_tensors - layer.bias_tensors;
    decayed_parameters += layer.parameters;
  }
  const int tensors = workload.trainable_parameter_tensors();
  const int clip_kernels = synchronizing ? 7 : 8;
  const double clip_bytes = synchronizing ? 4.0 : 12.0;
  Kernel step = parameter_pass(workload, clip_bytes + 100.0 + 4.0,
                               (clip_kernels + 10 + 1) * tensors + 2 * decayed_tensors, Phase::optimizer);
  step.bytes += 20.0 * decayed_parameters;
  step.python_loop = true;
  if (synchronizing) step.synchronizations = tensors;
  kernels.push_back(step);
  if (copies_master_weights(workload, precision)) {
    kernels.push_back(
        parameter_pass(workload, kMasterWeightCopyBytes, multi_tensor_launches(workload, 2), Phase::optimizer));
  }
  return kernels;
}

// DeepLearningExamples' PyTorch BERT fine-tuning step under --fp16 (--amp), read at NVIDIA/DeepLearningExamples
// b2763ae2 and a07d20a1 (run_squad.py) and NVIDIA/apex e13873de (apex/amp, the last commit before its removal):
//   amp.initialize(opt_level="O2") keeps fp16 model weights and fp32 master copies. Leaving amp.scale_loss
//     (handle.py), Apex zeroes its overflow flag (clear_overflow_state: `_overflow_buf.zero_()`, a kernel), unscales
//     the fp16 gradients into fresh fp32 master gradients (_process_optimizer.py, post_backward_with_master_weights:
//     LossScaler.unscale, one multi_tensor_scale: read 2, write 4 B) and update_scale reads the flag on the host
//     (`_overflow_buf.item()`: the host waits for the GPU);
//   run_squad.py's GradientClipper over the master gradients (amp.master_params; gradient_clipper_kernels: a second
//     wait);
//   Apex's FusedAdam: the fused pass over the fp32 masters (optimizer_bytes_per_parameter), then O2's patched step
//     copies them into the fp16 weights (_master_params_to_model_params: multi_tensor_scale, read 4, write 2 B),
//     whatever the workload's own master_weight_copy says (O2 always keeps the masters);
//   O2's patched zero_grad: a Python loop over the fp16 weights, `grad.detach_(); grad.zero_()` (write 2 B).
// Not counted: the host's Python work around them (Apex's loop over the tensors pairing gradients and allocating the
// master gradients with torch.empty_like, FusedAdam's loop building its tensor lists, O2's step setting each master
// gradient to None), FusedAdam's launches per parameter group (run_squad.py makes two, with and without weight
// decay: counted as one list, a launch or two fewer per operation), and run_squad.py's `loss.item()` at the step's
// end. Under gradient accumulation Apex adds each micro-batch's unscaled gradients into the stashed ones
// (multi_tensor_axpby, 4 B more read): counted as the unscaling, once per micro-batch, as the clipping (the code
// clips every micro-batch).
std::vector<Kernel> bert_fused_adam_kernels(const Workload& workload, int accumulation_steps) {
  const Phase per_micro_batch = accumulation_steps > 1 ? Phase::backward : Phase::optimizer;
  Kernel unscale = parameter_pass(workload, 6.0, 1 + multi_tensor_launches(workload, 2), per_micro_batch);
  unscale.synchronizations = 1;
  const std::array<Kernel, 2> clipper = gradient_clipper_kernels(workload, per_micro_batch);
  std::vector<Kernel> kernels = {
      unscale, clipper[0], clipper[1],
      parameter_pass(workload, optimizer_bytes_per_parameter(workload.optimizer, Precision::fp32),
                     multi_tensor_launches(workload, fused_lists(workload.optimizer)), Phase::optimizer),
      parameter_pass(workload, kMasterWeightCopyBytes, multi_tensor_launches(workload, 2), Phase::optimizer)};
  Kernel zero_grad = parameter_pass(workload, 2.0, workload.trainable_parameter_tensors(), Phase::optimizer);
  zero_grad.python_loop = true;
  kernels.push_back(zero_grad);
  return kernels;
}

}  // namespace

// Per score, with e = 2 bytes under mixed precision or 16-bit, 4 in fp32/TF32, and a one-byte dropout mask:
//   eager forward:   Q.K^T writes e; scale (/ sqrt(d)) reads and writes 2e; the additive mask 2e (its own rows are
//                    per sample, not per score); softmax 2e, or under PyTorch's mixed precision in fp32 (autocast's
//                    "ops that can autocast to float32" hold softmax): a cast up e + 4, the softmax 8, dropout in fp32
//                    8 + 1, a cast down for P.V 4 + e; else dropout 2e + 1; P.V reads e.
//                                                   PyTorch mixed: 8 + 4e + 21 = 41 B (32 without dropout)
//                                                               fp32: 10e + 1  = 41 B (32 without dropout)
//                            TensorFlow mixed (softmax 16-bit): 10e + 1  = 21 B (16 without dropout)
//   eager backward:  dP = dO.V^T writes e and dV = P^T.dO reads P e; the cast down's gradient e + 4 (mixed);
//                    dropout's reads the gradient and the mask and writes 9 (mixed; 2e + 1 else); softmax's reads
//                    the gradient and its output and writes 12 (mixed; 3e else); the cast up's 4 + e (mixed); the
//                    mask's is the identity (no kernel); the scale's 2e; dQ and dK read dS 2e.
//                                                   PyTorch mixed: 8e + 29     = 45 B (36 without dropout)
//                                                               fp32: 11e + 1  = 45 B (36 without dropout)
//                                               TensorFlow mixed: 11e + 1  = 23 B (18 without dropout)
//   fused softmax (Megatron-LM's scaled masked softmax: 16-bit in and out, fp32 inside; causal models read no mask):
//                    forward e + 2e + (2e + 1 dropout) + e = 6e + 1 = 13 B (8 without dropout);
//                    backward e + e + (2e + 1) + 3e + 2e = 9e + 1 = 19 B (14 without dropout).
ScoreBytes score_bytes(ScorePasses passes, bool dropout, Precision precision, bool softmax_fp32) {
  assert(passes != ScorePasses::none);
  const double e = activation_bytes(precision);
  // Dropout (or its gradient) on elements of `size` bytes: read and write them, and the one-byte mask.
  const auto dropout_pass = [dropout](double size) { return dropout ? 2 * size + 1.0 : 0.0; };
  if (passes == ScorePasses::fused_softmax) {
    return {.forward = e + 2 * e + dropout_pass(e) + e, .backward = 2 * e + dropout_pass(e) + 3 * e + 2 * e};
  }
  const bool mixed = is_mixed_precision(precision) && softmax_fp32;
  const double softmax_e = mixed ? 4.0 : e;  // the element size the softmax and dropout run in
  const double cast = mixed ? e + 4.0 : 0.0;  // one 16-bit <-> fp32 conversion
  return {.forward = e + 2 * e + 2 * e + cast + 2 * softmax_e + dropout_pass(softmax_e) + cast + e,
          .backward = 2 * e + cast + dropout_pass(softmax_e) + 3 * softmax_e + cast + 2 * e + 2 * e};
}

ScoreBytes loss_bytes(Precision precision, bool softmax_fp32) {
  const double e = activation_bytes(precision);
  if (is_mixed_precision(precision) && softmax_fp32) {
    return {.forward = (e + 4.0) + 2 * 4.0, .backward = 4.0 + 3 * 4.0 + (4.0 + e)};
  }
  return {.forward = 2 * e, .backward = 4 * e};
}

bool transposes_layout_around_convolutions(const Workload& workload, Precision precision) {
  return workload.layout == TensorLayout::nchw && convolves_on_tensor_cores(precision);
}

// A 16-bit or TF32 convolution on NCHW tensors runs as an NHWC tensor-core kernel: cuDNN transposes the activation
// it reads before the product and the one it writes after it, and the filter, each a pass that reads and writes it
// once (the "Channels Last" method card of MosaicML's Composer, with NVIDIA's diagram; for TF32 on an A100,
// pytorch/pytorch #81940; docs/compute-model.md, "Memory layout"). Per cuDNN call (the forward product, and each of
// the input and weight gradients, whose operands are the same tensors' gradients): 2 x (activation elements x e +
// parameters x e) bytes in 3 launches, which cuDNN makes inside the framework's one call (no dispatch of their own,
// only their launches: ComputeParameters::library_launch_host_s).
namespace {

std::optional<Kernel> layout_transposes(const Workload& workload, std::size_t l, int batch, Precision precision,
                                        Phase phase) {
  const Layer& layer = workload.layers[l];
  if (layer.kind != KernelKind::convolution || !transposes_layout_around_convolutions(workload, precision)) {
    return std::nullopt;
  }
  const double e = activation_bytes(precision);
  return Kernel{.layer = l,
                .phase = phase,
                .flop = 0.0,
                .bytes = 2.0 * (batch * layer.activation_elements + layer.parameters) * e,
                .tiles = 0.0,
                .kind = KernelKind::memory,
                .pass = MemoryPass::elementwise,
                .launches = 3,
                .within_previous_call = true};
}

// A weighted layer that trains a bias sums its output gradient over the rows into it: PyTorch's autograd for addmm and
// for a broadcast add (`sum_to_size`), Megatron-LM's linear layers (`grad_output.sum(dim=0)`), TensorFlow's
// BiasAddGrad, cuDNN's convolution backward bias. One reduction per bias tensor, after the layer's gradient kernels,
// reading the output gradient (e bytes per element) and writing the bias's gradient in fp32, one add per element
// read. Its efficiency is the layer norm family's (a reduction; no column reduction was measured): on the H200 a
// BERT-large step's 149 such kernels took 3.0 ms (docs/compute-model.md, "Bias gradients").
std::optional<Kernel> bias_gradients(const Workload& workload, std::size_t l, int batch, Precision precision) {
  const Layer& layer = workload.layers[l];
  if (layer.bias_tensors <= 0 || !layer.trainable || layer.kind == KernelKind::memory) return std::nullopt;
  const double elements = batch * layer.gemm.rows_per_sample * layer.gemm.columns;
  return Kernel{.layer = l,
                .phase = Phase::backward,
                .flop = elements,
                .bytes = elements * activation_bytes(precision) + layer.gemm.columns * 4.0,
                .tiles = 0.0,
                .kind = KernelKind::memory,
                .pass = MemoryPass::bias_gradient,
                .launches = layer.bias_tensors};
}

// PyTorch's autocast casts a convolution's or a linear layer's fp32 weights to 16 bits when the layer runs, every
// forward (its cache lives until the outermost autocast region exits: one forward, or one inference batch), one
// kernel per weight tensor that reads 4 B and writes 2 B per parameter; in training the cast's backward turns the
// 16-bit weight gradient into the fp32 one the parameter accumulates, 2 B read and 4 written
// (torch/amp/autocast_mode.py, aten/src/ATen/autocast_mode.cpp). The kernel is the layer's, issued just before its
// product (forward) or just after its last gradient kernel (backward); none for layers without weights or frozen ones
// in backward.
std::optional<Kernel> weight_casts(const Workload& workload, std::size_t l, Precision precision, Phase phase) {
  const Layer& layer = workload.layers[l];
  if (!workload.autocast_weight_casts || !is_mixed_precision(precision) || layer.kind == KernelKind::memory ||
      layer.parameters <= 0.0 || layer.parameter_tensors <= 0 || (phase == Phase::backward && !layer.trainable)) {
    return std::nullopt;
  }
  return Kernel{.layer = l,
                .phase = phase,
                .flop = 0.0,
                .bytes = 6.0 * layer.parameters,
                .tiles = 0.0,
                .kind = KernelKind::memory,
                .pass = MemoryPass::elementwise,
                .launches = layer.parameter_tensors};
}

// Whether a weighted layer's k-th backward kernel is its weight gradient (LayerBuilder::emit's order: the weight
// gradient first when the layer trains its weights, then the input gradient).
bool is_weight_gradient(const Layer& layer, int k) { return layer.trainable && k == 0; }

// The reduction length of a weighted layer's k-th backward kernel. The weight gradient dW = dY^T X reduces over
// the batch's rows; the input gradient dX = dY W over the output columns (a convolution's: over its output channels
// at each filter position). 0 where the forward's depth is not modelled.
double backward_depth(const Layer& layer, int k, int batch) {
  if (layer.gemm.depth <= 0.0) return 0.0;
  return is_weight_gradient(layer, k) ? batch * layer.gemm.rows_per_sample
                                      : layer.gemm.columns * layer.gemm.filter_positions;
}

// What a conv2d's k-th backward kernel on the CUDA cores costs against its forward pass (Kernel::gradient_cost):
// what cuDNN's gradient algorithms took on DeepBench's convolutions of its shape (cuda_core_gradient_cost). None on
// the tensor cores, whose forward constants time the gradients, and for any other layer (docs/compute-model.md,
// "Convolution gradients on the CUDA cores").
std::optional<double> gradient_cost(const Layer& layer, int k, Precision precision) {
  const GemmShape& g = layer.gemm;
  if (layer.kind != KernelKind::convolution || g.stride <= 0 || precision != Precision::fp32) return std::nullopt;
  return cuda_core_gradient_cost(
      convolution_shape(g.filter_height, g.filter_width, g.stride, g.stride),
      is_weight_gradient(layer, k) ? ConvolutionGradient::weight : ConvolutionGradient::input);
}

}  // namespace

std::vector<Kernel> iteration_kernels(const Workload& workload, int batch, Precision precision, Pass pass,
                                      int accumulation_steps) {
  assert(batch >= 1 && accumulation_steps >= 1);
  const double samples = batch;
  std::vector<Kernel> kernels;
  kernels.reserve(3 * workload.layers.size() + 1);
  std::vector<double> forward_bytes(workload.layers.size());   // without the scores' passes
  std::vector<double> backward_bytes(workload.layers.size());  // with them
  for (std::size_t l = 0; l < workload.layers.size(); ++l) {
    const Layer& layer = workload.layers[l];
    forward_bytes[l] =
        samples * layer.activation_elements * activation_bytes(precision) + layer.parameters * weight_bytes(precision);
    // Inference runs the model in evaluation mode: dropout is the identity and runs no kernel.
    const ScoreBytes scores =
        layer.score_passes == ScorePasses::none
            ? ScoreBytes{}
            : score_bytes(layer.score_passes, layer.score_dropout && pass == Pass::training, precision,
                          layer.score_softmax_fp32);
    // Backward reads what forward read plus the output gradient and writes the input and weight gradients: 2x its
    // traffic, and an attention core's passes over its scores (score_bytes); a softmax cross-entropy's are its own.
    backward_bytes[l] = 2.0 * forward_bytes[l] + samples * layer.score_elements * scores.backward;
    if (layer.loss_logits > 0.0) {
      const ScoreBytes loss = loss_bytes(precision, layer.score_softmax_fp32);
      forward_bytes[l] = samples * layer.loss_logits * loss.forward;
      backward_bytes[l] = samples * layer.loss_logits * loss.backward;
    }
    const double tiles = layer.kind == KernelKind::memory ? 0.0 : gemm_tiles(layer.gemm, batch);
    if (auto casts = weight_casts(workload, l, precision, Phase::forward)) kernels.push_back(*casts);
    kernels.push_back({l, Phase::forward, samples * layer.forward_flop,
                       forward_bytes[l] + samples * layer.score_elements * scores.forward, tiles, layer.kind,
                       layer.memory_pass});
    kernels.back().depth = layer.gemm.depth;
    if (auto transposes = layout_transposes(workload, l, batch, precision, Phase::forward)) {
      kernels.push_back(*transposes);
    }
  }
  if (pass == Pass::inference) return kernels;
  for (std::size_t l = workload.layers.size(); l-- > 0;) {
    const Layer& layer = workload.layers[l];
    // Backward's traffic (backward_bytes) is shared by its kernels as its flop are; each kernel exposes the forward
    // GEMM's tiles.
    const double count = layer.backward_kernels;
    const double tiles = layer.kind == KernelKind::memory ? 0.0 : gemm_tiles(layer.gemm, batch);
    for (int k = 0; k < layer.backward_kernels; ++k) {
      kernels.push_back({l, Phase::backward, samples * layer.backward_flop / count,
                         backward_bytes[l] / count, tiles, layer.kind,
                         layer.memory_pass});
      kernels.back().depth = backward_depth(layer, k, batch);
      if (const std::optional<double> cost = gradient_cost(layer, k, precision)) {
        // Timed as the forward pass at that cost: its reduction is the forward's.
        kernels.back().gradient_cost = *cost;
        kernels.back().depth = layer.gemm.depth;
      }
      if (auto transposes = layout_transposes(workload, l, batch, precision, Phase::backward)) {
        kernels.push_back(*transposes);
      }
    }
    if (auto bias = bias_gradients(workload, l, batch, precision)) kernels.push_back(*bias);
    if (auto casts = weight_casts(workload, l, precision, Phase::backward)) kernels.push_back(*casts);
  }
  if (workload.optimizer_kernels == OptimizerKernels::per_tensor_ops) {
    // Without accumulation the gradients' kernels precede the update in the step; with it they end each
    // micro-batch's backward (counted in its last layer's, the first in forward order).
    const PerTensorOps gradients = gradient_ops(precision, accumulation_steps);
    const PerTensorOps update = update_ops(workload.optimizer);
    if (accumulation_steps > 1) {
      kernels.push_back(per_tensor_kernel(workload, gradients, Phase::backward));
      kernels.push_back(per_tensor_kernel(workload, update, Phase::optimizer));
    } else {
      kernels.push_back(per_tensor_kernel(workload,
                                          {gradients.kernels_per_tensor + update.kernels_per_tensor,
                                           gradients.bytes_per_parameter + update.bytes_per_parameter},
                                          Phase::optimizer));
    }
    return kernels;
  }
  if (workload.optimizer_kernels == OptimizerKernels::bert_adam ||
      workload.optimizer_kernels == OptimizerKernels::bert_adam_sync) {
    const std::vector<Kernel> step = bert_adam_kernels(workload, precision, accumulation_steps);
    kernels.insert(kernels.end(), step.begin(), step.end());
    return kernels;
  }
  if (workload.optimizer_kernels == OptimizerKernels::bert_fused_adam) {
    const std::vector<Kernel> step = bert_fused_adam_kernels(workload, accumulation_steps);
    kernels.insert(kernels.end(), step.begin(), step.end());
    return kernels;
  }
  if (workload.optimizer_kernels == OptimizerKernels::torch_foreach ||
      workload.optimizer_kernels == OptimizerKernels::torch_for_loop) {
    const std::vector<Kernel> step = torch_optimizer_kernels(workload, precision);
    kernels.insert(kernels.end(), step.begin(), step.end());
    return kernels;
  }
  // Under autocast the optimizer writes no 16-bit copy of the weights: the next forward casts them (weight_casts).
  // Apex's O2 and Megatron-LM copy the fp32 masters into them in a pass of their own, after the update.
  const bool fused_copy = is_mixed_precision(precision) && !workload.autocast_weight_casts &&
                          !copies_master_weights(workload, precision);
  const double optimizer_bytes =
      workload.trainable_parameters() *
      optimizer_bytes_per_parameter(workload.optimizer, fused_copy ? precision : Precision::fp32);
  kernels.push_back({.layer = 0,
                     .phase = Phase::optimizer,
                     .flop = 0.0,
                     .bytes = optimizer_bytes,
                     .tiles = 0.0,
                     .kind = KernelKind::memory,
                     .pass = MemoryPass::generic,
                     .launches = multi_tensor_launches(workload, fused_lists(workload.optimizer))});
  if (copies_master_weights(workload, precision)) {
    kernels.push_back(
        parameter_pass(workload, kMasterWeightCopyBytes, multi_tensor_launches(workload, 2), Phase::optimizer));
  }
  return kernels;
}

std::string_view to_string(KernelClass kernel_class) {
  switch (kernel_class) {
    case KernelClass::gemm: return "gemm";
    case KernelClass::convolution: return "convolution";
    case KernelClass::elementwise: return "elementwise";
    case KernelClass::softmax: return "softmax";
    case KernelClass::layer_norm: return "layer_norm";
    case KernelClass::bias_gradient: return "bias_gradient";
    case KernelClass::other_memory: return "other_memory";
    case KernelClass::optimizer: return "optimizer";
  }
  return "";
}

KernelClass kernel_class(const Kernel& kernel) {
  if (kernel.phase == Phase::optimizer) return KernelClass::optimizer;
  switch (kernel.kind) {
    case KernelKind::gemm: return KernelClass::gemm;
    case KernelKind::convolution: return KernelClass::convolution;
    case KernelKind::memory: break;
  }
  switch (kernel.pass) {
    case MemoryPass::elementwise: return KernelClass::elementwise;
    case MemoryPass::softmax: return KernelClass::softmax;
    case MemoryPass::layer_norm: return KernelClass::layer_norm;
    case MemoryPass::bias_gradient: return KernelClass::bias_gradient;
    case MemoryPass::generic: break;
  }
  return KernelClass::other_memory;
}

KernelTimes time_kernels(const std::vector<Kernel>& kernels, std::size_t layers, const DeviceCompute& device,
                         const ComputeParameters& parameters) {
  StreamTimeline stream(parameters.host_dispatch_s);
  KernelTimes times;
  times.forward_s.assign(layers, 0.0);
  times.forward_gpu_s.assign(layers, 0.0);
  times.forward_bytes.assign(layers, 0.0);
  const bool training = std::any_of(kernels.begin(), kernels.end(),
                                    [](const Kernel& kernel) { return kernel.phase == Phase::optimizer; });
  if (training) {
    times.backward_s.assign(layers, 0.0);
    times.backward_gpu_s.assign(layers, 0.0);
    times.backward_bytes.assign(layers, 0.0);
  }
  double previous_end = 0.0;
  [[maybe_unused]] bool previous_synchronized = false;
  for (const Kernel& kernel : kernels) {
    Kernel launch = kernel;  // one of its launches
    launch.flop /= kernel.launches;
    launch.bytes /= kernel.launches;
    const double launch_s = kernel_time_s(launch, device, parameters);
    const double device_s = kernel.launches * launch_s;
    const bool own_pace = kernel.python_loop && parameters.loop_op_host_s > 0.0;
    stream.set_pace(own_pace ? parameters.loop_op_host_s : parameters.host_dispatch_s);
    double end = 0.0;
    if (kernel.within_previous_call) {
      // Inside a call the host made without waiting (a kernel after a wait would need the wait to cover it).
      assert(kernel.synchronizations == 0 && !previous_synchronized);
      end = stream.run_within_previous_call(launch_s, kernel.launches, parameters.library_launch_host_s);
    } else if (kernel.synchronizations > 0) {
      // Groups as even as can be, the first launches % groups one launch longer; the launches share the kernel's
      // work evenly, so a group's wait is the average one (a large tensor's longer wait is not seen).
      const int groups = std::min(kernel.synchronizations, kernel.launches);
      for (int g = 0; g < groups; ++g) {
        end = stream.run(launch_s, kernel.launches / groups + (g < kernel.launches % groups ? 1 : 0));
        stream.synchronize();
      }
    } else {
      end = stream.run(launch_s, kernel.launches);
    }
    ClassTime& by_class = times.by_class[static_cast<std::size_t>(kernel_class(kernel))];
    by_class.gpu_s += device_s;
    by_class.kernels += kernel.launches;
    // Each layer's time runs from the end of the kernel before its first to the end of its last.
    switch (kernel.phase) {
      case Phase::forward:
        times.forward_s[kernel.layer] += end - previous_end;
        times.forward_gpu_s[kernel.layer] += device_s;
        times.forward_bytes[kernel.layer] += kernel.bytes;
        break;
      case Phase::backward:
        times.backward_s[kernel.layer] += end - previous_end;
        times.backward_gpu_s[kernel.layer] += device_s;
        times.backward_bytes[kernel.layer] += kernel.bytes;
        break;
      case Phase::optimizer:
        times.optimizer_s += end - previous_end;
        times.optimizer_gpu_s += device_s;
        times.optimizer_bytes += kernel.bytes;
        break;
    }
    previous_end = end;
    previous_synchronized = kernel.synchronizations > 0;
  }
  times.kernels = stream.kernels();
  times.gpu_busy_s = stream.busy_s();
  return times;
}

namespace {

// How much faster than its implicit GEMM the fastest algorithm runs a 3 x 3, stride-1 convolution `layer` of
// `batch` samples on `device` (apply_winograd's), by the kernel model with `host_free` constants: the layer's images
// as the layer builder recorded them (GemmShape: a detector head's regions of interest are that many images), its
// channels and padding.
double winograd_speedup(const Layer& layer, int batch, const KernelDevice& device,
                        const KernelModelParameters& host_free) {
  const GemmShape& gemm = layer.gemm;
  assert(gemm.images_per_sample > 0.0 && gemm.input_height >= 1 && gemm.input_width >= 1);
  const KernelShape shape = convolution_gemm({.images = std::max(1.0, batch * gemm.images_per_sample),
                                              .in_channels = std::max(1.0, std::round(gemm.depth / 9.0)),
                                              .out_channels = std::max(1.0, gemm.columns),
                                              .width = static_cast<double>(gemm.input_width),
                                              .height = static_cast<double>(gemm.input_height),
                                              .filter_width = 3.0,
                                              .filter_height = 3.0,
                                              .stride_width = 1.0,
                                              .stride_height = 1.0,
                                              .pad_width = static_cast<double>(gemm.pad_w),
                                              .pad_height = static_cast<double>(gemm.pad_h)});
  const PreparedKernel prepared = prepare_kernel(shape, device);
  const double implicit_gemm_s = predict_kernel(prepared, host_free, ConvolutionAlgorithm::implicit_gemm).time_s;
  const double fastest_s = predict_kernel(prepared, host_free).time_s;
  return fastest_s > 0.0 ? implicit_gemm_s / fastest_s : 1.0;
}

}  // namespace

void apply_winograd(std::vector<Kernel>& kernels, const Workload& workload, int batch, Precision precision,
                    const DeviceCompute& device, const KernelModelParameters* kernel_model) {
  if (precision != Precision::fp32 || device.sm_count < 1 || device.vector_flops <= 0.0) return;
  // The kernel model's device is the job's SMs at their fp32 peak and memory bandwidth, at their datasheet clock and
  // without an L2 (DeviceCompute carries none: Winograd F(4x4)'s transforms all go to DRAM). Both algorithms are
  // timed on the device alone: the measurement's host cost, the same for both, is left out.
  KernelDevice kernel_device;
  kernel_device.peak_flops = device.vector_flops;
  kernel_device.sm_count = device.sm_count;
  kernel_device.memory_bandwidth_Bps = device.memory_bandwidth_Bps;
  KernelModelParameters host_free = kernel_model ? *kernel_model : fitted_kernel_parameters().parameters;
  host_free.of(KernelFamily::convolution).host_s = 0.0;
  host_free.of(KernelFamily::convolution).host_after_launch_s = 0.0;
  std::vector<double> speedup(workload.layers.size(), 0.0);  // per layer, worked out once (0: not yet)
  for (Kernel& kernel : kernels) {
    if (kernel.kind != KernelKind::convolution || kernel.phase == Phase::optimizer) continue;
    const Layer& layer = workload.layers.at(kernel.layer);
    if (!layer.gemm.winograd) continue;
    double& known = speedup[kernel.layer];
    if (known == 0.0) known = winograd_speedup(layer, batch, kernel_device, host_free);
    kernel.winograd_speedup = known;
  }
}

KernelTimes kernel_times(const Workload& workload, int batch, Precision precision, const DeviceCompute& device,
                         const ComputeParameters& parameters, Pass pass, int accumulation_steps) {
  std::vector<Kernel> kernels = iteration_kernels(workload, batch, precision, pass, accumulation_steps);
  apply_winograd(kernels, workload, batch, precision, device);
  return time_kernels(kernels, workload.layers.size(), device, parameters);
}

double alone_step_s(const KernelTimes& times, const ComputeParameters& parameters, int micro_batches) {
  assert(micro_batches >= 1);
  const double kernels_s = micro_batches * (times.total_s() - times.optimizer_s) + times.optimizer_s;
  return std::max(kernels_s, micro_batches * parameters.data_loading_s);
}

double alone_busy_s(const KernelTimes& times, int micro_batches) {
  assert(micro_batches >= 1);
  return micro_batches * (times.gpu_busy_s - times.optimizer_gpu_s) + times.optimizer_gpu_s;
}

double samples_per_s(const KernelTimes& times, int batch, int accumulation_steps) {
  assert(accumulation_steps >= 1);
  // With gradient accumulation, one optimizer step serves accumulation_steps micro-batches.
  const double micro_batch_s = times.total_s() - times.optimizer_s + times.optimizer_s / accumulation_steps;
  return batch / micro_batch_s;
}

}  // namespace vtsim
