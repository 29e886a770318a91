#pragma once
// `vtsim run [SCENARIO] [--set PATH=VALUE ...] [--compare PATH=VALUE ...] [--format table|json] [--trace FILE]`

#include <ostream>
#include <string>
#include <vector>

namespace vtsim::tools {

/// What `vtsim run` was asked for.
struct RunRequest {
  std::string scenario_file;               ///< "" = the built-in default scenario
  std::vector<std::string> overrides;      ///< applied to the scenario and to every variant
  std::vector<std::string> compare;        ///< each one more variant, run side by side: the scenario with this override
  bool json = false;                       ///< JSON instead of the table
  std::string trace_file;                  ///< Chrome trace of the scenario as given; "" = none
};

/// Runs the scenario (and its variants, each in its own process) and prints the result. Throws InputError.
/// With no scenario file and no --compare, the default scenario is compared with NVLink disabled.
/// Where `vtsim run --trace FILE` writes the timeline of its `variant`-th --compare variant (from 1): FILE's name with
/// ".variantN" before its extension ("t.json" -> "t.variant1.json"); "" without a trace.
std::string variant_trace_file(const std::string& trace_file, std::size_t variant);

void run_command(const RunRequest& request, std::ostream& out);

}  // namespace vtsim::tools
