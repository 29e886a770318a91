#pragma once
// `vtsim bench [--max-gpus N]`: how fast and how big simulations are, as a table (speed and memory targets are
// checked here, not by timed unit tests).

#include <ostream>

namespace vtsim::tools {

/// Simulates a leaf-spine cluster of 8-GPU A100 hosts training BERT-large at growing sizes, each size at each
/// fidelity that is practical there, every point in its own process, and prints wall time and peak memory.
void bench_command(std::ostream& out, int max_gpus);

}  // namespace vtsim::tools
