#pragma once
// `vtsim check [SCENARIO] [--set PATH=VALUE ...] [--sources [--format text|json]]`: validate a scenario and print it
// with every default filled in, or print what a run of it resolves, each value with its source.

#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "models/resolve/resolve.hpp"
#include "models/scenario/scenario.hpp"

namespace vtsim::tools {

/// Refuses an empty SCENARIO argument (`vtsim run ""`), which would otherwise mean the built-in default.
CLI::Validator non_empty_scenario_file();

/// Loads SCENARIO (or the built-in default when `file` is empty) with the overrides applied. Throws InputError.
Scenario load_scenario_or_default(const std::string& file, const std::vector<std::string>& overrides);

/// A loaded scenario and what resolving it gave.
struct CheckedScenario {
  Scenario scenario;
  ResolvedRun run;
};

/// What `vtsim check` does before it prints: loads the scenario as load_scenario_or_default does, then resolves it
/// (resolve: each job's compute plan and memory fit, the topology, rings, layouts and NCCL communicators), which
/// refuses what `vtsim run` would refuse before it simulates. Throws InputError with the line run would give.
CheckedScenario checked_scenario(const std::string& file, const std::vector<std::string>& overrides);

/// Prints the resolved scenario as JSON.
void print_resolved_scenario(std::ostream& out, const Scenario& scenario);

/// `vtsim check --sources --format json`: the run's resolved values and each job's compute notes with their sources,
/// and the calibrated and uncalibrated lists a result of the run would give.
nlohmann::json resolved_sources_json(const Scenario& scenario, const ResolvedRun& run);

/// `vtsim check --sources`: the same as text.
void print_resolved_sources(std::ostream& out, const Scenario& scenario, const ResolvedRun& run);

}  // namespace vtsim::tools
