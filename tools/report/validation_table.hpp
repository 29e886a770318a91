#pragma once
// The validation table (scenarios/validation/table.json): published measurements the model was not fitted to, each
// a scenario with overrides and the measured figure, and the mean error recorded in the repository that `vtsim
// validate --check` holds the model to. scenarios/validation/README.md documents the format.

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vtsim::tools {

/// One published measurement expressed as a scenario.
struct ValidationRow {
  std::string name;                   ///< what was measured, e.g. "ResNet-50 8x V100 16GB AMP"
  std::string scenario_file;          ///< resolved against the table's folder
  std::vector<std::string> overrides; ///< PATH=VALUE, as --set takes them
  double measured_samples_per_s = 0;  ///< the published throughput of the whole job
  std::string source;                 ///< document and table it is copied from
  /// Why the row's own source makes its figure doubtful (a run that fell short of its configuration's others), printed
  /// under its table; the row counts in every figure all the same. Empty when there is no such evidence.
  std::string doubt = {};
};

/// Measured kernels of GPUs the kernel model was not fitted to, and the record --check holds its errors to.
struct HeldOutKernels {
  std::string description;
  std::vector<std::string> data;  ///< files or folders, resolved against the table's folder
  double device_bound_s = 0;      ///< rows measured at least this long are the ones the record covers
  /// Per group of the held-out report ("gemm", "tensor_gemm, aligned", ...): the mean |error| over its device-bound
  /// rows that --check holds it to.
  std::map<std::string, double> recorded_mean_abs_error;
  std::string record_note;  ///< why that record is what it is
};

/// The whole table.
struct ValidationTable {
  std::string file;
  std::string description;
  double recorded_mean_abs_error = 0;  ///< the figure --check holds the validation rows' mean |error| to
  double recorded_leave_one_out_mean_abs_error = 0;  ///< the same for the fitting rows' leave-one-out mean |error|
  /// The same for every published single-device row out of sample: the fitting rows left out and the checks.
  double recorded_out_of_sample_mean_abs_error = 0;
  std::string record_note;             ///< why the record is what it is (raise it only with a reason)
  /// Measured kernels (files or folders, resolved against the table's folder) the kernel model is fitted to and
  /// checked on; empty when the table has none.
  std::vector<std::string> kernel_data;
  /// Per kernel family (models/compute/kernel_model.hpp's names): the leave-one-GPU-out mean |error| --check holds it
  /// to.
  std::map<std::string, double> recorded_kernel_left_gpu_out_mean_abs_error;
  std::string kernel_record_note;  ///< why that record is what it is
  /// Measured convolutions with gradient times (DeepBench's fp32 files, resolved against the table's folder) that the
  /// model's costs of convolution gradients on the CUDA cores are measured from; empty when the table has none.
  std::vector<std::string> convolution_gradient_data;
  std::optional<HeldOutKernels> held_out_kernels;  ///< absent when the table has none
  std::vector<ValidationRow> rows;
  /// Published large-model training runs (tensor, pipeline, data parallelism over hosts; issue 28), reported apart
  /// from `rows`; empty when the table has none.
  std::vector<ValidationRow> large_model_rows;
  double recorded_large_model_mean_abs_error = 0;  ///< with large_model_rows: the mean |error| --check holds them to
  std::string large_model_record_note;             ///< why that record is what it is
  /// Single-GPU training steps measured for vtsim on a GPU the end-to-end fit has no rows of (data/measured/),
  /// predicted and reported apart; empty when the table has none.
  std::vector<ValidationRow> single_gpu_rows;
  double recorded_single_gpu_mean_abs_error = 0;  ///< with single_gpu_rows: the mean |error| --check holds them to
  std::string single_gpu_record_note;             ///< why that record is what it is
};

/// Loads and checks a table strictly: unknown keys, missing fields and bad values are InputErrors naming the file and
/// the JSON path; each row's scenario must load with its overrides.
ValidationTable load_validation_table(const std::string& file);

}  // namespace vtsim::tools
