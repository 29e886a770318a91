#pragma once
// `vtsim sweep SWEEP.json --out DIR [--jobs N] [--shard i/N] [--set PATH=VALUE ...] [--retry-failed]`
// `vtsim sweep SWEEP.json --out DIR --emit-slurm [--shards N] [--partition P] [--time-limit T] [--jobs N]`
// `vtsim sweep SWEEP.json --list`

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace vtsim::tools {

/// What `vtsim sweep` was asked for.
struct SweepRequest {
  std::string sweep_file;
  std::string out_dir;                 ///< required unless `list`
  int jobs = 0;                        ///< worker processes; 0 = the CPUs this process may use
  std::string shard;                   ///< "i/N"; "" = the whole sweep
  std::vector<std::string> extra_set;  ///< applied after the sweep file's "set" (part of the sweep's fingerprint)
  bool retry_failed = false;           ///< rerun points recorded as failed
  bool list = false;                   ///< print the points, run nothing
  bool progress = false;               ///< draw a progress line (on a terminal)
  bool emit_slurm = false;             ///< write DIR/sweep.sbatch, run nothing
  std::size_t shards = 0;              ///< array tasks for --emit-slurm; 0 = min(8, points)
  std::string partition;               ///< for --emit-slurm
  std::string time_limit;              ///< for --emit-slurm
};

/// What a sweep run did.
struct SweepSummary {
  std::size_t points = 0;         ///< points in this shard
  std::size_t already_done = 0;   ///< recorded before this run
  std::size_t ran = 0;            ///< run now
  std::size_t failed = 0;         ///< rows with an error, in the outputs
  std::string first_error;
};

/// Runs the sweep (or lists it, or writes its Slurm script) and prints a summary line. Throws InputError on bad
/// input, and when every point of the shard failed (after writing the outputs).
SweepSummary sweep_command(const SweepRequest& request, std::ostream& out);

}  // namespace vtsim::tools
