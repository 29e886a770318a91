#include "tools/commands/check_command.hpp"

#include <iostream>
#include <memory>
#include <optional>
#include <utility>

#include "models/core/json_reader.hpp"
#include "models/resolve/resolve.hpp"
#include "models/scenario/overrides.hpp"
#include "models/scenario/scenario_loader.hpp"
#include "models/scenario/scenario_writer.hpp"
#include "tools/commands/cli_checks.hpp"
#include "tools/commands/command.hpp"
#include "tools/commands/default_scenario.hpp"

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

CheckedScenario checked_scenario(const std::string& file, const std::vector<std::string>& overrides) {
  Scenario scenario = load_scenario_or_default(file, overrides);
  const std::optional<CalibrationProfile> profile = load_scenario_profile(scenario);
  ResolvedRun run = resolve(scenario, profile ? &*profile : nullptr);
  return {std::move(scenario), std::move(run)};
}

nlohmann::json resolved_sources_json(const Scenario& scenario, const ResolvedRun& run) {
  nlohmann::json values = nlohmann::json::array();
  for (const SourcedValue& value : sourced_values(scenario, run)) {
    values.push_back({{"what", value.what},
                      {"value", value.value},
                      {"source", std::string(to_string(value.source))},
                      {"note", value.note}});
  }
  nlohmann::json jobs = nlohmann::json::array();
  for (const ResolvedJob& job : run.jobs) {
    nlohmann::json compute = nlohmann::json::array();
    for (const SourcedNote& note : job.compute.resolved.notes) {
      compute.push_back({{"source", std::string(to_string(note.source))}, {"note", note.text}});
    }
    jobs.push_back({{"name", scenario.jobs[job.index].name}, {"compute", compute}});
  }
  return {{"scenario", scenario.name},
          {"values", values},
          {"jobs", jobs},
          {"calibration_profile", scenario.calibration_profile},
          {"calibrated", run.calibrated},
          {"uncalibrated_defaults", run.uncalibrated}};
}

void print_resolved_sources(std::ostream& out, const Scenario& scenario, const ResolvedRun& run) {
  out << "resolved values of " << scenario.name
      << ", each with its source (published, scenario, measured, fitted or uncalibrated):\n";
  for (const SourcedValue& value : sourced_values(scenario, run)) {
    out << "  " << value.what << ": " << value.value << " [" << to_string(value.source) << "]"
        << (value.note.empty() ? "" : " ") << value.note << '\n';
  }
  const auto list = [&out](const std::string& title, const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    out << title << '\n';
    for (const std::string& line : lines) out << "  - " << line << '\n';
  };
  for (const ResolvedJob& job : run.jobs) {
    out << "\ncompute of " << scenario.jobs[job.index].name << " (its uncalibrated values are listed below):\n";
    for (const SourcedNote& note : job.compute.resolved.notes) {
      if (note.source != Source::uncalibrated) out << "  - [" << to_string(note.source) << "] " << note.text << '\n';
    }
  }
  list("\nuncalibrated defaults used (no measurement behind them):", run.uncalibrated);
  list("\ncalibrated from " + scenario.calibration_profile + ":", run.calibrated);
}

void print_resolved_scenario(std::ostream& out, const Scenario& scenario) {
  out << scenario_to_json(scenario).dump(2) << '\n';
}

Command add_check_command(CLI::App& parent) {
  struct Options {
    std::string scenario;
    std::vector<std::string> overrides;
    bool sources = false;
    std::string format = "text";
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
  CLI::Option* sources = app->add_flag(
      "--sources", options->sources,
      "Print the values the run resolves (hardware, links, collectives, the compute model's constants) with where "
      "each came from, instead of the scenario");
  app->add_option("--format", options->format, "with --sources: text or json")
      ->check(CLI::IsMember({"text", "json"}))
      ->needs(sources);
  return {app, [options, allow_mismatch] {
            if (*allow_mismatch) options->overrides.push_back("calibration_allow_mismatch=true");
            const CheckedScenario checked = checked_scenario(options->scenario, options->overrides);
            if (!options->sources) {
              print_resolved_scenario(std::cout, checked.scenario);
            } else if (options->format == "json") {
              std::cout << resolved_sources_json(checked.scenario, checked.run).dump(2) << '\n';
            } else {
              print_resolved_sources(std::cout, checked.scenario, checked.run);
            }
          }};
}

}  // namespace vtsim::tools
