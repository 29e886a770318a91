// Chakra execution trace reader (and the PyTorch profiler reader, by content), then the cut of each iteration.
#include "fuzz/fuzz_targets.hpp"
#include "models/traces/chakra_trace.hpp"
#include "models/traces/traced_iteration.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return vtsim::fuzz::feed(data, size, [](std::string_view bytes) {
    const vtsim::ProfiledRun run = vtsim::read_profiled_run(bytes, "fuzz.et");
    for (std::size_t step = 0; step < run.steps.size(); ++step) vtsim::traced_iteration(run, step);
  });
}
