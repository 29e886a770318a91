// Scenario loader, then the calibration profile it names applied and the compute planning a run does before any
// simulation (memory fit, kernel times).
#include "fuzz/fuzz_targets.hpp"
#include "models/core/json_reader.hpp"
#include "models/resolve/job_compute_plan.hpp"
#include "models/resolve/scenario_calibration.hpp"
#include "models/scenario/scenario_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return vtsim::fuzz::feed(data, size, [](std::string_view text) {
    const vtsim::Scenario scenario = vtsim::load_scenario(vtsim::parse_json_text(text, "fuzz.json"), "fuzz.json", ".");
    const vtsim::CalibratedParameters calibration = vtsim::load_scenario_calibration(scenario);
    for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
      if (!scenario.jobs[j].idle) vtsim::plan_job_compute(scenario, j, calibration);
    }
  });
}
