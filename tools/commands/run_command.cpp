#include "tools/commands/run_command.hpp"

#include <filesystem>
#include <iostream>
#include <memory>
#include <system_error>

#include "models/core/atomic_file.hpp"
#include "models/core/error.hpp"
#include "models/resolve/scenario_calibration.hpp"
#include "models/scenario/overrides.hpp"
#include "models/scenario/scenario.hpp"
#include "runner/point_runner.hpp"
#include "tools/commands/check_command.hpp"
#include "tools/commands/cli_checks.hpp"
#include "tools/commands/command.hpp"
#include "tools/report/result_table.hpp"

namespace vtsim::tools {

std::string variant_trace_file(const std::string& trace_file, std::size_t variant) {
  if (trace_file.empty()) return "";
  const std::filesystem::path path(trace_file);
  return (path.parent_path() / (path.stem().string() + ".variant" + std::to_string(variant) +
                                path.extension().string()))
      .string();
}

void run_command(const RunRequest& request, std::ostream& out) {
  std::vector<std::string> compare = request.compare;
  if (request.scenario_file.empty() && compare.empty()) compare.push_back("cluster.host.nvlink.enabled=false");

  // Load every variant here first, so that a bad scenario or override fails fast, once, before any simulation.
  const Scenario scenario = load_scenario_or_default(request.scenario_file, request.overrides);
  static_cast<void>(load_scenario_calibration(scenario));  // its profile's errors too (the runs read it again)
  // The trace must not overwrite the files the run reads: its scenario and its calibration profile.
  if (!request.trace_file.empty()) {
    refuse_overwriting_inputs(request.trace_file, {request.scenario_file, scenario.calibration_profile}, "--trace");
    for (std::size_t v = 1; v <= compare.size(); ++v) {
      refuse_overwriting_inputs(variant_trace_file(request.trace_file, v),
                                {request.scenario_file, scenario.calibration_profile}, "--trace");
    }
  }
  std::vector<Scenario> variants;
  for (const std::string& variant : compare) {
    std::vector<std::string> overrides = request.overrides;
    for (const std::string& assignment : split_assignments(variant)) overrides.push_back(assignment);
    variants.push_back(load_scenario_or_default(request.scenario_file, overrides));
    static_cast<void>(load_scenario_calibration(variants.back()));
  }

  nlohmann::json result = runner::simulate_point(scenario, request.trace_file);
  std::vector<Variant> columns = {{"as given", result}};
  nlohmann::json variant_results = nlohmann::json::array();
  for (std::size_t v = 0; v < variants.size(); ++v) {
    nlohmann::json variant = runner::simulate_point(variants[v], variant_trace_file(request.trace_file, v + 1));
    columns.push_back({compare[v], variant});
    variant_results.push_back({{"set", compare[v]}, {"result", variant}});
  }
  if (request.json) {
    if (!variant_results.empty()) result["variants"] = variant_results;
    out << result.dump(2) << '\n';
    return;
  }
  print_result_table(out, columns);
}

Command add_run_command(CLI::App& parent) {
  auto request = std::make_shared<RunRequest>();
  auto format = std::make_shared<std::string>("table");
  CLI::App* app = parent.add_subcommand("run", "Simulate a scenario and print step time, throughput and scaling");
  app->add_option("scenario", request->scenario_file,
                  "Scenario JSON file (the built-in default when omitted; then NVLink on and off are compared)")
      ->check(non_empty_scenario_file());
  app->add_option("--set", request->overrides, "Override a field, PATH=VALUE; repeatable")
      ->allow_extra_args(false)
      ->check(assignment_check());
  app->add_option("--compare", request->compare,
                  "Also run the scenario with PATH=VALUE[,PATH=VALUE...] (one variant) and show it side by side; "
                  "repeatable")
      ->allow_extra_args(false)
      ->check(assignments_check());
  app->add_option("--format", *format, "table or json")->check(CLI::IsMember({"table", "json"}));
  app->add_option("--trace", request->trace_file,
                  "Write a Chrome trace-event timeline (Perfetto) to FILE, and each --compare variant's to FILE's name "
                  "with .variantN before its extension");
  auto seeds = std::make_shared<int>(0);
  app->add_option("--seeds", *seeds,
                  "Run each variant N times, under seeds simulation.seed ... + N - 1, and show the spread "
                  "(the same as --set simulation.seeds=N)")
      ->check(CLI::Range(1, kMaxSeeds));
  auto allow_mismatch = std::make_shared<bool>(false);
  app->add_flag("--allow-mismatch", *allow_mismatch,
                "Use a calibration profile measured on another box, and say so in the result (the same as --set "
                "calibration_allow_mismatch=true)");
  return {app, [request, format, seeds, allow_mismatch] {
            request->json = *format == "json";
            if (*allow_mismatch) request->overrides.push_back("calibration_allow_mismatch=true");
            if (*seeds > 0) request->overrides.push_back("simulation.seeds=" + std::to_string(*seeds));
            run_command(*request, std::cout);
          }};
}

}  // namespace vtsim::tools
