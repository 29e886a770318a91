// Sweep file parser (axes, zips, derived expressions); the scenario is inline (a path would read a file).
#include "fuzz/fuzz_targets.hpp"
#include "tools/sweep/sweep_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return vtsim::fuzz::feed(data, size,
                           [](std::string_view text) { vtsim::tools::parse_sweep(text, "fuzz.json", "."); });
}
