#include "tools/sweep/sweep_csv.hpp"

#include <algorithm>

#include "models/core/fairness.hpp"

namespace vtsim::tools {
namespace {

// The per-job figures: a column name and where its value lies in the job's result JSON.
struct JobFigure {
  const char* column;
  std::vector<const char*> pointer;
};

const std::vector<JobFigure>& leading_job_figures() {
  static const std::vector<JobFigure> figures = {
      {"job", {"name"}},
      {"workload", {"workload"}},
      {"device", {"device"}},
      {"ranks", {"ranks"}},
      {"batch_per_gpu", {"batch_per_gpu"}},
      {"step_time_mean_s", {"step_time_s", "mean"}},
      {"step_time_p50_s", {"step_time_s", "p50"}},
      {"step_time_p99_s", {"step_time_s", "p99"}},
      {"samples_per_s", {"samples_per_s"}},
      {"single_gpu_samples_per_s", {"single_gpu", "samples_per_s"}},
      {"scaling_efficiency", {"scaling_efficiency"}},
      {"compute_s", {"breakdown_s", "compute"}},
      {"interference_s", {"breakdown_s", "of_which_interference"}},
      {"straggler_wait_s", {"breakdown_s", "straggler_wait"}},
      {"exposed_communication_s", {"breakdown_s", "exposed_communication"}},
  };
  return figures;
}

const std::vector<JobFigure>& trailing_job_figures() {
  static const std::vector<JobFigure> figures = {
      {"allreduce_bytes_per_step", {"allreduce", "bytes_per_step"}},
      {"allreduce_calls_per_step", {"allreduce", "calls_per_step"}},
      {"memory_total_gib", {"memory_per_gpu", "total_gib"}},
      {"memory_capacity_gib", {"memory_per_gpu", "device_capacity_gib"}},
      {"time_to_train_s", {"operations", "time_to_train_s"}},
      {"time_to_train_without_events_s", {"operations", "time_to_train_without_events_s"}},
      // Jobs with tensor, pipeline or sharded parallelism (empty for the others).
      {"parallelism", {"parallelism", "strategy"}},
      {"model_tflops_per_gpu", {"parallelism", "model_tflops_per_gpu"}},
      {"tensor_parallel_s", {"parallelism", "communication_s", "tensor_parallel"}},
      {"pipeline_wait_s", {"parallelism", "communication_s", "pipeline_wait"}},
      {"data_parallel_wait_s", {"parallelism", "communication_s", "data_parallel_wait"}},
      // Points run under several seeds (simulation.seeds > 1; empty for one run): the spread over the runs.
      {"seed_runs", {"across_seeds", "runs"}},
      {"seeds_samples_per_s_mean", {"across_seeds", "samples_per_s", "mean"}},
      {"seeds_samples_per_s_min", {"across_seeds", "samples_per_s", "min"}},
      {"seeds_samples_per_s_max", {"across_seeds", "samples_per_s", "max"}},
      {"seeds_scaling_efficiency_mean", {"across_seeds", "scaling_efficiency", "mean"}},
      {"seeds_scaling_efficiency_min", {"across_seeds", "scaling_efficiency", "min"}},
      {"seeds_scaling_efficiency_max", {"across_seeds", "scaling_efficiency", "max"}},
  };
  return figures;
}

bool is_leading_breakdown(const std::string& key) {
  return key == "compute" || key == "of_which_interference" || key == "straggler_wait" ||
         key == "exposed_communication";
}

nlohmann::json lookup(const nlohmann::json& json, const std::vector<const char*>& pointer) {
  const nlohmann::json* node = &json;
  for (const char* key : pointer) {
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
  }
  return *node;
}

const nlohmann::json& time_sliced_gpus_of(const nlohmann::json& record) {
  static const nlohmann::json kNone = nlohmann::json::array();
  if (!record.contains("result") || !record["result"].contains("time_sliced_gpus")) return kNone;
  const nlohmann::json& gpus = record["result"]["time_sliced_gpus"];
  return gpus.is_array() ? gpus : kNone;
}

const nlohmann::json& jobs_of(const nlohmann::json& record) {
  static const nlohmann::json kNone = nlohmann::json::array();
  if (!record.contains("result") || !record["result"].contains("jobs")) return kNone;
  return record["result"]["jobs"];
}

}  // namespace

std::string csv_cell(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

SweepCsvLayout::SweepCsvLayout(std::vector<std::string> columns) : columns_(std::move(columns)) {}

void SweepCsvLayout::add(const nlohmann::json& record) {
  const nlohmann::json& jobs = jobs_of(record);
  max_jobs_ = std::max(max_jobs_, jobs.size());
  time_sliced_ = time_sliced_ || !time_sliced_gpus_of(record).empty();
  for (const nlohmann::json& job : jobs) {
    if (!job.contains("breakdown_s") || !job["breakdown_s"].is_object()) continue;
    for (const auto& item : job["breakdown_s"].items()) {
      if (is_leading_breakdown(item.key())) continue;
      if (std::find(extra_breakdown_.begin(), extra_breakdown_.end(), item.key()) == extra_breakdown_.end()) {
        extra_breakdown_.push_back(item.key());
      }
    }
  }
  std::sort(extra_breakdown_.begin(), extra_breakdown_.end());
}

std::vector<std::string> SweepCsvLayout::header() const {
  std::vector<std::string> names = {"point", "id"};
  names.insert(names.end(), columns_.begin(), columns_.end());
  std::vector<std::string> per_job;
  for (const JobFigure& figure : leading_job_figures()) per_job.emplace_back(figure.column);
  for (const std::string& key : extra_breakdown_) per_job.push_back(key + "_s");
  for (const JobFigure& figure : trailing_job_figures()) per_job.emplace_back(figure.column);
  if (max_jobs_ > 1) per_job.emplace_back("slowdown_vs_alone");  // runner/point_runner: shared step / alone step
  if (max_jobs_ <= 1) {
    names.insert(names.end(), per_job.begin(), per_job.end());
  } else {
    names.insert(names.end(), {"jobs", "total_samples_per_s", "jain_fairness"});
    for (std::size_t j = 0; j < max_jobs_; ++j) {
      for (const std::string& name : per_job) names.push_back("job" + std::to_string(j) + "." + name);
    }
  }
  if (time_sliced_) names.insert(names.end(), {"gpu_busy_fraction", "context_switches", "context_switch_time_s"});
  names.emplace_back("error");
  return names;
}

std::vector<std::string> SweepCsvLayout::row(const nlohmann::json& record) const {
  std::vector<std::string> fields = {csv_cell(record.value("point", nlohmann::json())),
                                     csv_cell(record.value("id", nlohmann::json()))};
  const nlohmann::json values = record.value("set", nlohmann::json::object());
  for (const std::string& column : columns_) fields.push_back(csv_cell(values.value(column, nlohmann::json())));

  const nlohmann::json& jobs = jobs_of(record);
  const auto job_fields = [&](const nlohmann::json& job) {
    for (const JobFigure& figure : leading_job_figures()) fields.push_back(csv_cell(lookup(job, figure.pointer)));
    for (const std::string& key : extra_breakdown_) fields.push_back(csv_cell(lookup(job, {"breakdown_s", key.c_str()})));
    for (const JobFigure& figure : trailing_job_figures()) fields.push_back(csv_cell(lookup(job, figure.pointer)));
    if (max_jobs_ > 1) fields.push_back(csv_cell(lookup(job, {"slowdown_vs_alone"})));
  };
  const nlohmann::json no_job = nlohmann::json::object();
  if (max_jobs_ <= 1) {
    job_fields(jobs.empty() ? no_job : jobs[0]);
  } else {
    if (jobs.empty()) {
      fields.insert(fields.end(), 3, "");
    } else {
      double total = 0;
      std::vector<double> normalized;  // each job's throughput over its ideal: its scaling efficiency
      for (const nlohmann::json& job : jobs) {
        total += job.value("samples_per_s", 0.0);
        normalized.push_back(job.value("scaling_efficiency", 0.0));
      }
      fields.push_back(std::to_string(jobs.size()));
      fields.push_back(nlohmann::json(total).dump());
      const nlohmann::json reported = lookup(record["result"], {"fairness", "jain"});
      const bool any = std::any_of(normalized.begin(), normalized.end(), [](double x) { return x > 0; });
      if (reported.is_number()) {
        fields.push_back(reported.dump());
      } else {
        fields.push_back(any ? nlohmann::json(jain_index(normalized)).dump() : "");
      }
    }
    for (std::size_t j = 0; j < max_jobs_; ++j) job_fields(j < jobs.size() ? jobs[j] : no_job);
  }
  if (time_sliced_) {
    const nlohmann::json& gpus = time_sliced_gpus_of(record);
    if (gpus.empty()) {
      fields.insert(fields.end(), 3, "");
    } else {
      double busy = 0;
      double switch_s = 0;
      long switches = 0;
      for (const nlohmann::json& gpu : gpus) {
        busy += gpu.value("busy_fraction", 0.0);
        switch_s += gpu.value("switch_time_s", 0.0);
        switches += gpu.value("switches", 0L);
      }
      fields.push_back(nlohmann::json(busy / static_cast<double>(gpus.size())).dump());
      fields.push_back(std::to_string(switches));
      fields.push_back(nlohmann::json(switch_s).dump());
    }
  }
  fields.push_back(csv_cell(record.value("error", nlohmann::json())));
  return fields;
}

}  // namespace vtsim::tools
