#pragma once
// nccl-tests on a simulated cluster: one collective over a sweep of sizes on a set of the scenario's GPUs, timed
// the way the training loop runs its collectives (NCCL's rings over the real links, its choice of algorithm and
// protocol). One engine per process: call it in a child process (sim/engine/isolated_run.hpp).

#include <string>
#include <vector>

namespace vtsim {
struct ResolvedCollective;
}  // namespace vtsim

namespace vtsim::sim {

/// The nccl-tests operations vtsim simulates.
enum class TestedOp { all_reduce, all_gather, reduce_scatter, broadcast, reduce, sendrecv, alltoall };

/// One size of the sweep.
struct CollectiveTiming {
  double bytes = 0;    ///< nccl-tests' size: the whole buffer
  double time_s = 0;   ///< from the first rank's start to the last rank's end (all start together)
  std::string choice;  ///< NCCL's algorithm and protocol, e.g. "ring/LL128"; "p2p/Simple" for sendrecv and alltoall
};

/// Simulates `op` over `tested`'s ranks (models/resolve/resolve.hpp resolve_collective) for each of `sizes`, one after
/// the other with every rank starting together, at its fidelity. REQUIRES: a running-engine-free process.
std::vector<CollectiveTiming> simulate_collective_sweep(const ResolvedCollective& tested, TestedOp op,
                                                        const std::vector<double>& sizes);

}  // namespace vtsim::sim
