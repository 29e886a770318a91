#pragma once
// `vtsim check [SCENARIO] [--set PATH=VALUE ...]`: validate a scenario and print it with every default filled in.

#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "models/scenario.hpp"

namespace vtsim::tools {

/// Refuses an empty SCENARIO argument (`vtsim run ""`), which would otherwise mean the built-in default.
CLI::Validator non_empty_scenario_file();

/// Loads SCENARIO (or the built-in default when `file` is empty) with the overrides applied. Throws InputError.
Scenario load_scenario_or_default(const std::string& file, const std::vector<std::string>& overrides);

/// What `vtsim check` does before it prints: loads the scenario as load_scenario_or_default does, then refuses what
/// `vtsim run` would refuse before it simulates (sim::check_runs: each job's compute plan and memory fit, the
/// topology, rings, layouts and NCCL communicators). Throws InputError with the line run would give.
Scenario checked_scenario(const std::string& file, const std::vector<std::string>& overrides);

/// Prints the resolved scenario as JSON.
void print_resolved_scenario(std::ostream& out, const Scenario& scenario);

}  // namespace vtsim::tools
