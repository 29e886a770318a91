#include "tools/commands/sweep_command.hpp"

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "models/core/atomic_file.hpp"
#include "models/core/error.hpp"
#include "models/scenario/overrides.hpp"
#include "models/scenario/scenario_loader.hpp"
#include "runner/point_runner.hpp"
#include "tools/commands/cli_checks.hpp"
#include "tools/commands/command.hpp"
#include "tools/sweep/slurm_script.hpp"
#include "tools/sweep/sweep_folder.hpp"
#include "tools/sweep/sweep_output.hpp"
#include "tools/sweep/sweep_progress.hpp"
#include "tools/sweep/sweep_records.hpp"
#include "tools/sweep/sweep_spec.hpp"
#include "tools/sweep/worker_pool.hpp"

namespace vtsim::tools {
namespace {

constexpr std::size_t kDefaultSlurmShards = 8;

// One record line: {"point": ..., "id": ..., "set": {...}, "result": {...}} or ..., "error": "..."}.
std::string record_line(const Sweep& sweep, std::size_t index, const std::string& outcome_key,
                        const nlohmann::json& outcome) {
  const SweepPoint& point = sweep.points[index];
  return "{\"point\":" + std::to_string(index) + ",\"id\":\"" + point.id +
         "\",\"set\":" + point_values_json(sweep, point).dump() + ",\"" + outcome_key + "\":" + outcome.dump() + "}";
}

// Runs in a worker process: simulates one point, in a process of its own (simulate_point forks).
std::string simulate_record(const Sweep& sweep, std::size_t index) {
  try {
    const Scenario scenario =
        load_scenario(point_scenario_json(sweep, sweep.points[index]), sweep.scenario_label, sweep.scenario_dir);
    return record_line(sweep, index, "result", runner::simulate_point(scenario));
  } catch (const InputError& error) {
    return record_line(sweep, index, "error", error.what());
  } catch (const std::exception& error) {
    return record_line(sweep, index, "error", std::string("simulation failed: ") + error.what());
  }
}

// The prefixes of a swept path at which the loader could find an unknown key: "a", "a.b", "a.b[0]", "a.b[0].c".
std::vector<std::string> path_prefixes(const std::string& path) {
  std::vector<std::string> prefixes;
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if (i == path.size() || path[i] == '.' || path[i] == '[') prefixes.push_back(path.substr(0, i));
  }
  return prefixes;
}

// Refuses, before any point runs, a swept or derived path the scenario format does not have (a typo would otherwise
// fail every point one by one): the base scenario with that one path set to its first point's value must not be an
// unknown key there. Other errors (a value a point cannot take) stay the point's.
void check_swept_paths(const Sweep& sweep) {
  if (sweep.points.empty()) return;
  const std::vector<std::string> columns = sweep.columns();
  for (std::size_t c = 0; c < columns.size(); ++c) {
    nlohmann::json json = sweep.base_scenario;
    set_json_path(json, columns[c], sweep.points.front().values[c]);
    try {
      load_scenario(json, sweep.scenario_label, sweep.scenario_dir);
    } catch (const InputError& error) {
      const std::string message = error.what();
      for (const std::string& prefix : path_prefixes(columns[c])) {
        const std::size_t at = message.find(": " + prefix + ": unknown key");
        if (at == std::string::npos) continue;
        throw InputError(sweep.file + ": swept path " + columns[c] + ": " + message.substr(at + 2));
      }
    }
  }
}

void list_points(const Sweep& sweep, std::ostream& out) {
  const std::vector<std::string> columns = sweep.columns();
  out << sweep.points.size() << " points, fingerprint " << sweep.fingerprint << '\n';
  for (const SweepPoint& point : sweep.points) {
    out << point.index << ' ' << point.id;
    for (std::size_t c = 0; c < columns.size(); ++c) out << ' ' << columns[c] << '=' << point.values[c].dump();
    out << '\n';
  }
}

void emit_slurm(const SweepRequest& request, const Sweep& sweep, std::ostream& out) {
  namespace fs = std::filesystem;
  SlurmArrayJob job;
  job.vtsim = fs::read_symlink("/proc/self/exe").string();
  job.sweep_file = fs::absolute(request.sweep_file).lexically_normal().string();
  job.out_dir = fs::absolute(request.out_dir).lexically_normal().string();
  if (job.out_dir.size() > 1 && job.out_dir.back() == '/') job.out_dir.pop_back();
  job.extra_set = request.extra_set;
  job.job_name = "vtsim-" + fs::path(request.sweep_file).stem().string();
  job.shards = request.shards > 0 ? request.shards : std::min(kDefaultSlurmShards, sweep.points.size());
  if (job.shards > sweep.points.size()) {
    throw InputError("--shards " + std::to_string(job.shards) + ": the sweep has only " +
                     std::to_string(sweep.points.size()) + " points");
  }
  job.cpus_per_task = request.jobs > 0 ? request.jobs : 1;
  job.partition = request.partition;
  job.time_limit = request.time_limit;
  const std::string text = slurm_array_script(job);  // checks every value before anything is created
  fs::create_directories(job.out_dir);
  const std::string script = (fs::path(job.out_dir) / "sweep.sbatch").string();
  write_file_atomically(script, text);
  fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  out << "wrote " << script << ": " << job.shards << " array tasks over " << sweep.points.size() << " points\n"
      << "submit: sbatch " << shell_quote(script) << "\n"
      << "then:   vtsim merge " << shell_quote(job.out_dir) << "/shard-* --out " << shell_quote(job.out_dir)
      << "/merged\n";
}

SweepSummary run_sweep(const SweepRequest& request, const Sweep& sweep, std::ostream& out) {
  const Shard shard = request.shard.empty() ? Shard{} : parse_shard(request.shard);
  prepare_sweep_folder(request.out_dir,
                       {sweep.fingerprint, sweep.points.size(), shard, sweep.columns(), request.sweep_file});
  std::vector<std::string> ids;
  ids.reserve(sweep.points.size());
  for (const SweepPoint& point : sweep.points) ids.push_back(point.id);
  RecordLog log(records_file(request.out_dir), ids);

  SweepSummary summary;
  std::vector<std::size_t> in_shard;
  std::vector<std::size_t> pending;
  std::size_t failed_before = 0;
  for (const SweepPoint& point : sweep.points) {
    if (!shard.contains(point.index)) continue;
    in_shard.push_back(point.index);
    const RecordRef& record = log.records()[point.index];
    if (record.present() && !(record.failed && request.retry_failed)) {
      ++summary.already_done;
      failed_before += record.failed ? 1 : 0;
    } else {
      pending.push_back(point.index);
    }
  }
  summary.points = in_shard.size();

  ProgressLine progress(out, request.progress, in_shard.size(), summary.already_done, failed_before);
  WorkerPoolTasks tasks;
  tasks.work = [&sweep](std::size_t index) { return simulate_record(sweep, index); };
  tasks.on_worker_death = [&sweep](std::size_t index, const std::string& why) {
    return record_line(sweep, index, "error", why);
  };
  tasks.on_answers = [&](const std::vector<std::pair<std::size_t, std::string>>& answers) {
    std::vector<std::string> lines;
    for (const auto& answer : answers) lines.push_back(answer.second);
    log.append(lines);
    for (const auto& answer : answers) progress.point_done(log.records()[answer.first].failed);
    summary.ran += answers.size();
  };
  if (request.progress) tasks.on_tick = [&] { progress.tick(); };
  tasks.close_in_workers = {log.fd()};
  // Each point is one single-threaded simulation: workers beyond the CPUs only add processes and memory.
  int jobs = request.jobs > 0 ? request.jobs : available_cpus();
  if (jobs > available_cpus()) {
    std::cerr << "vtsim: --jobs " << jobs << ": using " << available_cpus()
              << " workers, the CPUs available (a point is one single-threaded simulation)\n";
    jobs = available_cpus();
  }
  run_worker_pool(pending, jobs, tasks);
  progress.finish();

  const SweepOutputSummary written = write_sweep_outputs(
      request.out_dir, sweep.columns(), in_shard,
      [&log](std::size_t point) { return log.records()[point].present() ? log.read(point) : std::string(); });
  summary.failed = written.failed;
  summary.first_error = written.first_error;
  if (written.rows != in_shard.size()) {
    throw std::runtime_error("the sweep ended with " + std::to_string(in_shard.size() - written.rows) +
                             " points unrecorded");
  }
  const std::string results = (std::filesystem::path(request.out_dir) / "results.csv").string();
  out << "sweep: " << summary.points << " points" << (shard.count > 1 ? " in shard " + shard.to_string() : "")
      << " (" << summary.ran << " run now, " << summary.already_done << " recorded before), " << summary.failed
      << " failed -> " << results << '\n';
  if (summary.points > 0 && summary.failed == summary.points) {
    throw InputError("every point failed; the first error: " + summary.first_error);
  }
  return summary;
}

}  // namespace

SweepSummary sweep_command(const SweepRequest& request, std::ostream& out) {
  const Sweep sweep = load_sweep_file(request.sweep_file, request.extra_set);
  if (request.list) {
    list_points(sweep, out);
    return {};
  }
  if (request.out_dir.empty()) throw InputError("--out DIR is required (unless --list)");
  check_swept_paths(sweep);
  if (request.emit_slurm) {
    emit_slurm(request, sweep, out);
    return {};
  }
  return run_sweep(request, sweep, out);
}

Command add_sweep_command(CLI::App& parent) {
  auto request = std::make_shared<SweepRequest>();
  CLI::App* app = parent.add_subcommand(
      "sweep", "Run a scenario over a grid of parameters, in parallel processes, resumably (scenarios/sweeps/README.md)");
  app->add_option("sweep", request->sweep_file, "Sweep JSON file")->required();
  app->add_option("--out", request->out_dir,
                  "Output folder: results.csv, results.jsonl; rerun the same command to resume into it");
  // Bounded as plan's --workers: with --emit-slurm it is each task's --cpus-per-task.
  app->add_option("--jobs,-j", request->jobs, "Worker processes, 1 to 4096 (default: the number of CPUs)")
      ->check(CLI::Range(1, 4096));
  CLI::Option* shard = app->add_option("--shard", request->shard, "Run only shard i of N: the points with index % N == i")
                           ->check(shard_check());
  app->add_option("--set", request->extra_set, "Override a field of every point, PATH=VALUE; repeatable")
      ->allow_extra_args(false)
      ->check(assignment_check());
  app->add_flag("--retry-failed", request->retry_failed, "Rerun the points recorded as failed");
  app->add_flag("--list", request->list, "Print the points (index, id, values) and run nothing");
  CLI::Option* emit = app->add_flag("--emit-slurm", request->emit_slurm,
                                    "Write DIR/sweep.sbatch, a Slurm job array running one shard per task");
  app->add_option("--shards", request->shards, "With --emit-slurm: array tasks (default: 8, at most the points)")
      ->check(at_least_one_check())
      ->needs(emit);
  // Checked while parsing, so that a malformed value is a command-line error (exit status 2) that names the option.
  app->add_option("--partition", request->partition, "With --emit-slurm: the Slurm partition (or a list: a,b)")
      ->check(CLI::Validator([](std::string& value) { return slurm_partition_error(value); }, "PARTITION"))
      ->needs(emit);
  app->add_option("--time-limit", request->time_limit,
                  "With --emit-slurm: each task's time limit (sbatch --time: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S)")
      ->check(CLI::Validator([](std::string& value) { return slurm_time_limit_error(value); }, "TIME"))
      ->needs(emit);
  emit->excludes(shard);
  return {app, [request] {
            request->progress = ::isatty(STDOUT_FILENO) != 0;
            sweep_command(*request, std::cout);
          }};
}

}  // namespace vtsim::tools
