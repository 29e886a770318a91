#include "tools/check_command.hpp"

#include <iostream>
#include <memory>

#include "models/json_reader.hpp"
#include "models/overrides.hpp"
#include "models/scenario_loader.hpp"
#include "models/scenario_writer.hpp"
#include "sim/simulation.hpp"
#include "tools/cli_checks.hpp"
#include "tools/command.hpp"
#include "tools/default_scenario.hpp"

namespace vtsim::tools {

CLI::Validator non_empty_scenario_file() {
  return CLI::Validator(
      [](const std::string& file) {
        return file.empty() ? std::string("an empty file name (omit SCENARIO for the built-in default)")
                            : std::string();
      },
      "FILE");
}

Scenario load_scenario_or_default(const std::string& file, const std::vector<std::string>& overrides) {
  if (!file.empty()) return load_scenario_file(file, overrides);
  const std::string name(kDefaultScenarioName);
  nlohmann::json json = parse_json_text(default_scenario_json(), name);
  for (const std::string& assignment : overrides) apply_override(json, assignment);
  Scenario scenario = load_scenario(json, name, ".");
  return scenario;
}

Scenario checked_scenario(const std::string& file, const std::vector<std::string>& overrides) {
  Scenario scenario = load_scenario_or_default(file, overrides);
  sim::check_runs(scenario);
  return scenario;
}

void print_resolved_scenario(std::ostream& out, const Scenario& scenario) {
  out << scenario_to_json(scenario).dump(2) << '\n';
}

Command add_check_command(CLI::App& parent) {
  struct Options {
    std::string scenario;
    std::vector<std::string> overrides;
  };
  auto options = std::make_shared<Options>();
  CLI::App* app = parent.add_subcommand(
      "check", "Validate a scenario as run would (memory fit and NCCL's choices included) and print it with every "
               "default filled in");
  app->add_option("scenario", options->scenario, "Scenario JSON file (the built-in default scenario when omitted)")
      ->check(non_empty_scenario_file());
  app->add_option("--set", options->overrides,
                  "Override a field, PATH=VALUE (e.g. jobs[0].batch_per_gpu=16); repeatable")
      ->allow_extra_args(false)
      ->check(assignment_check());
  auto allow_mismatch = std::make_shared<bool>(false);
  app->add_flag("--allow-mismatch", *allow_mismatch,
                "Use a calibration profile measured on another box (the same as --set calibration_allow_mismatch=true)");
  return {app, [options, allow_mismatch] {
            if (*allow_mismatch) options->overrides.push_back("calibration_allow_mismatch=true");
            print_resolved_scenario(std::cout, checked_scenario(options->scenario, options->overrides));
          }};
}

}  // namespace vtsim::tools
