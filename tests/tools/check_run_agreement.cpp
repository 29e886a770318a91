// `check_run_agreement SHIPPED... -- FILE|DIR...`: holds `vtsim check` and `vtsim run` to one answer on every scenario
// given (and every file in every folder given), as issue 29 asks: both accept it, or both refuse it with the same
// line. The SHIPPED ones, before `--`, must be accepted. CTest gives it the shipped scenarios, then the scenario
// fuzzer's kept corpus (tests/fuzz/corpus/scenario), most of which the loader refuses and some of which run; it fails
// too when no scenario gets past loading to be refused by what run plans, a comparison that would test nothing.
//
// Both see the same overrides, which keep each run short: analytic fidelity, one measured iteration of the first job
// (a corpus scenario may ask for 68,760 GPUs or a billion iterations). They are given only where they apply (the
// file, its simulation and its jobs[0] are JSON objects; a scenario with events keeps its iterations), so that a
// scenario is refused for what it holds, not for an override. A run that crashes or runs out of memory after check
// accepted its scenario is a disagreement too.

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/input_files.hpp"
#include "models/core/error.hpp"
#include "models/core/input_file.hpp"
#include "sim/engine/isolated_run.hpp"
#include "tools/commands/check_command.hpp"
#include "tools/commands/run_command.hpp"

namespace {

/// The overrides that keep the run of `file` short, where they apply to it.
std::vector<std::string> short_run(const std::filesystem::path& file) {
  std::string text;
  try {
    text = vtsim::read_input_file(file.string());
  } catch (const vtsim::InputError&) {
    return {};  // both commands refuse it, reading it the same way
  }
  const nlohmann::json document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return {};
  std::vector<std::string> overrides;
  const auto simulation = document.find("simulation");
  if (simulation == document.end() || simulation->is_object()) overrides.push_back("simulation.fidelity=analytic");
  // A scenario with events keeps its iterations: its events come at set ones (and it runs in well under a second).
  const auto jobs = document.find("jobs");
  const auto events = document.find("events");
  const bool has_events = events != document.end() && !(events->is_array() && events->empty());
  if (!has_events && jobs != document.end() && jobs->is_array() && !jobs->empty() && jobs->front().is_object()) {
    overrides.insert(overrides.end(), {"jobs[0].iterations=1", "jobs[0].warmup_iterations=0"});
  }
  return overrides;
}

/// "accepted", or what the command refused or failed with.
template <typename Command>
std::string outcome(Command command) {
  try {
    command();
    return "accepted";
  } catch (const vtsim::InputError& error) {
    return std::string("refused: ") + error.what();
  } catch (const vtsim::sim::OutOfMemory& error) {
    return std::string("out of memory: ") + error.what();
  } catch (const std::exception& error) {
    return std::string("failed: ") + error.what();
  }
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  const std::vector<std::string> arguments(argv + 1, argv + argc);
  const auto separator = std::find(arguments.begin(), arguments.end(), std::string("--"));
  const std::vector<fs::path> shipped = vtsim::fuzz::input_files({arguments.begin(), separator});
  const std::vector<fs::path> others =
      vtsim::fuzz::input_files({separator == arguments.end() ? separator : separator + 1, arguments.end()});
  if (shipped.empty() && others.empty()) {
    std::fprintf(stderr, "usage: check_run_agreement SHIPPED... -- FILE|DIR...\n");
    return 2;
  }
  int accepted = 0;
  int refused_loading = 0;
  int refused_planning = 0;
  int failures = 0;
  const auto compare = [&](const fs::path& file, bool must_accept) {
    const std::string name = file.string();
    const std::vector<std::string> overrides = short_run(file);
    const std::string loaded = outcome([&] { vtsim::tools::load_scenario_or_default(name, overrides); });
    const std::string check = outcome([&] { vtsim::tools::checked_scenario(name, overrides); });
    const std::string run = outcome([&] {
      std::ostringstream discarded;
      vtsim::tools::run_command({.scenario_file = name, .overrides = overrides, .compare = {}, .json = true,
                                 .trace_file = ""},
                                discarded);
    });
    if (check != run || (must_accept && check != "accepted")) {
      ++failures;
      std::printf("%s%s\n  check: %s\n  run:   %s\n", name.c_str(), must_accept ? " (shipped)" : "", check.c_str(),
                  run.c_str());
    } else if (check == "accepted") {
      ++accepted;
    } else if (loaded != "accepted") {
      ++refused_loading;
    } else {
      ++refused_planning;
    }
  };
  for (const fs::path& file : shipped) compare(file, true);
  for (const fs::path& file : others) compare(file, false);
  std::printf("%zu scenarios (%zu shipped): %d accepted by both; refused by both with the same line, %d when loading "
              "and %d by what run plans before it simulates; %d failures\n",
              shipped.size() + others.size(), shipped.size(), accepted, refused_loading, refused_planning, failures);
  // A comparison that never reaches the planning (every file refused while loading, say by an override) tests nothing.
  if (accepted == 0 || refused_planning == 0) {
    std::printf("no scenario was accepted, or none was refused by the planning: the comparison reached nothing\n");
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
