// Horovod timeline importer.
#include "calibrate/horovod_timeline_importer.hpp"
#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return vtsim::fuzz::feed(data, size,
                           [](std::string_view text) { vtsim::calibrate::import_horovod_timeline(text, "fuzz.json"); });
}
