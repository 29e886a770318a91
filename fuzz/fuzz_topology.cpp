// `nvidia-smi topo -m` importer.
#include "calibrate/topology_importer.hpp"
#include "fuzz/fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return vtsim::fuzz::feed(data, size,
                           [](std::string_view text) { vtsim::calibrate::import_topology(text, "fuzz.txt"); });
}
