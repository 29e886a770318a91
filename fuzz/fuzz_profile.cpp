// Calibration profile loader, then what the simulator derives from a profile.
#include "fuzz/fuzz_targets.hpp"
#include "models/calibration/calibrated_parameters.hpp"
#include "models/calibration/calibration_profile.hpp"
#include "models/core/json_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return vtsim::fuzz::feed(data, size, [](std::string_view text) {
    const vtsim::CalibrationProfile profile =
        vtsim::parse_calibration_profile(vtsim::parse_json_text(text, "fuzz.json"), "fuzz.json");
    vtsim::calibrated_parameters(profile);
  });
}
