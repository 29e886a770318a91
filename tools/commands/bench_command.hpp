#pragma once
// `vtsim bench [--min-gpus N] [--max-gpus N] [--fidelity F ...] [--repeat K] [--iterations I] [--sweep-points P]
// [--format json]`:
// how fast and how big simulations are (speed and memory targets are checked here, not by timed unit tests;
// README.md, "Performance").

#include <ostream>
#include <string>
#include <vector>

namespace vtsim::tools {

/// What to measure.
struct BenchRequest {
  /// Smallest cluster: the sizes are 16, 64, 256, 1,024, 4,096, 16,384, 65,536 GPUs from this one. Default 16.
  int min_gpus = 16;
  /// Largest cluster: sizes up to this one. Default 1,024.
  int max_gpus = 1024;
  /// Fidelities to measure, among step, flow and analytic (step only up to 1,024 GPUs). Default all three.
  std::vector<std::string> fidelities = {"step", "flow", "analytic"};
  /// Runs per point; the best wall time and the smallest peak memory are reported. Default 1.
  int repeat = 1;
  /// Training iterations of each point. Default 1; the 4,096-GPU target is for 20.
  int iterations = 1;
  /// Points of the sweep benchmark (64 to 1,024 GPUs, the default workers); 0 skips it. Default 0.
  int sweep_points = 0;
  /// "table" or "json".
  std::string format = "table";
};

/// `iterations` of BERT-large pre-training (PyTorch issuing the kernels, Horovod's hierarchical allreduce) on 8-GPU
/// A100 hosts, 32 per rack on a RoCE v2 leaf-spine, at each size and fidelity that is practical there, every point
/// in its own process: wall time and peak memory, simulated step time and communications; at step fidelity the
/// communications per second; flow against step where both run; the sweep benchmark if asked. Rows are printed as
/// they are measured (table), or one JSON document at the end.
void bench_command(std::ostream& out, const BenchRequest& request);

}  // namespace vtsim::tools
