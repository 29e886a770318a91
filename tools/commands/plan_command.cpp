#include "tools/commands/plan_command.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>

#include <unistd.h>

#include "models/compute/job_compute.hpp"
#include "models/core/error.hpp"
#include "models/core/units.hpp"
#include "models/parallel/parallel_strategy.hpp"
#include "models/resolve/job_compute_plan.hpp"
#include "models/resolve/scenario_calibration.hpp"
#include "runner/point_runner.hpp"
#include "tools/commands/check_command.hpp"
#include "tools/commands/cli_checks.hpp"
#include "tools/commands/command.hpp"
#include "tools/report/text_table.hpp"
#include "tools/sweep/sweep_progress.hpp"
#include "tools/sweep/worker_pool.hpp"

namespace vtsim::tools {
namespace {

using nlohmann::json;

std::size_t job_index(const Scenario& scenario, const std::string& name) {
  if (name.empty()) return 0;
  for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
    if (scenario.jobs[j].name == name) return j;
  }
  throw InputError("--job: no job named '" + name + "' in " + scenario.file);
}

/// The greatest common divisor of the job's GPU counts on its hosts: a tensor group must fit each host whole.
int host_group(const Scenario& scenario, const JobConfig& job) {
  int group = 0;
  for (const auto& [host, ranks] : ranks_per_host(job, scenario.cluster.host.gpus)) group = std::gcd(group, ranks);
  return std::max(group, 1);
}

/// The overrides that turn the job at `json_path` ("jobs[2]") into `strategy` over the same global batch.
std::vector<std::string> strategy_overrides(const std::string& json_path, const ParallelStrategy& s, int global,
                                            int iterations) {
  const std::string job = json_path + ".";
  const json parallelism = {{"tensor", s.tensor},
                            {"pipeline", s.pipeline},
                            {"zero_stage", s.zero_stage},
                            {"micro_batch_size", s.micro_batch_size},
                            {"recompute", std::string(to_string(s.recompute))},
                            {"sequence_parallel", s.sequence_parallel}};
  return {job + "parallelism=" + parallelism.dump(),
          job + "batch_per_gpu=" + std::to_string(global / s.data),
          job + "global_batch=null",
          job + "gradient_accumulation=null",
          job + "horovod=null",
          job + "data_parallel=pytorch_ddp",
          job + "iterations=" + std::to_string(iterations),
          job + "warmup_iterations=1"};
}

double gib(double bytes) { return bytes / units::kBytesPerGiB; }

json memory_gib(const MemoryFootprint& memory) {
  return {{"total", gib(memory.total_bytes())},
          {"weights", gib(memory.weights_bytes)},
          {"gradients", gib(memory.gradients_bytes)},
          {"optimizer", gib(memory.optimizer_bytes)},
          {"activations", gib(memory.activations_bytes)},
          {"workspace", gib(memory.workspace_bytes)}};
}

/// "98.2 GiB (weights 40.1, gradients 20, optimizer 20, activations 17.1, workspace 1)".
std::string memory_text(const json& memory) {
  std::string text = format_number(memory["total"], 3) + " GiB (";
  const char* parts[] = {"weights", "gradients", "optimizer", "activations", "workspace"};
  for (const char* part : parts) {
    text += std::string(part == parts[0] ? "" : ", ") + part + " " + format_number(memory[part], 3);
  }
  return text + ")";
}

/// What one simulated configuration reports, for the ranking.
json summary_of(const json& result, std::size_t index) {
  const json& job = result["jobs"][index];
  const json& parallel = job["parallelism"];
  return {{"step_time_s", job["step_time_s"]["mean"]},
          {"samples_per_s", job["samples_per_s"]},
          {"model_tflops_per_gpu", parallel["model_tflops_per_gpu"]},
          {"compute_s", job["breakdown_s"]["compute"]},
          {"tensor_parallel_s", parallel["communication_s"]["tensor_parallel"]},
          {"pipeline_wait_s", parallel["communication_s"]["pipeline_wait"]},
          {"data_parallel_wait_s", parallel["communication_s"]["data_parallel_wait"]}};
}

/// Why `best` beats `next`: the parts of the step in which they differ most, largest first.
std::string why_best(const json& best, const json& next) {
  struct Part {
    const char* key;
    const char* what;
  };
  const Part parts[] = {{"compute_s", "computing"},
                        {"tensor_parallel_s", "in tensor-parallel collectives"},
                        {"pipeline_wait_s", "waiting for other pipeline stages"},
                        {"data_parallel_wait_s", "waiting for data-parallel collectives"}};
  std::vector<std::pair<double, std::string>> differences;
  for (const Part& part : parts) {
    const double a = best[part.key].get<double>();
    const double b = next[part.key].get<double>();
    if (std::abs(a - b) < 1e-3 * next["step_time_s"].get<double>()) continue;
    char text[200];
    std::snprintf(text, sizeof text, "%.3g s %s against %.3g s", a, part.what, b);
    differences.emplace_back(b - a, text);
  }
  std::sort(differences.begin(), differences.end(),
            [](const auto& x, const auto& y) { return std::abs(x.first) > std::abs(y.first); });
  char head[300];
  std::snprintf(head, sizeof head, "%s is %.1f%% faster than %s per step: ",
                best["strategy"].get<std::string>().c_str(),
                100.0 * (next["step_time_s"].get<double>() / best["step_time_s"].get<double>() - 1.0),
                next["strategy"].get<std::string>().c_str());
  std::string text = head;
  if (differences.empty()) return text + "the two steps differ by less than 0.1% in every part";
  for (std::size_t k = 0; k < differences.size(); ++k) text += (k == 0 ? "" : "; ") + differences[k].second;
  return text;
}

}  // namespace

json plan_command(const PlanRequest& request, std::ostream& out) {
  const Scenario scenario = load_scenario_or_default(request.scenario_file, request.overrides);
  // A calibration profile that does not fit the scenario fails here, once, not in every candidate's run.
  static_cast<void>(load_scenario_calibration(scenario));
  const std::size_t index = job_index(scenario, request.job);
  const JobConfig& job = scenario.jobs[index];
  if (job.idle) throw InputError(scenario.file + ": " + job.json_path + ": an idle job has nothing to plan");
  // Overrides address the file's entries: a job that is one of an entry's `copies` cannot be re-split alone.
  const auto same_entry = std::count_if(scenario.jobs.begin(), scenario.jobs.end(),
                                        [&](const JobConfig& other) { return other.json_path == job.json_path; });
  if (same_entry > 1) {
    throw InputError(scenario.file + ": " + job.json_path + ".copies: vtsim plan plans one job; this entry makes " +
                     std::to_string(same_entry) + " (remove 'copies' to plan it)");
  }
  const Workload workload = job_workload(job);
  if (workload.transformer.layers <= 0) {
    throw InputError(scenario.file + ": " + job.json_path + ": " + workload.id +
                     " is not a transformer: only data parallelism splits it (vtsim plan splits transformers)");
  }
  const int gpus = static_cast<int>(job.gpu_ids.size());
  const int global = samples_per_step(job);
  const auto [device, device_name] = job_device(scenario, index);
  const std::vector<PlanCandidate> candidates =
      plan_candidates(workload, gpus, host_group(scenario, job), global, request.max_micro_batch, job.precision,
                      device.memory_bytes);

  // Only the candidates no other fitting one beats by construction are simulated (more recomputation or a ZeRO stage
  // that adds communication, all else equal, only costs time).
  const std::vector<std::size_t> worth = undominated_candidates(candidates);
  std::vector<char> simulate(candidates.size(), 0);
  for (std::size_t k : worth) simulate[k] = 1;
  std::size_t dominated = 0;
  std::vector<Scenario> fitting;
  std::vector<const PlanCandidate*> fitting_candidates;
  // Per split (t, p): its configurations, those that do not fit, and among these the one that would run fastest (the
  // least recomputation, then ZeRO stage, then micro-batch): its memory says what keeps the split's best out.
  struct SplitMisses {
    int configurations = 0;
    int misses = 0;
    const PlanCandidate* fastest_miss = nullptr;
  };
  std::map<std::pair<int, int>, SplitMisses> misses;
  for (const PlanCandidate& candidate : candidates) {
    SplitMisses& split = misses[{candidate.strategy.tensor, candidate.strategy.pipeline}];
    ++split.configurations;
    if (!candidate.fits) {
      ++split.misses;
      const auto cost = [](const ParallelStrategy& s) {
        return std::make_tuple(static_cast<int>(s.recompute), s.zero_stage, s.micro_batch_size);
      };
      const PlanCandidate*& fastest = split.fastest_miss;
      if (fastest == nullptr || cost(candidate.strategy) < cost(fastest->strategy)) fastest = &candidate;
      continue;
    }
    if (simulate[static_cast<std::size_t>(&candidate - candidates.data())] == 0) {
      ++dominated;
      continue;
    }
    std::vector<std::string> overrides = request.overrides;
    for (std::string& assignment : strategy_overrides(job.json_path, candidate.strategy, global, request.iterations)) {
      overrides.push_back(std::move(assignment));
    }
    fitting.push_back(load_scenario_or_default(request.scenario_file, overrides));
    fitting_candidates.push_back(&candidate);
  }

  std::vector<json> results(fitting.size());
  WorkerPoolTasks tasks;
  tasks.work = [&](std::size_t k) {
    try {
      // Ranked by samples/s: the candidates need no scaling reference.
      return summary_of(runner::simulate_point(fitting[k], "", runner::Companions::none), index).dump();
    } catch (const std::exception& error) {
      return json{{"error", error.what()}}.dump();
    }
  };
  tasks.on_worker_death = [](std::size_t, const std::string& why) { return json{{"error", why}}.dump(); };
  ProgressLine progress(std::cerr, ::isatty(STDERR_FILENO) != 0, fitting.size(), 0, 0, "plan");
  tasks.on_answers = [&](const std::vector<std::pair<std::size_t, std::string>>& answers) {
    for (const auto& [k, line] : answers) {
      results[k] = json::parse(line);
      progress.point_done(results[k].contains("error"));
    }
  };
  tasks.on_tick = [&] { progress.tick(); };
  std::vector<std::size_t> all(fitting.size());
  std::iota(all.begin(), all.end(), std::size_t{0});
  const int workers = request.workers > 0 ? std::min(request.workers, available_cpus()) : available_cpus();
  if (!fitting.empty()) run_worker_pool(all, workers, tasks);
  progress.finish();

  json ranked = json::array();
  json failed = json::array();
  for (std::size_t k = 0; k < results.size(); ++k) {
    json entry = results[k];
    entry["strategy"] = describe(fitting_candidates[k]->strategy);
    entry["memory_per_gpu_gib"] = gib(fitting_candidates[k]->memory.total_bytes());
    (entry.contains("error") ? failed : ranked).push_back(entry);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const json& a, const json& b) {
    return a["samples_per_s"].get<double>() > b["samples_per_s"].get<double>();
  });
  json not_fitting = json::array();
  for (const auto& [split, count] : misses) {
    if (count.misses == 0) continue;
    not_fitting.push_back({{"tensor", split.first},
                           {"pipeline", split.second},
                           {"data", gpus / (split.first * split.second)},
                           {"configurations", count.configurations},
                           {"not_fitting", count.misses},
                           {"fastest_miss", describe(count.fastest_miss->strategy)},
                           {"fastest_miss_memory_gib", memory_gib(count.fastest_miss->memory)}});
  }
  json answer = {{"scenario", scenario.name},
                 {"job", job.name},
                 {"workload", workload.id},
                 {"gpus", gpus},
                 {"global_batch", global},
                 {"device", device_name},
                 {"device_memory_gib", gib(device.memory_bytes)},
                 {"configurations_considered", candidates.size()},
                 {"fitting_not_simulated", dominated},
                 {"ranked", ranked},
                 {"failed", failed},
                 {"not_fitting", not_fitting}};
  if (ranked.size() >= 2) answer["why_the_best_wins"] = why_best(ranked[0], ranked[1]);
  if (request.json) {
    out << answer.dump(2) << '\n';
    return answer;
  }

  out << "plan for job " << job.name << ": " << workload.name << ", " << gpus << " GPUs (" << device_name << ", "
      << format_number(gib(device.memory_bytes), 3) << " GiB), global batch " << global << "\n"
      << candidates.size() << " configurations considered, " << fitting.size() + dominated << " fit in memory; "
      << fitting.size() << " simulated (" << request.iterations << " measured iteration"
      << (request.iterations == 1 ? "" : "s") << " each), " << dominated
      << " not: the same split with less recomputation or a cheaper ZeRO stage fits too\n\n";
  TextTable table({"rank", "configuration", "step (s)", "samples/s", "TFLOP/s/GPU", "GiB/GPU", "TP comm (s)",
                   "PP wait (s)", "DP wait (s)"});
  for (std::size_t k = 0; k < ranked.size(); ++k) {
    const json& r = ranked[k];
    table.add_row({std::to_string(k + 1), r["strategy"].get<std::string>(), format_number(r["step_time_s"], 4),
                   format_number(r["samples_per_s"], 4), format_number(r["model_tflops_per_gpu"], 3),
                   format_number(r["memory_per_gpu_gib"], 3), format_number(r["tensor_parallel_s"], 3),
                   format_number(r["pipeline_wait_s"], 3), format_number(r["data_parallel_wait_s"], 3)});
  }
  table.print(out);
  if (answer.contains("why_the_best_wins")) {
    out << "\nwhy the best wins: " << answer["why_the_best_wins"].get<std::string>() << '\n';
  }
  if (!not_fitting.empty()) {
    out << "\nwhy the others were not simulated: they need more than the " << format_number(gib(device.memory_bytes), 3)
        << " GiB of a GPU; of each split, the one that would have run fastest:\n";
    for (const json& miss : not_fitting) {
      out << "  TP " << miss["tensor"].get<int>() << " x PP " << miss["pipeline"].get<int>() << " x DP "
          << miss["data"].get<int>() << ": " << miss["not_fitting"].get<int>() << " of "
          << miss["configurations"].get<int>() << " do not fit; " << miss["fastest_miss"].get<std::string>()
          << " needs " << memory_text(miss["fastest_miss_memory_gib"]) << "\n";
    }
  }
  for (const json& f : failed) {
    out << "failed: " << f["strategy"].get<std::string>() << ": " << f["error"].get<std::string>() << '\n';
  }
  if (ranked.empty()) {
    throw InputError(scenario.file + ": " + job.json_path + ": no configuration of its " + std::to_string(gpus) +
                     " GPUs fits " + workload.name + " at global batch " + std::to_string(global) +
                     ": use more GPUs or larger ones");
  }
  return answer;
}

Command add_plan_command(CLI::App& parent) {
  auto request = std::make_shared<PlanRequest>();
  auto format = std::make_shared<std::string>("table");
  CLI::App* app = parent.add_subcommand(
      "plan", "Rank the tensor x pipeline x data splits, ZeRO stages, micro-batches and recomputation that fit a "
              "transformer job, by simulated throughput");
  app->add_option("scenario", request->scenario_file, "Scenario JSON file (the built-in default when omitted)")
      ->check(non_empty_scenario_file());
  app->add_option("--set", request->overrides, "Override a field, PATH=VALUE; repeatable")
      ->allow_extra_args(false)
      ->check(assignment_check());
  app->add_option("--job", request->job, "The job to plan, by name (default: the first)");
  app->add_option("--workers", request->workers, "Worker processes (default: the CPUs available)")
      ->check(CLI::Range(1, 4096));
  app->add_option("--max-micro-batch", request->max_micro_batch, "Largest micro-batch size tried (default 8)")
      ->check(CLI::Range(1, 1 << 20));
  app->add_option("--iterations", request->iterations, "Measured iterations per configuration (default 1)")
      ->check(CLI::Range(1, 1000));
  app->add_option("--format", *format, "table or json")->check(CLI::IsMember({"table", "json"}));
  return {app, [request, format] {
            request->json = *format == "json";
            plan_command(*request, std::cout);
          }};
}

}  // namespace vtsim::tools
