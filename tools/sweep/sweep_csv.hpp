#pragma once
// The columns of a sweep's results.csv: one row per point.
//
//   point, id, <swept paths>, <derived paths>, <figures>, error
//
// With one job per point, the figures are the job's, unprefixed: job, workload, device, ranks, batch_per_gpu,
// step_time_mean_s, step_time_p50_s, step_time_p99_s, samples_per_s, single_gpu_samples_per_s, scaling_efficiency,
// compute_s, interference_s, exposed_communication_s, <other breakdown entries>_s, allreduce_bytes_per_step,
// allreduce_calls_per_step, memory_total_gib, memory_capacity_gib. When any point has several jobs (tenants), the
// figures are `jobs`, `total_samples_per_s`, `jain_fairness`, then the same per-job columns prefixed job0., job1., ...
// up to the most jobs any point has (empty where a point has fewer). `jain_fairness` is the result's fairness.jain
// (each tenant's throughput shared over alone) when it has one, else Jain's index of the jobs' scaling efficiencies
// (throughput over the same job's ideal alone). When any point time-slices a GPU, `gpu_busy_fraction` (the mean over
// its time-sliced GPUs), `context_switches` and `context_switch_time_s` (their sums) come before `error`. A failed
// point has empty figures and its error.

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vtsim::tools {

/// What the figures of a results.csv hold, decided from all its records.
class SweepCsvLayout {
 public:
  /// A layout for the parameter `columns` (swept then derived paths).
  explicit SweepCsvLayout(std::vector<std::string> columns);

  /// Widens the layout for `record` (its number of jobs, its breakdown entries). Call for every record first.
  void add(const nlohmann::json& record);
  /// The header line's fields.
  std::vector<std::string> header() const;
  /// The fields of `record`'s row.
  std::vector<std::string> row(const nlohmann::json& record) const;

 private:
  std::vector<std::string> columns_;
  std::size_t max_jobs_ = 1;
  std::vector<std::string> extra_breakdown_;  // breakdown_s entries beyond compute, interference, exposed communication
  bool time_sliced_ = false;                  // some point time-slices a GPU: its busy fraction and switches
};

/// The text of a CSV cell for a JSON value: strings bare, numbers and booleans as JSON writes them, null empty,
/// arrays and objects as JSON text.
std::string csv_cell(const nlohmann::json& value);

}  // namespace vtsim::tools
