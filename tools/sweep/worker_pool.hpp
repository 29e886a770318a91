#pragma once
// A pool of forked worker processes that run numbered tasks, one at a time each, and send back one line of text per
// task. Sweeps run their points through it: each point in a worker (which itself forks the simulation, since
// SimGrid allows one engine per process), while this process alone writes the records.
//
// Workers die with this process (PR_SET_PDEATHSIG), so a killed sweep leaves no worker that could write later.

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace vtsim::tools {

/// What the pool runs and where its answers go.
struct WorkerPoolTasks {
  /// Runs in a worker: the answer to task `index`, one line without a newline. Must not throw.
  std::function<std::string(std::size_t index)> work;
  /// Runs here when a worker died during task `index`: the answer to record instead; `why` says how it died.
  std::function<std::string(std::size_t index, const std::string& why)> on_worker_death;
  /// Runs here with the answers that arrived together, (task index, line), in arrival order.
  std::function<void(const std::vector<std::pair<std::size_t, std::string>>& answers)> on_answers;
  /// Runs here about once a second while no answer comes (a progress line's clock: a point may take minutes); may be
  /// empty.
  std::function<void()> on_tick;
  /// File descriptors that workers close first (e.g. a locked file only this process may write).
  std::vector<int> close_in_workers;
};

/// Runs every task in `indices` in up to `workers` processes, and returns when all have answered.
/// Throws std::runtime_error when processes cannot be made; whatever on_answers throws ends the pool (its workers
/// are killed) and propagates.
void run_worker_pool(const std::vector<std::size_t>& indices, int workers, const WorkerPoolTasks& tasks);

/// The number of CPUs this process may run on (its affinity mask; what Slurm or taskset gave it).
int available_cpus();

}  // namespace vtsim::tools
