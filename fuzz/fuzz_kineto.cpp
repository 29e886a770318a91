// PyTorch profiler (Kineto) trace reader.
#include "fuzz/fuzz_targets.hpp"
#include "models/traces/kineto_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return vtsim::fuzz::feed(data, size, [](std::string_view text) { vtsim::read_kineto_trace(text, "fuzz.json"); });
}
