#include "tools/commands/bench_command.hpp"

#include <dlfcn.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "models/scenario/scenario_loader.hpp"
#include "runner/point_runner.hpp"
#include "sim/engine/isolated_run.hpp"
#include "sim/engine/simulation.hpp"
#include "tools/commands/command.hpp"
#include "tools/commands/sweep_command.hpp"
#include "tools/report/text_table.hpp"
#include "tools/sweep/worker_pool.hpp"

namespace vtsim::tools {
namespace {

constexpr int kGpusPerHost = 8;
constexpr int kHostsPerRack = 32;
constexpr int kStepMaxGpus = 1024;  // step fidelity is O(N^2) communications per allreduce

// The targets of the scale work (README.md, "Performance"), for a 2-core machine of the development kind.
constexpr int kTargetGpus = 16384;
constexpr double kTargetFlowWall_s = 2.0;
constexpr double kTargetFlowRss_mib = 500.0;
constexpr double kTargetAnalyticWall_s = 0.5;
constexpr double kTargetStepCommsPerSecond = 250000.0;
constexpr double kTargetSweepWall_s = 300.0;
constexpr double kTargetSweepPoints = 1000.0;
constexpr double kTargetFlowVsStep = 0.01;
constexpr int kTargetLargestGpus = 65536;
constexpr double kTargetLargestFlowWall_s = 10.0;
constexpr int kTargetIterationsGpus = 4096;
constexpr int kTargetIterations = 20;
constexpr double kTargetIterationsWall_s = 5.0;

/// The allocator the process runs with: jemalloc where the binary links it (CMakeLists.txt), else glibc's. Found at
/// run time, from jemalloc's own entry point, so that the figure says what was measured.
std::string allocator() { return dlsym(RTLD_DEFAULT, "mallctl") != nullptr ? "jemalloc" : "glibc"; }

/// `gpus` A100 80GB GPUs, 8 per host, up to 32 hosts per rack, RoCE v2 leaf-spine at 2:1 with 4 spines; `iterations`
/// of BERT-large pre-training, batch 64 per GPU, PyTorch kernels, Horovod's hierarchical allreduce.
nlohmann::json bench_scenario(int gpus, const std::string& fidelity, int iterations = 1) {
  const int hosts = std::max(1, gpus / kGpusPerHost);
  const int hosts_per_rack = std::min(kHostsPerRack, hosts);
  return {{"name", "bench"},
          {"cluster",
           {{"racks", hosts / hosts_per_rack},
            {"hosts_per_rack", hosts_per_rack},
            {"host", {{"gpus", kGpusPerHost}, {"gpu_model", "a100-80gb-sxm4"}, {"nic_model", "connectx-6-200gb"}}},
            {"transport", "roce_v2"},
            {"fabric", {{"oversubscription", 2.0}, {"spines", 4}}}}},
          {"jobs",
           {{{"workload", "bert-large-pretrain-seq128"},
             {"batch_per_gpu", 64},
             {"data_parallel", "horovod"},
             {"horovod", {{"allreduce", "hierarchical"}}},
             {"iterations", iterations},
             {"warmup_iterations", 0}}}},
          {"simulation", {{"fidelity", fidelity}}}};
}

/// One measured point: the best of `repeat` runs, each in its own process.
struct BenchPoint {
  int gpus = 0;
  std::string fidelity;
  double wall_s = 0;
  double peak_rss_mib = 0;
  double simulated_step_s = 0;
  double communications = 0;
  double transfers_alone = 0;     ///< transfers computed, not simulated (sim/engine/route_ledger.hpp)
  std::optional<double> vs_step;  ///< flow and analytic: relative difference of the simulated step against step's
  nlohmann::json wall_clock;      ///< the fastest run's phases (sim::WallClock)
};

BenchPoint measure(int gpus, const std::string& fidelity, int iterations, int repeat) {
  const Scenario scenario = load_scenario(bench_scenario(gpus, fidelity, iterations), "bench", ".");
  BenchPoint point{.gpus = gpus,
                   .fidelity = fidelity,
                   .wall_s = std::numeric_limits<double>::infinity(),
                   .peak_rss_mib = std::numeric_limits<double>::infinity(),
                   .vs_step = std::nullopt,
                   .wall_clock = nullptr};
  for (int run = 0; run < repeat; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const nlohmann::json answer = sim::run_isolated([&] {
      const auto simulate_start = std::chrono::steady_clock::now();
      const sim::SimulationResult simulated = runner::simulate(scenario);
      const double simulate_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - simulate_start).count();
      rusage usage{};
      getrusage(RUSAGE_SELF, &usage);
      const sim::WallClock& clock = simulated.wall_clock;
      return nlohmann::json{{"result", sim::to_json(simulated)},
                            {"peak_rss_kib", usage.ru_maxrss},
                            {"wall_clock",
                             {{"plan_s", clock.plan_s},
                              {"platform_s", clock.platform_s},
                              {"actors_s", clock.actors_s},
                              {"run_s", clock.run_s},
                              {"results_s", clock.results_s},
                              {"teardown_s", simulate_s - clock.plan_s - clock.platform_s - clock.actors_s -
                                                 clock.run_s - clock.results_s}}}};
    });
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (wall < point.wall_s) point.wall_clock = answer["wall_clock"];
    point.wall_s = std::min(point.wall_s, wall);
    point.peak_rss_mib = std::min(point.peak_rss_mib, answer["peak_rss_kib"].get<double>() / 1024.0);
    point.simulated_step_s = answer["result"]["jobs"][0]["step_time_s"]["mean"].get<double>();
    point.communications = answer["result"]["communications"].get<double>();
    point.transfers_alone = answer["result"]["transfers_alone"].get<double>();
  }
  return point;
}

/// The sweep benchmark: `points` points of 64- to 1,024-GPU flow scenarios (five sizes, seeds to make up the
/// count) run by `vtsim sweep` with the default workers, into a temporary folder. Returns its points and wall time.
std::pair<std::size_t, double> measure_sweep(int points) {
  const std::vector<std::pair<int, int>> sizes = {{1, 8}, {1, 16}, {1, 32}, {2, 32}, {4, 32}};  // racks, hosts
  const int seeds = (points + static_cast<int>(sizes.size()) - 1) / static_cast<int>(sizes.size());
  nlohmann::json size_points = nlohmann::json::array();
  for (const auto& [racks, hosts] : sizes) {
    size_points.push_back({{"cluster.racks", racks}, {"cluster.hosts_per_rack", hosts}});
  }
  nlohmann::json seed_list = nlohmann::json::array();
  for (int seed = 1; seed <= seeds; ++seed) seed_list.push_back(seed);
  const nlohmann::json sweep = {{"scenario", bench_scenario(64, "flow")},
                                {"axes", {{{"points", size_points}}, {{"grid", {{"simulation.seed", seed_list}}}}}}};
  const std::filesystem::path folder = std::filesystem::temp_directory_path() /
                                       ("vtsim-bench-sweep-" + std::to_string(::getpid()));
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "sweep.json") << sweep.dump(2);
  SweepRequest request;
  request.sweep_file = (folder / "sweep.json").string();
  request.out_dir = (folder / "out").string();
  std::ostringstream quiet;
  const auto start = std::chrono::steady_clock::now();
  const SweepSummary summary = sweep_command(request, quiet);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::filesystem::remove_all(folder);
  return {summary.points, wall};
}

nlohmann::json point_json(const BenchPoint& point) {
  nlohmann::json document = {{"gpus", point.gpus},
                             {"fidelity", point.fidelity},
                             {"wall_s", point.wall_s},
                             {"peak_rss_mib", point.peak_rss_mib},
                             {"simulated_step_s", point.simulated_step_s},
                             {"communications", point.communications},
                             {"transfers_alone", point.transfers_alone},
                             {"communications_per_s", point.communications / point.wall_s}};
  if (point.vs_step) document["vs_step"] = *point.vs_step;
  document["wall_clock"] = point.wall_clock;
  return document;
}

/// Each target with what was measured against it (null where the bench did not measure it). `points` ran
/// `iterations` each; `sweep_per_1000_s`: the sweep's wall time scaled to 1,000 points, where a sweep ran.
nlohmann::json targets_json(const std::vector<BenchPoint>& points, int iterations,
                            std::optional<double> sweep_per_1000_s) {
  // The one-iteration targets hold one-iteration points; the 20-iteration target a 20-iteration point.
  const auto find_run = [&](int gpus, const std::string& fidelity, int run_iterations) -> const BenchPoint* {
    if (iterations != run_iterations) return nullptr;
    for (const BenchPoint& point : points) {
      if (point.gpus == gpus && point.fidelity == fidelity) return &point;
    }
    return nullptr;
  };
  const auto find = [&](int gpus, const std::string& fidelity) { return find_run(gpus, fidelity, 1); };
  nlohmann::json targets = nlohmann::json::array();
  const BenchPoint* flow = find(kTargetGpus, "flow");
  targets.push_back({{"case", "16,384 GPUs, flow, one iteration"},
                     {"target", "<= 2 s wall, <= 500 MiB peak"},
                     {"met", flow ? nlohmann::json(flow->wall_s <= kTargetFlowWall_s &&
                                                   flow->peak_rss_mib <= kTargetFlowRss_mib)
                                  : nlohmann::json()}});
  const BenchPoint* analytic = find(kTargetGpus, "analytic");
  targets.push_back({{"case", "16,384 GPUs, analytic, one iteration"},
                     {"target", "<= 0.5 s wall"},
                     {"met", analytic ? nlohmann::json(analytic->wall_s <= kTargetAnalyticWall_s) : nlohmann::json()}});
  const BenchPoint* largest = find(kTargetLargestGpus, "flow");
  targets.push_back(
      {{"case", "65,536 GPUs, flow, one iteration"},
       {"target", "<= 10 s wall"},
       {"met", largest ? nlohmann::json(largest->wall_s <= kTargetLargestFlowWall_s) : nlohmann::json()}});
  const BenchPoint* repeated = find_run(kTargetIterationsGpus, "flow", kTargetIterations);
  targets.push_back(
      {{"case", "4,096 GPUs, flow, 20 iterations (--iterations 20)"},
       {"target", "<= 5 s wall"},
       {"met", repeated ? nlohmann::json(repeated->wall_s <= kTargetIterationsWall_s) : nlohmann::json()}});
  const BenchPoint* step = find(kStepMaxGpus, "step");
  targets.push_back({{"case", "1,024 GPUs, step"},
                     {"target", ">= 250,000 communications per second"},
                     {"met", step ? nlohmann::json(step->communications / step->wall_s >= kTargetStepCommsPerSecond)
                                  : nlohmann::json()}});
  targets.push_back({{"case", "1,000-point sweep of 64-1,024 GPUs"},
                     {"target", "<= 5 minutes"},
                     {"met", sweep_per_1000_s ? nlohmann::json(*sweep_per_1000_s <= kTargetSweepWall_s)
                                              : nlohmann::json()}});
  double worst = -1;
  for (const BenchPoint& point : points) {
    if (point.fidelity == "flow" && point.vs_step) worst = std::max(worst, std::abs(*point.vs_step));
  }
  targets.push_back({{"case", "flow against step where both run"},
                     {"target", "within 1%"},
                     {"met", worst >= 0 ? nlohmann::json(worst <= kTargetFlowVsStep) : nlohmann::json()}});
  return targets;
}

}  // namespace

void bench_command(std::ostream& out, const BenchRequest& request) {
  const bool table = request.format == "table";
  // Each row is printed as soon as it is measured: a crash or a kill at the largest size keeps every finished row.
  const std::vector<std::pair<std::string, int>> columns = {
      {"gpus", 6},          {"fidelity", 9},           {"wall_s", 9},
      {"peak_rss_mib", 13}, {"simulated_step_ms", 18}, {"communications", 15},
      {"comms_per_s", 12},  {"computed", 9},           {"vs_step", 8}};
  const auto print_row = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c + 1 < cells.size(); ++c) {
      out << std::left << std::setw(columns[c].second) << cells[c] << ' ';
    }
    out << cells.back() << '\n';
    out.flush();
  };
  if (table) {
    out << "vtsim bench: BERT-large seq128, batch 64/GPU, " << request.iterations
        << " iteration(s), Horovod hierarchical allreduce; 8x A100 80GB\n"
           "hosts, 32 per rack, RoCE v2 leaf-spine 2:1; best of "
        << request.repeat << " run(s), each in its own process; allocator " << allocator()
        << "; computed: transfers alone on their route, not simulated\n";
    std::vector<std::string> header;
    for (const auto& column : columns) header.push_back(column.first);
    print_row(header);
  }
  std::vector<BenchPoint> points;
  for (int gpus = 16; gpus <= request.max_gpus; gpus *= 4) {
    if (gpus < request.min_gpus) continue;
    std::optional<double> step_s;
    for (const std::string fidelity : {"step", "flow", "analytic"}) {
      if (fidelity == "step" && gpus > kStepMaxGpus) continue;
      if (std::find(request.fidelities.begin(), request.fidelities.end(), fidelity) == request.fidelities.end()) {
        continue;
      }
      BenchPoint point = measure(gpus, fidelity, request.iterations, request.repeat);
      if (fidelity == "step") step_s = point.simulated_step_s;
      if (fidelity != "step" && step_s) point.vs_step = point.simulated_step_s / *step_s - 1;
      points.push_back(point);
      if (!table) continue;
      print_row({std::to_string(gpus), fidelity, format_number(point.wall_s, 3), format_number(point.peak_rss_mib, 4),
                 format_number(point.simulated_step_s * 1e3, 5), format_number(point.communications, 6),
                 format_number(point.communications / point.wall_s, 4), format_number(point.transfers_alone, 6),
                 point.vs_step ? format_number(*point.vs_step * 100, 3) + "%" : "-"});
    }
  }
  std::optional<double> sweep_wall_s;
  std::optional<double> sweep_per_1000_s;
  std::size_t sweep_points = 0;
  if (request.sweep_points > 0) {
    std::tie(sweep_points, sweep_wall_s) = measure_sweep(request.sweep_points);
    // A sweep of another size is judged by its time per point, scaled to 1,000 points (its points are drawn from
    // the five sizes in turn, so any multiple of five has the same mix).
    sweep_per_1000_s = *sweep_wall_s * kTargetSweepPoints / static_cast<double>(sweep_points);
    if (table) {
      out << "sweep: " << sweep_points << " points of 64-1,024 GPUs at flow, " << available_cpus()
          << " workers: " << format_number(*sweep_wall_s, 4) << " s (" << format_number(*sweep_per_1000_s, 4)
          << " s per 1,000 points)\n";
    }
  }
  if (table) return;
  nlohmann::json document = {
      {"bench",
       {{"workload", "bert-large-pretrain-seq128, batch 64 per GPU, horovod hierarchical allreduce"},
        {"cluster", "8x A100 80GB per host, 32 hosts per rack, RoCE v2 leaf-spine 2:1, 4 spines"},
        {"iterations", request.iterations},
        {"repeat", request.repeat},
        {"cpus", available_cpus()},
        {"allocator", allocator()}}},
      {"points", nlohmann::json::array()},
      {"targets", targets_json(points, request.iterations, sweep_per_1000_s)}};
  for (const BenchPoint& point : points) document["points"].push_back(point_json(point));
  if (sweep_wall_s) {
    document["sweep"] = {{"points", sweep_points},
                     {"workers", available_cpus()},
                     {"wall_s", *sweep_wall_s},
                     {"wall_s_per_1000_points", *sweep_per_1000_s}};
  }
  out << document.dump(2) << '\n';
}

Command add_bench_command(CLI::App& parent) {
  auto request = std::make_shared<BenchRequest>();
  CLI::App* app = parent.add_subcommand("bench", "Time simulations of growing clusters; print a table or JSON");
  app->add_option("--min-gpus", request->min_gpus, "Smallest cluster (the sizes from 16 GPUs, x4 each, from this)")
      ->check(CLI::Range(16, 1 << 20));
  app->add_option("--max-gpus", request->max_gpus, "Largest cluster (16, 64, 256, 1024, 4096, 16384, 65536 up to this)")
      ->check(CLI::Range(16, 1 << 20));
  app->add_option("--fidelity", request->fidelities, "Fidelities to measure (default step, flow and analytic)")
      ->check(CLI::IsMember({"step", "flow", "analytic"}));
  app->add_option("--repeat", request->repeat, "Runs per point: the best is reported")->check(CLI::Range(1, 100));
  app->add_option("--iterations", request->iterations, "Training iterations per point (default 1)")
      ->check(CLI::Range(1, 1000));
  app->add_option("--sweep-points", request->sweep_points,
                  "Also time a sweep of this many 64- to 1,024-GPU points (0: none)")
      ->check(CLI::Range(0, 1000000));
  app->add_option("--format", request->format, "table or json")->check(CLI::IsMember({"table", "json"}));
  return {app, [request] { bench_command(std::cout, *request); }};
}

}  // namespace vtsim::tools
