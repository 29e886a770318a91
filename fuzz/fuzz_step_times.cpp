// Step-time log importer (CSV, JSON lines, DLLogger).
#include "calibrate/step_times_importer.hpp"
#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return vtsim::fuzz::feed(data, size,
                           [](std::string_view text) { vtsim::calibrate::import_step_times(text, "fuzz.log", 0); });
}
