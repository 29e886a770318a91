// The joint fit of the compute model's parameters to published single-device throughput, and their resolution for one
// job. docs/compute-model.md describes both; the fitted rows live in published_throughput.cpp.

#include "models/compute/compute_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <set>
#include <stdexcept>

#include "models/catalog/gpu_catalog.hpp"
#include "models/compute/committed_json.hpp"
#include "models/compute/data_loading.hpp"
#include "models/compute/kernel_parameters.hpp"
#include "models/compute/vm_cpu.hpp"
#include "models/core/json_reader.hpp"
#include "models/core/least_squares.hpp"
#include "models/core/number_text.hpp"
#include "models/workload/workload_catalog.hpp"

namespace vtsim {
namespace {

// Fraction of datasheet bandwidth a memory-bound kernel reaches. UNCALIBRATED: one constant for every GPU and kernel.
// Published memory-copy measurements put it at 0.75-0.87: ~1,355 of 1,555 GB/s on an A100 40GB (0.87, [S]
// PTsolvers/gpu-workshop-JuliaCon23 issue #7), ~1,500 of 2,039 GB/s on an A100 80GB (0.74, [S] NVIDIA/cuda-samples
// issue #311). Real training kernels (normalisation, elementwise, optimizer) reach less than a copy; 0.8 is the middle.
constexpr double kMemoryEfficiency = 0.8;

// Device time of a kernel beyond its work: launch latency, ramp-up and tail. UNCALIBRATED default: ~334,000 empty
// asynchronous kernel calls per second at best, i.e. ~3 us each ([S] M. Boyer, University of Virginia, "CUDA Kernel
// Overhead", empty-kernel measurements on four GPUs). `vtsim calibrate probe gpu` measures it (gpu.kernel_launch_us).
constexpr double kKernelFixedS = 3e-6;

// A kernel's cost under CUDA Graphs: the iteration is captured once and replayed with one launch, and the GPU's front
// end submits each node. Measured by the vtsim developers on one H200 host (data/measured/h200-sxm-2026-12-04-host,
// calibrate/gpu_harness/host_dispatch.py): whole training steps captured as one graph and replayed, (replay wall time
// - GPU busy time) / nodes = 0.750, 0.360 and 0.557 us over 1,121, 2,801 and 960 nodes (two GPTs and a ResNet-50;
// the mean, 0.556 us, here). An earlier source agrees: ~0.58 us per node for chains of 8-117 empty kernels on one
// RTX 5070 Ti under WSL2 ([S] ahrefs/ocannl issue #488, 2026-07-30). UNCALIBRATED on any other host: one figure for
// every GPU; the fixed cost per replay is not counted (0.01% of a 100 ms step). A profile's host.graph_us_per_node
// replaces it.
constexpr double kCudaGraphNodeS = 0.556e-6;

// Host time of one kernel launch a library makes inside a framework's call (Kernel::within_previous_call: cuDNN's
// layout transposes around a tensor-core convolution on NCHW tensors): the CUDA launch alone, the framework's dispatch
// being the call's. Measured by the vtsim developers on one H200 host (a 16-vCPU microVM, PyTorch 2.11, CUDA 13):
// the median time of the runtime or driver call that launched each kernel (cudaLaunchKernel, cuLaunchKernel, their
// Ex forms and cudaLaunchCooperativeKernel) over the 16,798 kernels of the 14 training steps profiled in
// data/measured/h200-sxm-2026-12-04/traces and h200-sxm-2026-12-04-bert (torch.profiler; quartiles 7.1 and 9.6 us). The
// profiler's callbacks lengthen each call, so it is an upper bound there. UNCALIBRATED on any other host (the published
// rows' DGX hosts included); a profile's host.launch_call_us replaces it.
constexpr double kLibraryLaunchS = 8.19e-6;

// Host time of one operation of an optimizer's Python loop over parameter tensors (torch.optim's for-loop
// implementation, DeepLearningExamples' BertAdam: Kernel::python_loop). Measured by the vtsim developers on one H200
// host (data/measured/h200-sxm-2026-12-04-optimizer, calibrate/gpu_harness/optimizer_steps.py, PyTorch 2.11):
// torch.optim AdamW's for-loop step, host-bound, took 59.45 ms of host time for 3,184 launches over BERT-large's
// tensors and 42.37 ms for 2,336 over a 1.3B GPT's (18.67 and 18.14 us; the pooled 18.45 us here; SGD with
// momentum's simpler loop 14.1 us). It is the loop's Python and PyTorch's dispatch of small in-place operations,
// less than a model's kernels cost the same host (33.5 us per launch pooled over forward and backward,
// h200-sxm-2026-12-04-host). UNCALIBRATED on any other host or PyTorch version.
constexpr double kLoopOpHostS = 18.45e-6;

// CPU seconds to prepare one sample on one core. UNCALIBRATED, no published per-core figure was found: images 5 ms
// (JPEG decode, random resized crop, flip, normalise: ~200 ImageNet images/s per core), pre-tokenised sequences 20 us
// (read token ids, mask).
constexpr double kImageLoadingCpuS = 5e-3;
constexpr double kSequenceLoadingCpuS = 20e-6;

// The largest achievable 16-bit matmul efficiency published per architecture, to compare a profile's measured
// large-GEMM efficiency with: "Maximum Achievable Matmul FLOPS", a brute-force search over shapes of torch.matmul in
// BF16 ([S] S. Bekman, ml-engineering, compute/accelerator/README.md, comparison table): A100 SXM 271.2 of 312 TFLOP/s
// (torch 2.6.0+cu126), H100 SXM 794.5 of 989 (torch 2.7.0+cu126; "H200 is the same"). No other architecture or path
// has a published figure of the kind.
std::optional<double> published_large_gemm_efficiency(const std::string& architecture, PrecisionPath path) {
  if (path != PrecisionPath::tensor16) return std::nullopt;
  if (architecture == "Ampere") return 271.2 / 312.0;
  if (architecture == "Hopper") return 794.5 / 989.0;
  return std::nullopt;
}

// Starting point of the fit: efficiency 0.5, 10 us per kernel on the host. A fit without a start of its own also
// starts from 30 and 100 us and keeps the best: a row is bound by the host or by the device, whichever is longer, so
// from one side of that kink a framework's dispatch has no slope and the fit can stop short of it (synthetic rows
// made with 12 us were fitted at 7.1 us from 10 us, exactly from 30 us).
constexpr double kInitialEfficiency = 0.5;
constexpr double kInitialDispatchS = 10e-6;
constexpr std::array<double, 3> kDispatchStartsS = {kInitialDispatchS, 30e-6, 100e-6};

double logistic(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double logit(double p) { return std::log(p / (1.0 - p)); }

const char* architecture_of(const std::string& gpu_id) {
  const GpuSpec* gpu = find_gpu(gpu_id);
  assert(gpu != nullptr);
  return gpu->architecture.c_str();
}

// Whether any published row the compute model is fitted to ran on `architecture`.
bool architecture_has_rows(const std::string& architecture) {
  const std::vector<ThroughputRow>& rows = published_single_device_throughput();
  return std::any_of(rows.begin(), rows.end(),
                     [&](const ThroughputRow& row) { return architecture_of(row.gpu_id) == architecture; });
}

// The kernel-model family that times `kind` on `path` on `architecture`, where its constants were fitted to measured
// kernels: fp32 GEMMs and convolutions on the CUDA cores, 16-bit GEMMs and convolutions on tensor cores
// (models/compute/kernel_parameters.json); TF32 ones on the same tensor-core families from Ampere on, whose
// constants no TF32 kernel is fitted to (docs/compute-model.md, "TF32 on the tensor cores"). A GPU without tensor cores
// (Pascal) multiplies 16-bit values on its CUDA cores with fp32 arithmetic, as frameworks call cuBLAS: the CUDA-core
// families, fitted to fp32 kernels, at the fp32 rate (whole_gpu's peak there).
std::optional<KernelFamily> kernel_family_for(const std::string& architecture, PrecisionPath path, KernelKind kind) {
  const KernelFamily cuda_cores = kind == KernelKind::gemm ? KernelFamily::gemm : KernelFamily::convolution;
  if (path == PrecisionPath::fp32) return cuda_cores;
  if (path == PrecisionPath::tensor16) {
    return has_tensor_cores(architecture) ? tensor_core_family(cuda_cores) : cuda_cores;
  }
  if (path == PrecisionPath::tf32 && has_tf32_tensor_cores(architecture)) return tensor_core_family(cuda_cores);
  return std::nullopt;
}

// The extra reduction length per output tile of `architecture`'s products of `kind` on `path` (ComputeParameters::
// gemm_depth_overhead, convolution_depth_overhead): the kernel model's constant (k_overhead) for the family that
// times them, fitted to measured kernels; 0 where no family does (the TF32 path of GPUs before Ampere, which have no
// TF32 peak either).
double depth_overhead(const std::string& architecture, PrecisionPath path, KernelKind kind) {
  const std::optional<KernelFamily> family = kernel_family_for(architecture, path, kind);
  return family ? fitted_kernel_parameters().parameters.of(*family).k_overhead : 0.0;
}

// Upper bound of each kind's efficiency (compute_model.hpp, ComputeParameters).
double efficiency_cap(KernelKind kind) { return kind == KernelKind::convolution ? 2.25 : 1.0; }

// Upper bound of a fitted efficiency: its kind's, and for a 16-bit GEMM the largest matmul efficiency published for
// its architecture (published_large_gemm_efficiency): the best product a brute-force search over shapes found, so no
// product of the model's (whose depth overhead takes 1-4% more off a large one) runs faster. A fit that would go
// above it is asking its GEMMs to carry time the model leaves out elsewhere in the rows.
double efficiency_cap(const EfficiencyKey& key) {
  const std::optional<double> best =
      key.kind == KernelKind::gemm ? published_large_gemm_efficiency(key.architecture, key.path) : std::nullopt;
  return best ? std::min(*best, efficiency_cap(key.kind)) : efficiency_cap(key.kind);
}

// The memory layers of the kernel families whose achieved bandwidth was measured (element-wise, softmax, layer norm:
// NeuSight's kernels, models/compute/kernel_parameters.json) run at those families' fitted memory efficiencies (the
// kernel model's constants), times the share of its datasheet bandwidth the GPU's long passes sustained where the
// kernel data measured it (1 elsewhere). Their L2 speedup for passes whose bytes fit in L2 is left out: a training
// step's activations mostly do not.
const std::vector<std::pair<MemoryPass, KernelFamily>>& measured_passes() {
  static const std::vector<std::pair<MemoryPass, KernelFamily>> passes = {
      {MemoryPass::elementwise, KernelFamily::elementwise},
      {MemoryPass::softmax, KernelFamily::softmax},
      {MemoryPass::layer_norm, KernelFamily::layer_norm},
      {MemoryPass::bias_gradient, KernelFamily::layer_norm}};
  return passes;
}

// Per memory pass, as ComputeParameters holds them (0 for a pass without its own: the general memory efficiency).
using PassEfficiencies = decltype(ComputeParameters::pass_memory_efficiency);

// Those efficiencies on `gpu`.
PassEfficiencies measured_pass_efficiencies(const GpuSpec& gpu) {
  const FittedKernelParameters& fitted = fitted_kernel_parameters();
  const KernelDevice device = kernel_device(gpu, fitted.clocks);
  PassEfficiencies efficiencies{};
  for (const auto& [pass, family] : measured_passes()) {
    efficiencies.at(static_cast<std::size_t>(pass)) =
        fitted.parameters.of(family).memory_efficiency * device.memory_share(family);
  }
  return efficiencies;
}

// A row ready to predict: its kernels and its memory passes' efficiencies worked out once (they do not depend on the
// parameters being fitted).
struct PreparedRow {
  const ThroughputRow* row;
  std::vector<Kernel> kernels;
  std::size_t layers;
  DeviceCompute device;
  std::string architecture;
  std::map<KernelKind, double> flop_by_kind;  ///< GEMM and convolution flop of one iteration
  PassEfficiencies pass_memory_efficiency;  ///< measured_pass_efficiencies of its GPU
  double gemm_depth_overhead;               ///< of its GPU's architecture and its precision's path
  double convolution_depth_overhead;        ///< the same for its convolutions
};

PreparedRow prepare(const ThroughputRow& row) {
  Workload workload = workload_of(row);
  const GpuSpec* gpu = find_gpu(row.gpu_id);
  assert(gpu && gpu->peak_flops(row.precision));
  use_framework(workload, row.framework);
  workload.layout = row.layout;
  if (row.optimizer_implementation) {
    const OptimizerKernelsChoice choice =
        optimizer_kernels_for(*row.optimizer_implementation, row.framework, workload.optimizer);
    assert(choice.refused.empty());
    workload.optimizer_kernels = choice.kernels;
  }
  PreparedRow prepared{&row,
                       iteration_kernels(workload, row.batch, row.precision, row.pass, row.accumulation_steps),
                       workload.layers.size(),
                       whole_gpu(*gpu, row.precision, gpu->memory_bytes),
                       gpu->architecture,
                       {},
                       measured_pass_efficiencies(*gpu),
                       depth_overhead(gpu->architecture, precision_path(row.precision), KernelKind::gemm),
                       depth_overhead(gpu->architecture, precision_path(row.precision), KernelKind::convolution)};
  apply_winograd(prepared.kernels, workload, row.batch, row.precision, prepared.device);
  for (const Kernel& kernel : prepared.kernels) {
    if (kernel.kind != KernelKind::memory) prepared.flop_by_kind[kernel.kind] += kernel.flop;
  }
  return prepared;
}

// The kinds a row informs: those with at least a tenth of its GEMM and convolution flop (ResNet-50's classifier, 0.1%
// of its flop, says nothing about GEMMs).
std::vector<KernelKind> informed_kinds(const PreparedRow& row) {
  double total = 0.0;
  for (const auto& [kind, flop] : row.flop_by_kind) total += flop;
  std::vector<KernelKind> kinds;
  for (const auto& [kind, flop] : row.flop_by_kind) {
    if (flop >= 0.1 * total) kinds.push_back(kind);
  }
  return kinds;
}

double predict(const PreparedRow& prepared, double gemm_efficiency, double convolution_efficiency,
               double host_dispatch_s) {
  ComputeParameters parameters;
  parameters.gemm_efficiency = gemm_efficiency;
  parameters.convolution_efficiency = convolution_efficiency;
  parameters.memory_efficiency = kMemoryEfficiency;
  parameters.pass_memory_efficiency = prepared.pass_memory_efficiency;
  parameters.gemm_depth_overhead = prepared.gemm_depth_overhead;
  parameters.convolution_depth_overhead = prepared.convolution_depth_overhead;
  parameters.kernel_fixed_s = kKernelFixedS;
  parameters.host_dispatch_s = host_dispatch_s;
  parameters.loop_op_host_s = kLoopOpHostS;
  parameters.library_launch_host_s = std::min(kLibraryLaunchS, host_dispatch_s);  // as resolve_compute() takes it
  // The published single-device figures were not bound by data loading (DALI, synthetic or cached data): none here.
  const ThroughputRow& row = *prepared.row;
  const KernelTimes times = time_kernels(prepared.kernels, prepared.layers, prepared.device, parameters);
  return samples_per_s(times, row.batch, row.accumulation_steps);
}

// Architectures in the order neighbours are tried for one without fitted rows: the closest generation first.
const std::vector<std::string>& architectures_by_generation() {
  // Ada (2022) after Ampere: the same tensor-core generation's successor, released with Hopper.
  static const std::vector<std::string> order = {"Pascal", "Volta", "Turing", "Ampere", "Ada", "Hopper", "Blackwell"};
  return order;
}

// A fitted efficiency and the key it was fitted for; or one the kernel model derives (kernel_derived).
struct FoundEfficiency {
  double value;
  EfficiencyKey fitted_for;
  bool kernel_derived = false;
  double sustained_clock = 1.0;  ///< kernel_derived: the GPU's measured sustained clock in the kernel data, else 1
};

// The intensity (flop per loaded value, tm x tn / (tm + tn)) of the 128 x 128 tile this model's waves count.
constexpr double kModelTileIntensity = 128.0 * 128.0 / (128.0 + 128.0);

// What the kernel model says a full wave of 128 x 128 tiles of `kind` on `path` reaches, on any GPU: its fitted peak
// efficiency at that tile's intensity (a convolution's: its implicit GEMM's, which cuDNN can run for every shape; an
// fp32 3 x 3, stride-1 one runs faster than that by the Winograd speedup apply_winograd gives each kernel). The GPU's
// own numbers enter through its datasheet peak and SMs, and, where the kernel data measured it (a card of the data held
// below its boost clock), its sustained clock.
std::optional<FoundEfficiency> kernel_derived_efficiency(const std::string& gpu_id, const std::string& architecture,
                                                         PrecisionPath path, KernelKind kind) {
  const std::optional<KernelFamily> family = kernel_family_for(architecture, path, kind);
  if (!family) return std::nullopt;
  const FittedKernelParameters& fitted = fitted_kernel_parameters();
  const KernelFamilyParameters& p = fitted.parameters.of(*family);
  const GpuSpec* gpu = find_gpu(gpu_id);
  assert(gpu != nullptr);
  const double clock = kernel_device(*gpu, fitted.clocks).clock(*family);
  const EfficiencyKey key{architecture, path, kind};
  const double value =
      std::min(efficiency_cap(key), clock * p.peak_efficiency * std::min(1.0, kModelTileIntensity / p.tile_knee));
  return FoundEfficiency{value, key, true, clock};
}

// The efficiency of `kind` on `path` for `architecture`: fitted to its own rows where it has them; else derived by the
// kernel model where that has constants for the path; else the nearest generation's fitted efficiency (the newer on
// a tie: its libraries are closer to what the GPU runs today), and without any, the other kind's, within `kind`'s
// cap.
std::optional<FoundEfficiency> efficiency_for(const ComputeFit& fit, const std::string& gpu_id,
                                              const std::string& architecture, PrecisionPath path, KernelKind kind) {
  const auto own = fit.efficiency.find(EfficiencyKey{architecture, path, kind});
  if (own != fit.efficiency.end()) {
    return FoundEfficiency{std::min(own->second, efficiency_cap(own->first)), own->first};
  }
  if (auto derived = kernel_derived_efficiency(gpu_id, architecture, path, kind)) return derived;
  const auto& order = architectures_by_generation();
  const auto position = std::find(order.begin(), order.end(), architecture) - order.begin();
  for (KernelKind candidate : {kind, kind == KernelKind::gemm ? KernelKind::convolution : KernelKind::gemm}) {
    std::optional<FoundEfficiency> best;
    std::ptrdiff_t best_distance = 0;
    for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(order.size()); ++i) {
      const EfficiencyKey key{order[static_cast<std::size_t>(i)], path, candidate};
      const auto found = fit.efficiency.find(key);
      if (found == fit.efficiency.end()) continue;
      const std::ptrdiff_t distance = 2 * std::abs(i - position) - (i > position ? 1 : 0);
      if (!best || distance < best_distance) {
        best_distance = distance;
        best = FoundEfficiency{std::min(found->second, efficiency_cap(EfficiencyKey{architecture, path, kind})), key};
      }
    }
    if (best) return best;
  }
  return std::nullopt;
}

// A row's GEMM and convolution efficiencies under `fit`, by the rule a job's prediction uses.
std::pair<double, double> fitted_efficiencies(const PreparedRow& row, const ComputeFit& fit) {
  const PrecisionPath path = precision_path(row.row->precision);
  const auto gemm = efficiency_for(fit, row.row->gpu_id, row.architecture, path, KernelKind::gemm);
  const auto convolution = efficiency_for(fit, row.row->gpu_id, row.architecture, path, KernelKind::convolution);
  assert(gemm && convolution);
  return {gemm->value, convolution->value};
}

// The fit's unknowns, in unconstrained coordinates: a scaled logit of each efficiency, the log of each dispatch time.
class FitProblem {
 public:
  explicit FitProblem(const std::vector<ThroughputRow>& rows) {
    for (const ThroughputRow& row : rows) rows_.push_back(prepare(row));
    for (const PreparedRow& row : rows_) {
      for (KernelKind kind : informed_kinds(row)) {
        const EfficiencyKey key{row.architecture, precision_path(row.row->precision), kind};
        if (!efficiency_index_.count(key)) efficiency_index_[key] = unknowns();
      }
    }
    for (const PreparedRow& row : rows_) {
      if (!dispatch_index_.count(row.row->framework)) dispatch_index_[row.row->framework] = unknowns();
    }
  }

  int unknowns() const { return static_cast<int>(efficiency_index_.size() + dispatch_index_.size()); }
  int rows() const { return static_cast<int>(rows_.size()); }

  Eigen::VectorXd initial(const ComputeFit& start) const {
    Eigen::VectorXd x(unknowns());
    for (const auto& [key, i] : efficiency_index_) {
      const auto given = start.efficiency.find(key);
      const double efficiency = given != start.efficiency.end() ? given->second : kInitialEfficiency;
      x[i] = logit(std::clamp(efficiency / efficiency_cap(key), 1e-6, 1.0 - 1e-6));
    }
    for (const auto& [framework, i] : dispatch_index_) {
      const auto given = start.host_dispatch_s.find(framework);
      x[i] = std::log(given != start.host_dispatch_s.end() ? given->second : kInitialDispatchS);
    }
    return x;
  }

  /// ln(predicted / published) per row. A kind a row uses but does not inform takes its value by the rule a job's
  /// prediction uses (efficiency_for), so the fit's residuals are the predictions' errors.
  Eigen::VectorXd residuals(const Eigen::VectorXd& x) const {
    const ComputeFit current = parameters(x);
    Eigen::VectorXd r(rows());
    for (int i = 0; i < rows(); ++i) {
      const PreparedRow& row = rows_[static_cast<std::size_t>(i)];
      const auto [gemm, convolution] = fitted_efficiencies(row, current);
      r[i] = std::log(predict(row, gemm, convolution, current.host_dispatch_s.at(row.row->framework)) /
                      row.row->samples_per_s);
    }
    return r;
  }

  /// The parameters at `x`, without the error summary.
  ComputeFit parameters(const Eigen::VectorXd& x) const {
    ComputeFit fit;
    for (const auto& [key, i] : efficiency_index_) fit.efficiency[key] = efficiency_cap(key) * logistic(x[i]);
    for (const auto& [framework, i] : dispatch_index_) fit.host_dispatch_s[framework] = std::exp(x[i]);
    fit.rows = rows();
    return fit;
  }

  ComputeFit result(const Eigen::VectorXd& x) const {
    ComputeFit fit = parameters(x);
    fit.rms_log_error = rows() > 0 ? std::sqrt(residuals(x).squaredNorm() / rows()) : 0.0;
    return fit;
  }

 private:
  std::vector<PreparedRow> rows_;
  std::map<EfficiencyKey, int> efficiency_index_;
  std::map<Framework, int> dispatch_index_;
};

std::string describe(const EfficiencyKey& key) {
  return key.architecture + " " + std::string(to_string(key.path)) + " " +
         (key.kind == KernelKind::gemm ? "GEMM" : "convolution");
}

// The note on one found efficiency: what it is, its value and where it came from.
EfficiencyProvenance provenance_of(const FoundEfficiency& found, const EfficiencyKey& wanted, const GpuSpec& gpu) {
  std::string gpus;
  std::set<std::string> row_gpus;
  for (const ThroughputRow& row : published_single_device_throughput()) {
    if (architecture_of(row.gpu_id) == found.fitted_for.architecture &&
        precision_path(row.precision) == found.fitted_for.path && row_gpus.insert(row.gpu_id).second) {
      if (!gpus.empty()) gpus += ", ";
      gpus += row.gpu_id;
    }
  }
  EfficiencyProvenance result;
  result.value = found.value;
  const std::string note = describe(wanted) + " efficiency " + format_number(found.value);
  if (found.kernel_derived) {
    result.kind = EfficiencyProvenance::Kind::derived;
    const KernelFamily family = *kernel_family_for(wanted.architecture, wanted.path, wanted.kind);
    result.note = note + ": derived by the kernel model (no " + describe(wanted) +
                  " rows): a 128x128 tile's efficiency from constants fitted to measured kernels on " +
                  fitted_kernel_parameters().gpu_list(family) + ", at " + gpu.id + "'s datasheet peak";
    if (wanted.path == PrecisionPath::tf32) {
      result.note += " for TF32 (the 16-bit kernels' constants: the same tensor cores; no TF32 kernel is fitted)";
    } else if (wanted.path == PrecisionPath::tensor16 && !has_tensor_cores(wanted.architecture)) {
      result.note +=
          " for fp32 arithmetic on its CUDA cores (no tensor cores: frameworks multiply 16-bit values in "
          "fp32 there)";
    }
    if (found.sustained_clock == 1.0) {
      result.note += " (its boost clock, taken to hold: not measured)";
    } else {
      result.note += " x " + format_number(found.sustained_clock) +
                     ", the sustained clock measured from its long products in the kernel data";
    }
    // The range measured on the path whose kernels this runs as: a 16-bit product without tensor cores is fp32
    // arithmetic on the CUDA cores, derived from the fp32 families.
    const bool cuda_cores = family == KernelFamily::gemm || family == KernelFamily::convolution;
    const PrecisionPath measured_path = cuda_cores ? PrecisionPath::fp32 : wanted.path;
    const auto recorded = recorded_derived_step_errors().find(measured_path);
    if (recorded != recorded_derived_step_errors().end()) {
      result.how_derivations_held =
          "derived so, the steps of the architectures with " + std::string(to_string(measured_path)) +
          " rows came out with per-architecture mean errors of " +
          format_number(100 * recorded->second.lowest_mean, "%+.0f") + "% to " +
          format_number(100 * recorded->second.highest_mean, "%+.0f") + "% against the published (+: too fast" +
          (cuda_cores ? "; each architecture's cards among those the fp32 kernels were measured on" : "") +
          "; `vtsim validate`, architecture left out)";
    }
  } else if (found.fitted_for != wanted && !architecture_has_rows(wanted.architecture)) {
    // An architecture without published rows gets what the kernel model derives from its datasheet and nothing
    // else: a path the kernel model has no family for would carry another architecture's fitted value to it, which
    // the model does not do (no catalogued GPU has such a path since TF32 and Pascal's fp16 are derived).
    result.kind = EfficiencyProvenance::Kind::refused;
    result.note = describe(wanted) + ": no rows of " + wanted.architecture +
                  " and no derivation from a datasheet (the kernel model has none for this path); vtsim does not "
                  "carry another architecture's fitted efficiency to it (docs/compute-model.md, \"What is fitted, to "
                  "what\")";
  } else if (found.fitted_for != wanted) {
    result.kind = EfficiencyProvenance::Kind::transferred;
    result.note = note + ": transferred (no " + describe(wanted) + " rows; fitted for " + describe(found.fitted_for) +
                  " on " + gpus + ")";
  } else if (!row_gpus.count(gpu.id)) {
    result.note = note + ": fitted to its architecture's rows (" + gpus + "), none of " + gpu.id;
  } else {
    result.note = note + ": fitted to published single-device rows (" + gpus + ")";
  }
  return result;
}

// Says where the depth overhead of `kind` on `path` comes from, where it has one: measured for this architecture when
// the family's data hold one of its GPUs; else a constant of the kernel model carried to it, which is not a
// measurement of it.
void add_depth_overhead_note(const GpuSpec& gpu, PrecisionPath path, KernelKind kind, ResolvedCompute& resolved) {
  const double overhead = depth_overhead(gpu.architecture, path, kind);
  if (overhead <= 0.0) return;
  const KernelFamily family = *kernel_family_for(gpu.architecture, path, kind);
  const auto& fitted_gpus = fitted_kernel_parameters().gpus.at(static_cast<std::size_t>(family));
  const bool measured = std::any_of(fitted_gpus.begin(), fitted_gpus.end(), [&](const std::string& id) {
    const GpuSpec* fitted = find_gpu(id);
    return fitted != nullptr && fitted->architecture == gpu.architecture;
  });
  const std::string note = std::string(kind == KernelKind::gemm ? "GEMM" : "convolution") + " depth overhead " +
                           format_number(overhead) +
                           " of K per output tile (a product of depth K at K / (K + it) of the efficiency): the "
                           "kernel model's " + std::string(to_string(family)) + " constant, fitted to measured "
                           "kernels on " + fitted_kernel_parameters().gpu_list(family);
  if (measured) {
    resolved.add(Source::fitted, note);
  } else {
    resolved.add(Source::uncalibrated, note + ", none of them " + gpu.architecture + " (not measured on it)");
  }
}

// Adds the note to the list it belongs to: fitted values are sources; derived and transferred ones are not
// measurements of this GPU, so they are uncalibrated; a refused one is what a job planner refuses the job with.
void add_efficiency_note(const FoundEfficiency& found, const EfficiencyKey& wanted, const GpuSpec& gpu,
                         ResolvedCompute& resolved) {
  EfficiencyProvenance provenance = provenance_of(found, wanted, gpu);
  if (provenance.kind == EfficiencyProvenance::Kind::refused) {
    resolved.refused.push_back(provenance.full_note());
  } else {
    resolved.add(provenance.kind == EfficiencyProvenance::Kind::fitted ? Source::fitted : Source::uncalibrated,
                 provenance.full_note());
  }
}

}  // namespace

PrecisionPath precision_path(Precision precision) {
  switch (precision) {
    case Precision::fp16:
    case Precision::bf16:
      return PrecisionPath::tensor16;
    case Precision::tf32:
      return PrecisionPath::tf32;
    case Precision::fp32:
      return PrecisionPath::fp32;
  }
  return PrecisionPath::fp32;
}

std::string_view to_string(PrecisionPath path) {
  switch (path) {
    case PrecisionPath::tensor16:
      return "tensor16";
    case PrecisionPath::tf32:
      return "tf32";
    case PrecisionPath::fp32:
      return "fp32";
  }
  return "?";
}

double default_memory_efficiency() { return kMemoryEfficiency; }

double library_launch_host_s() { return kLibraryLaunchS; }

Workload workload_of(const ThroughputRow& row) {
  std::optional<Workload> workload = make_workload(row.workload_id);
  assert(workload);
  if (!row.masked_lm_positions) return *workload;
  if (!row.workload_id.starts_with("bert-large-pretrain")) {
    throw std::logic_error("masked_lm_positions on a row of " + row.workload_id + ", not BERT-large pre-training");
  }
  return make_bert_large_pretraining(workload->transformer.sequence, *row.masked_lm_positions);
}

double data_loading_cpu_s_per_sample(const Workload& workload) {
  return workload.sample_unit == "image" ? kImageLoadingCpuS : kSequenceLoadingCpuS;
}

ComputeFit fit_compute(const std::vector<ThroughputRow>& rows, const ComputeFit& start) {
  const FitProblem problem(rows);
  const auto residuals = [&](const Eigen::VectorXd& x) { return problem.residuals(x); };
  if (!start.efficiency.empty() || !start.host_dispatch_s.empty()) {
    return problem.result(levenberg_marquardt(residuals, problem.initial(start)));
  }
  std::optional<Eigen::VectorXd> best;
  double best_cost = 0.0;
  for (double dispatch_s : kDispatchStartsS) {
    ComputeFit from;
    for (const auto& [name, framework] : framework_names()) from.host_dispatch_s[framework] = dispatch_s;
    const Eigen::VectorXd x = levenberg_marquardt(residuals, problem.initial(from));
    const double cost = residuals(x).squaredNorm();
    if (!best || cost < best_cost) {
      best = x;
      best_cost = cost;
    }
  }
  return problem.result(*best);
}

const ComputeFit& published_compute_fit() {
  static const ComputeFit fit = compute_fit_from_json(compute_fit_json(), "models/compute/compute_fit.json");
  return fit;
}

nlohmann::json to_json(const ComputeFit& fit) {
  nlohmann::json efficiencies = nlohmann::json::array();
  for (const auto& [key, value] : fit.efficiency) {
    efficiencies.push_back({{"architecture", key.architecture},
                            {"path", std::string(to_string(key.path))},
                            {"kind", key.kind == KernelKind::gemm ? "gemm" : "convolution"},
                            {"efficiency", value}});
  }
  nlohmann::json dispatch = nlohmann::json::object();
  for (const auto& [framework, seconds] : fit.host_dispatch_s) dispatch[std::string(to_string(framework))] = seconds;
  return {{"data", "models/compute/published_throughput.cpp: every published single-device row"},
          {"rows", fit.rows},
          {"rms_log_error", fit.rms_log_error},
          {"host_dispatch_s", dispatch},
          {"efficiency", efficiencies}};
}

ComputeFit compute_fit_from_json(std::string_view text, const std::string& file) {
  static const std::vector<std::pair<std::string, PrecisionPath>> kPaths = {
      {"tensor16", PrecisionPath::tensor16}, {"tf32", PrecisionPath::tf32}, {"fp32", PrecisionPath::fp32}};
  static const std::vector<std::pair<std::string, KernelKind>> kKinds = {{"gemm", KernelKind::gemm},
                                                                         {"convolution", KernelKind::convolution}};
  const nlohmann::json json = parse_json_text(text, file);
  JsonObject root = JsonValue(json, file, "").as_object();
  ComputeFit fit;
  static_cast<void>(root.require("data").as_string());
  fit.rows = static_cast<int>(root.require("rows").as_int(1));
  fit.rms_log_error = root.require("rms_log_error").as_number(0.0);
  JsonObject dispatch = root.require("host_dispatch_s").as_object();
  for (const auto& [name, framework] : framework_names()) {
    if (const auto seconds = dispatch.get(name)) fit.host_dispatch_s[framework] = seconds->as_positive_number();
  }
  dispatch.finish();
  for (const JsonValue& value : root.require("efficiency").as_array()) {
    JsonObject entry = value.as_object();
    EfficiencyKey key;
    const JsonValue architecture = entry.require("architecture");
    key.architecture = architecture.as_string();
    const std::vector<GpuSpec>& gpus = gpu_catalog();
    if (std::none_of(gpus.begin(), gpus.end(),
                     [&](const GpuSpec& gpu) { return gpu.architecture == key.architecture; })) {
      architecture.fail("expected the architecture of a catalog GPU, got " + describe_json(architecture.json()));
    }
    key.path = entry.require("path").as_enum<PrecisionPath>(kPaths);
    key.kind = entry.require("kind").as_enum<KernelKind>(kKinds);
    const double efficiency = entry.require("efficiency").as_positive_number(efficiency_cap(key));
    if (!fit.efficiency.emplace(key, efficiency).second) {
      entry.value().fail("a second efficiency for " + describe(key));
    }
    entry.finish();
  }
  root.finish();
  return fit;
}

double predict_samples_per_s(const ThroughputRow& row, const ComputeFit& fit) {
  const PreparedRow prepared = prepare(row);
  const auto [gemm, convolution] = fitted_efficiencies(prepared, fit);
  const auto dispatch = fit.host_dispatch_s.find(row.framework);
  assert(dispatch != fit.host_dispatch_s.end());
  return predict(prepared, gemm, convolution, dispatch->second);
}

namespace {

// Appends a line to `lines` for each key of `refit` and `committed` whose values differ beyond kRefitTolerance or that
// only one of them has; `name` says what a key is.
template <typename Key, typename NameOf>
void add_differences(const std::map<Key, double>& refit, const std::map<Key, double>& committed, NameOf name,
                     std::vector<std::string>& lines) {
  for (const auto& [key, value] : refit) {
    const auto other = committed.find(key);
    if (other == committed.end()) {
      lines.push_back(name(key) + ": refit " + format_number(value, "%.9g") + ", not committed");
    } else if (std::abs(value - other->second) > kRefitTolerance * std::abs(other->second)) {
      lines.push_back(name(key) + ": refit " + format_number(value, "%.9g") + ", committed " +
                      format_number(other->second, "%.9g"));
    }
  }
  for (const auto& [key, value] : committed) {
    if (refit.count(key) == 0) {
      lines.push_back(name(key) + ": committed " + format_number(value, "%.9g") + ", not refitted");
    }
  }
}

}  // namespace

std::vector<std::string> fit_differences(const ComputeFit& refit, const ComputeFit& committed) {
  std::vector<std::string> lines;
  add_differences(refit.efficiency, committed.efficiency,
                  [](const EfficiencyKey& key) { return describe(key) + " efficiency"; }, lines);
  add_differences(refit.host_dispatch_s, committed.host_dispatch_s,
                  [](Framework framework) { return std::string(to_string(framework)) + " host dispatch s"; }, lines);
  if (refit.rows != committed.rows) {
    lines.push_back("rows: refit " + std::to_string(refit.rows) + ", committed " + std::to_string(committed.rows));
  }
  if (std::abs(refit.rms_log_error - committed.rms_log_error) > kRefitTolerance * committed.rms_log_error) {
    lines.push_back("rms log error: refit " + format_number(refit.rms_log_error, "%.9g") + ", committed " +
                    format_number(committed.rms_log_error, "%.9g"));
  }
  return lines;
}

std::vector<RowError> leave_one_out(const std::vector<ThroughputRow>& rows, const ComputeFit& all) {
  std::vector<RowError> errors;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::vector<ThroughputRow> others = rows;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
    const ComputeFit without = fit_compute(others, all);
    RowError error;
    error.row = &rows[i];
    error.fitted_samples_per_s = predict_samples_per_s(rows[i], all);
    // Without the row, its architecture and path may have no rows left (it borrows, as a job would) and its framework
    // none at all (then nothing can predict it).
    const PreparedRow prepared = prepare(rows[i]);
    const PrecisionPath path = precision_path(rows[i].precision);
    const bool predictable =
        without.host_dispatch_s.count(rows[i].framework) > 0 &&
        efficiency_for(without, prepared.row->gpu_id, prepared.architecture, path, KernelKind::gemm).has_value();
    if (predictable) error.left_out_samples_per_s = predict_samples_per_s(rows[i], without);
    errors.push_back(error);
  }
  return errors;
}

const std::map<PrecisionPath, DerivedStepErrors>& recorded_derived_step_errors() {
  // `vtsim validate`, 2026-12-07 (session 46, with the CUDA-core GEMMs' tiles in cuBLAS's orientation; session 45 set
  // the A100's TF32 inference rows at batches 4 and 8 apart as checks), with the checks apart
  // (published_single_device_checks): fp32 Volta -4.0%, Turing +0.8%, Pascal +39.9%;
  // tensor16 Volta +16.7%, Turing +28.8%, Ampere +14.2%, Hopper +20.2%; tf32 Ampere +14.3%, Hopper +3.9%
  // (docs/compute-model.md, "An architecture left out").
  static const std::map<PrecisionPath, DerivedStepErrors> recorded = {
      {PrecisionPath::fp32, {-0.0405, 0.3995}},
      {PrecisionPath::tensor16, {0.1418, 0.2884}},
      {PrecisionPath::tf32, {0.0392, 0.1431}},
  };
  return recorded;
}

std::vector<std::optional<double>> leave_one_architecture_out(const std::vector<ThroughputRow>& rows,
                                                              const ComputeFit& all) {
  std::vector<std::optional<double>> predicted(rows.size());
  std::vector<std::string> architecture_of_row;
  for (const ThroughputRow& row : rows) architecture_of_row.push_back(architecture_of(row.gpu_id));
  for (const std::string& architecture :
       std::set<std::string>(architecture_of_row.begin(), architecture_of_row.end())) {
    std::vector<ThroughputRow> others;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (architecture_of_row[i] != architecture) others.push_back(rows[i]);
    }
    const ComputeFit without = others.empty() ? ComputeFit{} : fit_compute(others, all);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (architecture_of_row[i] != architecture) continue;
      if (without.host_dispatch_s.count(rows[i].framework) == 0) continue;  // nothing else runs its framework
      // Only what the kernel model derives: a path it has no family for would take another architecture's fitted
      // value (efficiency_for), which is not what this measures.
      const PrecisionPath path = precision_path(rows[i].precision);
      const auto derived = [&](KernelKind kind) {
        const auto found = efficiency_for(without, rows[i].gpu_id, architecture, path, kind);
        return found && found->kernel_derived;
      };
      if (derived(KernelKind::gemm) && derived(KernelKind::convolution)) {
        predicted[i] = predict_samples_per_s(rows[i], without);
      }
    }
  }
  return predicted;
}

std::optional<EfficiencyProvenance> resolved_efficiency(const GpuSpec& gpu, PrecisionPath path, KernelKind kind,
                                                        const ComputeFit& fit) {
  const auto found = efficiency_for(fit, gpu.id, gpu.architecture, path, kind);
  if (!found) return std::nullopt;
  return provenance_of(*found, EfficiencyKey{gpu.architecture, path, kind}, gpu);
}

namespace {

// A rank's time to prepare one batch beside the device (ComputeParameters::data_loading_s), with where its figures
// came from. One core per rank drives its training loop; with TCP the socket threads take theirs; the ranks' loader
// workers share the rest (models/compute/vm_cpu.hpp). The gpu loader runs DALI's pipeline at its rate on the GPU's
// decoder beside the kernels, and whatever CPU time per sample the scenario states on the loader cores.
void resolve_data_loading(const GpuSpec& gpu, const Workload& workload, int batch, const HostSide& host,
                          double vm_factor, ResolvedCompute& resolved) {
  double& batch_s = resolved.parameters.data_loading_s;
  if (host.data_loader == DataLoader::synthetic) {
    batch_s = 0;
    resolved.add(Source::scenario, "data loading: none (synthetic data)");
    return;
  }
  if (host.cpu_cores_uncalibrated) resolved.add(Source::uncalibrated, "CPU cores: " + host.cpu_cores_what);
  const double loader_cores =
      vm_cpu_budget(host.cpu_cores, host.ranks_per_vm, host.tcp_between_hosts).loader_cores / host.ranks_per_vm;
  const std::string cores = format_number(loader_cores) + " loader cores per rank (" + host.cpu_cores_what + ", " +
                            std::to_string(host.ranks_per_vm) + " ranks" +
                            (host.tcp_between_hosts ? ", TCP socket threads" : "") + ")";
  if (host.data_loader == DataLoader::gpu) {
    const std::optional<PublishedRate> rate =
        host.data_loader_images_per_s ? PublishedRate{*host.data_loader_images_per_s, "given in the scenario"}
                                      : dali_images_per_s(gpu);
    assert(rate && "the loader refuses a gpu loader without a rate");
    const double cpu_s_per_sample = host.data_loading_cpu_s_per_sample.value_or(0.0);
    batch_s = std::max(batch / rate->images_per_s, batch * cpu_s_per_sample / loader_cores);
    resolved.add(
        host.data_loader_images_per_s ? Source::scenario : Source::published,
        "data loading on the GPU (DALI): " + format_number(rate->images_per_s) + " images/s per GPU: " + rate->source);
    const std::string cpu_part = "DALI's CPU part " + format_number(cpu_s_per_sample * 1e3) + " ms per image, " + cores;
    if (host.data_loading_cpu_s_per_sample) {
      resolved.add(Source::scenario, cpu_part + ": CPU time given in the scenario");
    } else {
      resolved.add(Source::uncalibrated, cpu_part +
                                             ": uncalibrated default (file reads and the hybrid decoder's Huffman "
                                             "stage not costed)");
    }
    return;
  }
  const double cpu_s_per_sample =
      host.data_loading_cpu_s_per_sample.value_or(data_loading_cpu_s_per_sample(workload) * vm_factor);
  batch_s = batch * cpu_s_per_sample / loader_cores;
  const std::string loading =
      "data loading " + format_number(cpu_s_per_sample * 1e3) + " ms CPU per " + workload.sample_unit + ", " + cores;
  if (host.data_loading_cpu_s_per_sample) {
    resolved.add(Source::scenario, loading + ": CPU time given in the scenario");
  } else {
    resolved.add(Source::uncalibrated, loading + ": uncalibrated default");
  }
}

}  // namespace

double data_loading_s(const GpuSpec& gpu, const Workload& workload, int batch, const HostSide& host) {
  assert(batch >= 1 && host.cpu_cores >= 1 && host.ranks_per_vm >= 1);
  ResolvedCompute resolved;
  resolve_data_loading(gpu, workload, batch, host, 1 + host.vm_cpu_overhead, resolved);
  return resolved.parameters.data_loading_s;
}

ResolvedCompute resolve_compute(const GpuSpec& gpu, Precision precision, const Workload& workload, int batch,
                                const HostSide& host, const ComputeFit& fit, const CalibratedParameters& calibration) {
  assert(batch >= 1 && host.cpu_cores >= 1 && host.ranks_per_vm >= 1);
  const Framework framework = host.framework;
  ResolvedCompute resolved;
  ComputeParameters& parameters = resolved.parameters;
  const PrecisionPath path = precision_path(precision);

  const EfficiencyKey gemm_key{gpu.architecture, path, KernelKind::gemm};
  const EfficiencyKey convolution_key{gpu.architecture, path, KernelKind::convolution};
  const auto gemm = efficiency_for(fit, gpu.id, gpu.architecture, path, KernelKind::gemm);
  const auto convolution = efficiency_for(fit, gpu.id, gpu.architecture, path, KernelKind::convolution);
  assert(gemm && convolution && "the published rows cover every precision path on some architecture");
  parameters.gemm_efficiency = gemm->value;
  parameters.convolution_efficiency = convolution->value;

  // Only the kinds the workload runs: a transformer's convolution efficiency is no part of its prediction.
  const auto runs = [&](KernelKind kind) {
    return std::any_of(workload.layers.begin(), workload.layers.end(),
                       [kind](const Layer& layer) { return layer.kind == kind; });
  };
  if (!workload.leaves_out.empty()) {
    resolved.add(Source::uncalibrated, workload.name + ": its layer list leaves out " + workload.leaves_out);
  }
  if (runs(KernelKind::gemm)) add_efficiency_note(*gemm, gemm_key, gpu, resolved);
  parameters.gemm_depth_overhead = depth_overhead(gpu.architecture, path, KernelKind::gemm);
  if (runs(KernelKind::gemm)) add_depth_overhead_note(gpu, path, KernelKind::gemm, resolved);
  if (runs(KernelKind::convolution)) add_efficiency_note(*convolution, convolution_key, gpu, resolved);
  parameters.convolution_depth_overhead = depth_overhead(gpu.architecture, path, KernelKind::convolution);
  if (runs(KernelKind::convolution)) add_depth_overhead_note(gpu, path, KernelKind::convolution, resolved);
  if (precision == Precision::fp32 && std::any_of(workload.layers.begin(), workload.layers.end(), [](const Layer& l) {
        return l.kind == KernelKind::convolution && l.gemm.winograd;
      })) {
    const FittedKernelParameters& fitted = fitted_kernel_parameters();
    const std::vector<std::string>& measured_on = fitted.gpus.at(static_cast<std::size_t>(KernelFamily::convolution));
    const bool measured_here = std::find(measured_on.begin(), measured_on.end(), gpu.id) != measured_on.end();
    // Uncalibrated even on a GPU of the data: the device is taken at its datasheet clock.
    resolved.add(Source::uncalibrated,
                 "3 x 3, stride-1 convolutions faster than their implicit GEMM by cuDNN's fastest algorithm "
                 "(Winograd F(2x2, 3x3) or F(4x4, 3x3)) as the kernel model times each layer's shape on this "
                 "device at its datasheet clock: constants fitted to measured forward convolutions on " +
                     fitted.gpu_list(KernelFamily::convolution) +
                     (measured_here ? std::string() : ", none of them " + gpu.id) +
                     "; their gradients as long as the forward pass, as DeepBench's took on a P100, V100 and T4 "
                     "(docs/compute-model.md, \"Winograd on the CUDA cores\")");
  }
  if (precision == Precision::fp32 && std::any_of(workload.layers.begin(), workload.layers.end(), [](const Layer& l) {
        return l.kind == KernelKind::convolution && l.gemm.stride > 0;
      })) {
    // DeepBench's fp32 convolutions ran on a P100 (Pascal, cuDNN 6.0), a V100 (Volta) and a T4 (Turing, both cuDNN
    // 7.6). Listed for inference too, whose kernels have no gradients (the resolution does not know the pass).
    const bool measured_architecture =
        gpu.architecture == "Pascal" || gpu.architecture == "Volta" || gpu.architecture == "Turing";
    const auto cost = [](ConvolutionShape shape, ConvolutionGradient gradient) {
      return format_number(cuda_core_gradient_cost(shape, gradient));
    };
    resolved.add(measured_architecture ? Source::fitted : Source::uncalibrated,
                 "convolution gradients (training) on the CUDA cores at cuDNN's time for them over the forward "
                 "pass's, the median over DeepBench's fp32 convolutions on a P100, V100 and T4: input / weight "
                 "gradient 1 x 1 " +
                     cost(ConvolutionShape::pointwise, ConvolutionGradient::input) + " / " +
                     cost(ConvolutionShape::pointwise, ConvolutionGradient::weight) + ", strided " +
                     cost(ConvolutionShape::strided, ConvolutionGradient::input) + " / " +
                     cost(ConvolutionShape::strided, ConvolutionGradient::weight) + ", 3 x 3 " +
                     cost(ConvolutionShape::three_by_three, ConvolutionGradient::input) + " / " +
                     cost(ConvolutionShape::three_by_three, ConvolutionGradient::weight) +
                     (measured_architecture ? std::string()
                                            : "; none measured on " + gpu.architecture + ", taken to hold there") +
                     " (docs/compute-model.md, \"Convolution gradients on the CUDA cores\")");
  }
  if (runs(KernelKind::convolution) && convolves_on_tensor_cores(precision)) {
    resolved.add(workload.layout_stated ? Source::scenario : Source::published,
                 "memory format " + std::string(to_string(workload.layout)) +
                     (transposes_layout_around_convolutions(workload, precision)
                          ? ": cuDNN's transposes around each tensor-core convolution counted (docs/compute-model.md, "
                            "\"Memory layout\")"
                          : ": tensor-core convolutions without transposes"));
  }

  // A profile's large-GEMM efficiency says how this GPU's GEMMs compare with the best published for its architecture;
  // the fitted efficiencies (which also carry what the model leaves out) move by that ratio, above the fit's cap
  // (efficiency_cap) where this GPU measured better than the published best: the measurement is its own. Where the GEMM
  // efficiency is the kernel model's derivation instead, the efficiency of one large product from the datasheet, the
  // measurement is that same quantity on the GPU itself and replaces it. Convolutions are taken to move with GEMMs
  // (cuDNN's implicit-GEMM kernels share cuBLAS's pipelines).
  const auto measured = calibration.gemm_flop_efficiency.find(precision);
  if (measured != calibration.gemm_flop_efficiency.end()) {
    const std::optional<double> reference = gemm->kernel_derived
                                                ? std::optional<double>(gemm->value)
                                                : published_large_gemm_efficiency(gpu.architecture, path);
    if (reference) {
      const double ratio = measured->second.value / *reference;
      parameters.gemm_efficiency = std::min(1.0, parameters.gemm_efficiency * ratio);
      parameters.convolution_efficiency =
          std::min(efficiency_cap(KernelKind::convolution), parameters.convolution_efficiency * ratio);
      resolved.add(Source::measured,
                   "GEMM and convolution efficiencies x " + format_number(ratio) + ": measured large-GEMM efficiency " +
                       format_number(measured->second.value) +
                       (gemm->kernel_derived ? " in place of the kernel model's derived " : " against the published ") +
                       format_number(*reference) + " for " + gpu.architecture + " (" + measured->second.provenance +
                       ")");
    } else {
      resolved.add(Source::uncalibrated, "the profile's large-GEMM efficiency " +
                                             format_number(measured->second.value) +
                                             " is not used: no published large-GEMM figure for " + gpu.architecture +
                                             " " + std::string(to_string(path)) + " to compare it with");
    }
  }

  // In a VM the fitted host-side work runs slower (HostSide::vm_cpu_overhead); values the scenario states do not.
  const double vm_factor = 1 + host.vm_cpu_overhead;
  const auto dispatch = fit.host_dispatch_s.find(framework);
  // A profile's host measurement applies to the framework it measured. It was taken on the host it describes (in a
  // VM when that host is one), so the VM's overhead is not added to it.
  const CalibratedDispatch* measured_host =
      calibration.host_dispatch && calibration.host_dispatch->framework == framework ? &*calibration.host_dispatch
                                                                                     : nullptr;
  Source dispatch_source = Source::fitted;  // where the host's dispatch per kernel came from
  if (host.execution == Execution::cuda_graphs) {
    // A replayed graph's kernels are submitted by the GPU's front end, not the host: what is left is the gap between
    // nodes. The host's one launch per replay (and per-replay fixed cost) is not counted.
    if (measured_host && measured_host->graph_node_s) {
      parameters.host_dispatch_s = measured_host->graph_node_s->value;
      dispatch_source = Source::measured;
      resolved.add(Source::measured,
                   "host dispatch " + format_number(parameters.host_dispatch_s * 1e6) +
                       " us per kernel under CUDA Graphs: " + measured_host->graph_node_s->provenance);
    } else {
      parameters.host_dispatch_s = kCudaGraphNodeS;
      dispatch_source = Source::uncalibrated;
      resolved.add(Source::uncalibrated,
                   "host dispatch " + format_number(parameters.host_dispatch_s * 1e6) +
                       " us per kernel under CUDA Graphs: a replayed graph's cost per node, measured "
                       "on one H200 host (data/measured/h200-sxm-2026-12-04-host), not on this one "
                       "(uncalibrated; docs/compute-model.md)");
    }
  } else if (host.host_dispatch_s) {
    parameters.host_dispatch_s = *host.host_dispatch_s;
    dispatch_source = Source::scenario;
    resolved.add(Source::scenario, "host dispatch " + format_number(parameters.host_dispatch_s * 1e6) +
                                       " us per kernel: given in the scenario");
  } else if (measured_host) {
    parameters.host_dispatch_s = measured_host->eager_s.value;
    dispatch_source = Source::measured;
    resolved.add(Source::measured, "host dispatch " + format_number(parameters.host_dispatch_s * 1e6) +
                                       " us per kernel: " + measured_host->eager_s.provenance);
  } else if (dispatch != fit.host_dispatch_s.end()) {
    parameters.host_dispatch_s = dispatch->second * vm_factor;
    dispatch_source = Source::fitted;
    resolved.add(Source::fitted, "host dispatch " + format_number(parameters.host_dispatch_s * 1e6) +
                                     " us per kernel (" + std::string(to_string(framework)) +
                                     "): fitted to published single-device rows" +
                                     (vm_factor > 1 ? ", with the VM's CPU overhead" : ""));
  } else {
    double sum = 0.0;
    for (const auto& entry : fit.host_dispatch_s) sum += entry.second;
    parameters.host_dispatch_s =
        vm_factor * sum / static_cast<double>(std::max<std::size_t>(1, fit.host_dispatch_s.size()));
    dispatch_source = Source::uncalibrated;
    resolved.add(Source::uncalibrated, "host dispatch " + format_number(parameters.host_dispatch_s * 1e6) +
                                           " us per kernel: " + std::string(to_string(framework)) +
                                           " has no published rows, the mean of the fitted frameworks' (uncalibrated)");
  }

  // A library's own launches inside a framework's call (cuDNN's transposes) cost the host the CUDA launch alone, and
  // no more than the framework's whole dispatch of a kernel, which includes a launch: in a replayed graph each is a
  // node of it, at the graph's cost per node. The launch was measured in a VM, so a VM's CPU overhead is not added (as
  // for the optimizer's loop). The note starts "host dispatch": a traced job's host time is its trace's, and
  // job_compute_plan.cpp drops such lines.
  if (runs(KernelKind::convolution) && transposes_layout_around_convolutions(workload, precision)) {
    const std::string what = "host dispatch of cuDNN's own launches (its layout transposes) ";
    // The CUDA launch is the host's whichever framework the profile measured it under.
    const std::optional<CalibratedValue> measured_launch =
        calibration.host_dispatch ? calibration.host_dispatch->launch_call_s : std::nullopt;
    const double launch_s = measured_launch ? measured_launch->value : kLibraryLaunchS;
    parameters.library_launch_host_s = std::min(launch_s, parameters.host_dispatch_s);
    if (parameters.library_launch_host_s < launch_s) {
      resolved.add(dispatch_source, what + format_number(parameters.library_launch_host_s * 1e6) + " us each: " +
                                        (host.execution == Execution::cuda_graphs
                                             ? "nodes of the replayed graph, at its cost per node above"
                                             : "a kernel's host dispatch above, which includes the launch"));
    } else if (measured_launch) {
      resolved.add(Source::measured, what + format_number(launch_s * 1e6) +
                                         " us each, the CUDA launch alone: " + measured_launch->provenance);
    } else {
      resolved.add(Source::uncalibrated,
                   what + format_number(launch_s * 1e6) +
                       " us each, the CUDA launch alone: measured on one H200 host under torch.profiler "
                       "(data/measured/h200-sxm-2026-12-04/traces, h200-sxm-2026-12-04-bert); uncalibrated on this "
                       "one (docs/compute-model.md, \"Memory layout\")");
    }
  }

  parameters.memory_efficiency = kMemoryEfficiency;
  if (calibration.memory_bandwidth_Bps) {
    parameters.memory_efficiency = std::min(1.0, calibration.memory_bandwidth_Bps->value / gpu.memory_bandwidth_Bps);
    resolved.add(Source::measured, "memory efficiency " + format_number(parameters.memory_efficiency) +
                                       " (memory-bound kernels): " + calibration.memory_bandwidth_Bps->provenance);
  } else {
    resolved.add(Source::uncalibrated,
                 "memory efficiency " + format_number(kMemoryEfficiency) +
                     ": uncalibrated default (published copy bandwidths reach 0.74-0.87 of datasheet)" +
                     " for memory-bound kernels other than the measured passes below");
    parameters.pass_memory_efficiency = measured_pass_efficiencies(gpu);
    const FittedKernelParameters& fitted = fitted_kernel_parameters();
    const KernelDevice device = kernel_device(gpu, fitted.clocks);
    for (const auto& [pass, family] : measured_passes()) {
      if (pass == MemoryPass::bias_gradient) continue;  // said below, where the workload has any
      const std::string gpus = fitted.gpu_list(family);
      const std::vector<std::string>& measured_on = fitted.gpus.at(static_cast<std::size_t>(family));
      const bool measured_here = std::find(measured_on.begin(), measured_on.end(), gpu.id) != measured_on.end();
      const std::string note = std::string(to_string(family)) + " passes at " +
                               format_number(parameters.memory_efficiency_of(pass)) +
                               " of the memory bandwidth: the kernel model's, fitted to measured kernels on " + gpus;
      const double share = device.memory_share(family);
      if (measured_here) {
        resolved.add(Source::fitted,
                     note + (share != 1.0 ? ", at the share of the best card's bandwidth its long passes "
                                            "sustained there (" +
                                                format_number(share) + ")"
                                          : std::string()));
      } else {
        resolved.add(Source::uncalibrated, note + " (derived: none measured on " + gpu.id + ")");
      }
    }
  }
  if (std::any_of(workload.layers.begin(), workload.layers.end(), [](const Layer& l) { return l.bias_tensors > 0; })) {
    resolved.add(Source::uncalibrated, "bias gradients (sums of the output gradient over its rows) at " +
                                           format_number(parameters.memory_efficiency_of(MemoryPass::bias_gradient)) +
                                           " of the memory bandwidth: the layer norm family's, taken for a reduction; "
                                           "no column reduction was measured "
                                           "(on the H200 BERT-large's took 1.7x what this gives)");
  }
  if (steps_in_a_python_loop(workload.optimizer_kernels) && host.execution == Execution::eager) {
    // The same on every host, a VM's included: it was measured in one (a 16-vCPU microVM).
    parameters.loop_op_host_s = kLoopOpHostS;
    resolved.add(Source::uncalibrated,
                 "optimizer loop " + format_number(kLoopOpHostS * 1e6) +
                     " us of host time per operation (a Python loop over parameter tensors): torch.optim AdamW's "
                     "for-loop step measured on one H200 host with PyTorch 2.11 "
                     "(data/measured/h200-sxm-2026-12-04-optimizer); uncalibrated on other hosts and versions "
                     "(docs/compute-model.md)");
  }
  parameters.kernel_fixed_s = kKernelFixedS;
  if (calibration.kernel_launch_s) {
    parameters.kernel_fixed_s = calibration.kernel_launch_s->value;
    resolved.add(Source::measured, "kernel fixed cost " + format_number(parameters.kernel_fixed_s * 1e6) +
                                       " us (every kernel): " + calibration.kernel_launch_s->provenance);
  } else {
    resolved.add(Source::uncalibrated, "kernel fixed cost " + format_number(kKernelFixedS * 1e6) +
                                           " us: uncalibrated default (empty-kernel launch rate, U. Virginia)");
  }

  if (host.vm_cpu_overhead > 0) {
    const std::string overhead = "VM CPU overhead " + format_number(host.vm_cpu_overhead * 100) +
                                 "% on the fitted host dispatch and the default loading time";
    if (host.vm_cpu_overhead_stated) {
      resolved.add(Source::scenario, overhead + ": given in the scenario");
    } else {
      resolved.add(Source::uncalibrated, overhead +
                                             ": uncalibrated default (published VM results: within 0-6% of bare "
                                             "metal, VMware MLPerf 2021, Dell vGPU white paper)");
    }
  }
  resolve_data_loading(gpu, workload, batch, host, vm_factor, resolved);
  return resolved;
}

}  // namespace vtsim
