#pragma once
// The compute model's parameters per GPU architecture and framework, fitted jointly (Eigen, Levenberg-Marquardt on
// log errors) to published single-device throughput, and the rules that give a job on any GPU its parameters.
//
// Fitted: per architecture, precision path and kernel kind (GEMM, convolution), the efficiency (fraction of peak a full
// wave of tiles reaches); per framework, the host's time to issue one kernel. Not fitted, each with its source in
// compute_fit.cpp: the per-kernel fixed cost on the device, the memory efficiency and the data-loading cost.
// Only single-device rows and microbenchmarks enter the fit: multi-GPU results are what vtsim predicts
// (`vtsim validate` holds them apart).
// It reads the GPU catalog (the published rows name catalog GPUs), so the engine and the network model may not include
// it: what they read of a job's compute is models/compute/resolved_compute.hpp.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/calibration/calibrated_parameters.hpp"
#include "models/catalog/catalog_guard.hpp"  // refused in sim/ and models/network/
#include "models/catalog/gpu_spec.hpp"
#include "models/compute/compute_model.hpp"
#include "models/compute/resolved_compute.hpp"
#include "models/core/param.hpp"
#include "models/scenario/framework.hpp"

namespace vtsim {

/// The arithmetic path a precision takes: 16-bit tensor cores (fp16 and bf16 AMP), TF32 tensor cores, or fp32 on the
/// CUDA cores. Each has its own matmul efficiency per architecture.
enum class PrecisionPath { tensor16, tf32, fp32 };

/// The path of `precision`.
PrecisionPath precision_path(Precision precision);
/// "tensor16", "tf32" or "fp32".
std::string_view to_string(PrecisionPath path);

/// A published single-device throughput: training or inference of one workload on one GPU.
struct ThroughputRow {
  std::string workload_id;  ///< workload_catalog id
  std::string gpu_id;       ///< gpu_catalog id
  Framework framework = Framework::pytorch;
  Precision precision = Precision::fp16;  ///< AMP is fp16
  Pass pass = Pass::training;
  int batch = 1;               ///< samples per forward pass
  int accumulation_steps = 1;  ///< micro-batches per optimizer step; 1 when none
  double samples_per_s = 0;    ///< the published figure (Lambda's BERT SQuAD rows: their logs' steady state)
  std::string source;          ///< where it is published (document, table)
  TensorLayout layout = TensorLayout::nhwc;  ///< the layout its code keeps convolutions' activations in
  /// How its code writes the optimizer step, where that is not the framework's default (use_framework).
  std::optional<OptimizerImplementation> optimizer_implementation = std::nullopt;
  /// The positions per sequence its BERT pre-training code runs the masked-LM head and loss over, where that is not
  /// the catalog workload's (make_bert_large_pretraining; 0: every position).
  std::optional<int> masked_lm_positions = std::nullopt;
  /// Why the row is a check and not fitted: its source's own figures show a step its GPU does not bound, which a
  /// device efficiency fitted to it would carry into every job of that architecture (published_throughput.cpp).
  /// Empty for a fitting row.
  std::string not_fitted = {};
};

/// The workload `row`'s code ran: its catalog workload, with the masked-LM positions its code predicts where they
/// differ (ThroughputRow::masked_lm_positions). REQUIRES: a catalog workload id.
Workload workload_of(const ThroughputRow& row);

/// Every published single-device row the compute model is fitted to (published_throughput.cpp), each with its source.
const std::vector<ThroughputRow>& published_single_device_throughput();
/// The published single-device rows that are checks, not fitted, each with why (ThroughputRow::not_fitted): `vtsim
/// validate` prints their errors under the fit.
const std::vector<ThroughputRow>& published_single_device_checks();

/// What one fitted efficiency applies to.
struct EfficiencyKey {
  std::string architecture;  ///< "Volta", "Ampere", ...
  PrecisionPath path;
  KernelKind kind;  ///< gemm or convolution

  auto operator<=>(const EfficiencyKey&) const = default;
};

/// The fitted parameters.
struct ComputeFit {
  std::map<EfficiencyKey, double> efficiency;   ///< GEMM in (0, 1); convolution in (0, 2.25) (compute_model.hpp)
  std::map<Framework, double> host_dispatch_s;  ///< framework -> s per kernel
  int rows = 0;                                 ///< rows fitted
  double rms_log_error = 0;                     ///< root mean square of ln(predicted / published) over those rows
};

/// Fits `rows` jointly, starting from `start`'s values where it has them; an empty `start` starts from efficiency 0.5
/// and each of 10, 30 and 100 us per kernel, and keeps the best fit.
/// Parameters no row informs are absent from the result. REQUIRES: rows name catalog workloads and GPUs with the
/// rows' precision.
ComputeFit fit_compute(const std::vector<ThroughputRow>& rows, const ComputeFit& start = {});

/// The fit of every published row as committed in models/compute/compute_fit.json, read once per process: what
/// fit_compute gives those rows (`vtsim validate --check` fits them again and fails when the constants differ; `vtsim
/// validate
/// --write-fit models/compute/compute_fit.json` rewrites the file). Committed rather than fitted at start-up, where it
/// took 0.4 s of every `vtsim run` or `check` and of every test process (sweeps, plan and bench fitted once and
/// forked).
const ComputeFit& published_compute_fit();

/// `fit` as models/compute/compute_fit.json keeps it. Seconds, not microseconds, and doubles as nlohmann::json writes
/// them (the shortest text that reads back as the same double), so that the file gives back the fit bit for bit.
nlohmann::json to_json(const ComputeFit& fit);
/// Reads what to_json wrote. Throws InputError naming `file` and the key.
ComputeFit compute_fit_from_json(std::string_view text, const std::string& file);
/// How far a refit may stray from the committed constants, relative: the fit's optimizer stops at a tolerance, and
/// glibc's exp and log differ in their last bits between CPUs.
inline constexpr double kRefitTolerance = 1e-4;
/// Each parameter where `refit` and `committed` differ by more than kRefitTolerance or that only one of them has, one
/// line each ("Ampere fp32 GEMM efficiency: refit 0.61, committed 0.6"); empty when the refit reproduces them.
std::vector<std::string> fit_differences(const ComputeFit& refit, const ComputeFit& committed);

/// Fraction of datasheet bandwidth memory-bound kernels reach, uncalibrated (compute_fit.cpp cites its sources).
double default_memory_efficiency();

/// Host time of one launch a library makes inside a framework's call (cuDNN's layout transposes;
/// ComputeParameters::library_launch_host_s), measured on one H200 host (compute_fit.cpp, kLibraryLaunchS); a job takes
/// it capped at its dispatch of a kernel (a graph node's cost under CUDA Graphs), or a profile's measurement.
double library_launch_host_s();

/// CPU seconds to load one sample (decode, augment, collate) on one core: images and sequences differ.
double data_loading_cpu_s_per_sample(const Workload& workload);

/// What a job on `gpu` in `precision` under `framework` runs at: the fit's values for its architecture and path (an
/// architecture without rows takes the nearest fitted one, and says so), the unfitted defaults, and whatever the
/// calibration profile measured, which replaces them: its large-GEMM efficiency sets GEMM kernels' and scales
/// convolutions' by the same ratio to the fitted GEMM value; its launch cost is every kernel's fixed cost; its memory
/// bandwidth sets memory-bound passes'.
/// The host side of a job: what issues its kernels and prepares its batches.
struct HostSide {
  Framework framework = Framework::pytorch;
  Execution execution = Execution::eager;  ///< eager: the framework's cost per kernel; cuda_graphs: the GPU's per node
  std::optional<double> host_dispatch_s;   ///< stated in the scenario; else from the framework and the execution
  DataLoader data_loader = DataLoader::cpu;  ///< where batches are prepared (JobConfig::data_loader)
  /// CPU seconds to load one sample on one core, stated in the scenario; else data_loading_cpu_s_per_sample() with
  /// the cpu loader, 0 with the gpu loader.
  std::optional<double> data_loading_cpu_s_per_sample;
  /// The gpu loader's rate, images/s per GPU, stated in the scenario; else dali_images_per_s().
  std::optional<double> data_loader_images_per_s;
  int cpu_cores = 24;     ///< cores the job's ranks on one host share (a VM's vCPUs, or its part of the host's)
  std::string cpu_cores_what = "24 vCPUs in the VM";  ///< what those cores are, for the loading line
  bool cpu_cores_uncalibrated = false;                ///< a generic bare-metal host's default count
  int ranks_per_vm = 1;   ///< one core each drives a training loop; the loader workers share the rest
  bool tcp_between_hosts = false;  ///< the ranks' socket threads take cores too (models/compute/vm_cpu.hpp)
  /// In a VM: how much slower the fitted host-side work runs (VirtualizationConfig::vm_cpu_overhead), and whether
  /// the scenario stated it. Values the scenario states (dispatch, loading CPU time) are taken as measured in the VM.
  double vm_cpu_overhead = 0;
  bool vm_cpu_overhead_stated = false;
};

/// REQUIRES: batch >= 1, host.cpu_cores >= 1, host.ranks_per_vm >= 1.
ResolvedCompute resolve_compute(const GpuSpec& gpu, Precision precision, const Workload& workload, int batch,
                                const HostSide& host, const ComputeFit& fit, const CalibratedParameters& calibration);

/// A rank's time to prepare one batch beside the device on `host` (ComputeParameters::data_loading_s as
/// resolve_compute() sets it), without its notes. REQUIRES: as resolve_compute().
double data_loading_s(const GpuSpec& gpu, const Workload& workload, int batch, const HostSide& host);

/// One resolved efficiency with where it came from.
struct EfficiencyProvenance {
  enum class Kind { fitted, derived, transferred, refused };
  double value = 0;
  Kind kind = Kind::fitted;  ///< fitted to rows of the GPU's architecture; derived by the kernel model from the
                             ///< datasheet; transferred from another architecture's fit (an architecture with rows
                             ///< of its own, for a path they lack); or refused (an architecture without any rows)
  std::string note;          ///< one line: what, the value, and its provenance
  /// For a derived value: how steps derived so came out on the architectures with rows, the same for every derived
  /// value of a path (a table prints it once); empty otherwise.
  std::string how_derivations_held = {};
  /// `note` with how_derivations_held after it: the line a run lists.
  std::string full_note() const { return how_derivations_held.empty() ? note : note + "; " + how_derivations_held; }
};

/// The efficiency a job on `gpu` gets for `kind` on `path` under `fit`, by the rule resolve_compute() applies;
/// nullopt when no architecture has rows for the path.
std::optional<EfficiencyProvenance> resolved_efficiency(const GpuSpec& gpu, PrecisionPath path, KernelKind kind,
                                                        const ComputeFit& fit);

/// Predicted samples/s of `row` on a whole GPU with `fit`'s parameters and the unfitted defaults.
double predict_samples_per_s(const ThroughputRow& row, const ComputeFit& fit);

/// One row's error: the fit with every row, and the fit without it (leave-one-out).
struct RowError {
  const ThroughputRow* row = nullptr;
  double fitted_samples_per_s = 0;  ///< predicted by the fit of all rows
  /// Predicted by the fit of all other rows; nullopt when no other row has its framework (nothing can predict it).
  std::optional<double> left_out_samples_per_s;
};

/// Fits once per row without it (starting from `all`, the fit of all rows), and predicts every row both ways.
std::vector<RowError> leave_one_out(const std::vector<ThroughputRow>& rows, const ComputeFit& all);

/// Predicts each architecture's rows as a GPU of an architecture without rows is predicted (Ada, Blackwell): fits once
/// per architecture without its rows (starting from `all`), so that its efficiencies are the kernel model's
/// derivations from its GPUs' datasheets (efficiency_for) and its host dispatch the other rows'. Returns, for each row
/// of `rows` in order, the samples/s so predicted; nullopt where no other architecture's row has its framework, or
/// where the kernel model has no family for the row's path (it would take another architecture's fitted value).
std::vector<std::optional<double>> leave_one_architecture_out(const std::vector<ThroughputRow>& rows,
                                                              const ComputeFit& all);

/// How far steps came out with a path's efficiencies derived: the lowest and the highest of the mean errors
/// (predicted / published - 1) of the architectures with published rows on that path, each left out in turn
/// (leave_one_architecture_out over published_single_device_throughput(); `vtsim validate`, "architecture left out").
/// Recorded, not computed at run time: a derived efficiency's note quotes them, and a test recomputes them.
struct DerivedStepErrors {
  double lowest_mean = 0;
  double highest_mean = 0;
};
const std::map<PrecisionPath, DerivedStepErrors>& recorded_derived_step_errors();

}  // namespace vtsim
