#include "tools/bench_command.hpp"

#include <sys/resource.h>

#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <string>

#include "models/scenario_loader.hpp"
#include "sim/simulation.hpp"
#include "tools/command.hpp"
#include "tools/isolated_run.hpp"
#include "tools/text_table.hpp"

namespace vtsim::tools {
namespace {

/// 8 hosts of 8 A100 80GB per rack, RoCE v2 leaf-spine at 2:1, BERT-large seq128 on every GPU, flat ring.
nlohmann::json bench_scenario(int gpus, const std::string& fidelity) {
  const int racks = std::max(1, gpus / 64);
  const int hosts_per_rack = gpus >= 64 ? 8 : std::max(1, gpus / 8);
  return {{"name", "bench"},
          {"cluster",
           {{"racks", racks},
            {"hosts_per_rack", hosts_per_rack},
            {"host", {{"gpus", 8}, {"gpu_model", "a100-80gb-sxm4"}, {"nic_model", "connectx-6-200gb"}}},
            {"transport", "roce_v2"},
            {"fabric", {{"oversubscription", 2.0}, {"spines", 4}}}}},
          {"jobs",
           {{{"workload", "bert-large-pretrain-seq128"},
             {"batch_per_gpu", 64},
             {"iterations", 2},
             {"warmup_iterations", 1}}}},
          {"simulation", {{"fidelity", fidelity}}}};
}

}  // namespace

void bench_command(std::ostream& out, int max_gpus) {
  // Each row is printed as soon as it is measured: a crash or a kill at the largest size keeps every finished row.
  const std::vector<std::pair<std::string, int>> columns = {{"gpus", 6},         {"fidelity", 9},
                                                            {"wall_s", 9},       {"peak_rss_mib", 13},
                                                            {"simulated_step_ms", 18}, {"samples_per_s", 14}};
  const auto print_row = [&](const std::vector<std::string>& cells) {
    for (std::size_t c = 0; c + 1 < cells.size(); ++c) {
      out << std::left << std::setw(columns[c].second) << cells[c] << ' ';
    }
    out << cells.back() << '\n';
    out.flush();
  };
  out << "vtsim bench: BERT-large seq128, batch 64/GPU, 8x A100 80GB hosts, RoCE v2 leaf-spine 2:1, flat ring,\n"
         "3 iterations (1 warm-up); each point in its own process\n";
  std::vector<std::string> header;
  for (const auto& column : columns) header.push_back(column.first);
  print_row(header);
  for (int gpus = 8; gpus <= max_gpus; gpus *= 4) {
    for (const std::string fidelity : {"step", "flow", "analytic"}) {
      // Step level is O(N^2) communications per allreduce: past 256 GPUs it takes minutes (docs/simgrid-notes.md).
      if (fidelity == "step" && gpus > 256) continue;
      const Scenario scenario = load_scenario(bench_scenario(gpus, fidelity), "bench", ".");
      const auto start = std::chrono::steady_clock::now();
      const nlohmann::json answer = run_isolated([&] {
        nlohmann::json result = sim::to_json(sim::simulate(scenario));
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        return nlohmann::json{{"result", result}, {"peak_rss_kib", usage.ru_maxrss}};
      });
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const nlohmann::json& job = answer["result"]["jobs"][0];
      print_row({std::to_string(gpus), fidelity, format_number(wall, 3),
                 format_number(answer["peak_rss_kib"].get<double>() / 1024.0, 4),
                 format_number(job["step_time_s"]["mean"].get<double>() * 1e3, 5),
                 format_number(job["samples_per_s"].get<double>(), 6)});
    }
  }
}

Command add_bench_command(CLI::App& parent) {
  auto max_gpus = std::make_shared<int>(1024);
  CLI::App* app = parent.add_subcommand("bench", "Time simulations of growing clusters; print a table");
  app->add_option("--max-gpus", *max_gpus, "Largest cluster to simulate (8, 32, 128, ... up to this)")
      ->check(CLI::Range(8, 1 << 20));
  return {app, [max_gpus] { bench_command(std::cout, *max_gpus); }};
}

}  // namespace vtsim::tools
