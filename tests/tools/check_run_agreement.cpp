// `check_run_agreement FILE|DIR...`: holds `vtsim check` and `vtsim run` to one answer on every scenario given (and
// every file in every folder given), as issue 29 asks: both accept it, or both refuse it with the same line. CTest
// gives it the shipped scenarios and the scenario fuzzer's kept corpus (tests/fuzz/corpus/scenario), most of which
// the loader refuses and some of which run.
//
// Both see the same overrides, which keep each run short: analytic fidelity, one measured iteration of the first job
// (a corpus scenario may ask for 68,760 GPUs or a billion iterations). They are given only where they apply (the
// file, its simulation and its jobs[0] are JSON objects), so that a scenario is refused for what it holds, not for an
// override that cannot be set on it. A run that crashes or runs out of memory after check accepted its scenario is a
// disagreement too.

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz/input_files.hpp"
#include "models/error.hpp"
#include "sim/isolated_run.hpp"
#include "tools/check_command.hpp"
#include "tools/run_command.hpp"

namespace {

/// The overrides that keep the run of `file` short, where they apply to it.
std::vector<std::string> short_run(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const nlohmann::json document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return {};
  std::vector<std::string> overrides;
  const auto simulation = document.find("simulation");
  if (simulation == document.end() || simulation->is_object()) overrides.push_back("simulation.fidelity=analytic");
  const auto jobs = document.find("jobs");
  if (jobs != document.end() && jobs->is_array() && !jobs->empty() && jobs->front().is_object()) {
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
  const std::vector<fs::path> files = vtsim::fuzz::input_files(argc, argv);
  if (files.empty()) {
    std::fprintf(stderr, "check_run_agreement: no scenario files\n");
    return 2;
  }
  int accepted = 0;
  int refused = 0;
  int disagreements = 0;
  for (const fs::path& file : files) {
    const std::string name = file.string();
    const std::vector<std::string> overrides = short_run(file);
    const std::string check = outcome([&] { vtsim::tools::checked_scenario(name, overrides); });
    const std::string run = outcome([&] {
      std::ostringstream discarded;
      vtsim::tools::run_command({.scenario_file = name, .overrides = overrides, .compare = {}, .json = true,
                                 .trace_file = ""},
                                discarded);
    });
    if (check != run) {
      ++disagreements;
      std::printf("%s\n  check: %s\n  run:   %s\n", name.c_str(), check.c_str(), run.c_str());
    } else if (check == "accepted") {
      ++accepted;
    } else {
      ++refused;
    }
  }
  std::printf("%zu scenarios: %d accepted by both, %d refused by both with the same line, %d disagreements\n",
              files.size(), accepted, refused, disagreements);
  return disagreements == 0 ? 0 : 1;
}
