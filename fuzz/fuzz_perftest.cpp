// perftest (ib_write_bw, ib_send_lat, ...) log importer.
#include "calibrate/perftest_importer.hpp"
#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return vtsim::fuzz::feed(data, size,
                           [](std::string_view text) { vtsim::calibrate::import_perftest(text, "fuzz.log", {}); });
}
