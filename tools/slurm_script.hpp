#pragma once
// The sbatch script of `vtsim sweep SWEEP --out DIR --emit-slurm`: a Slurm job array whose task i runs shard i/N of
// the sweep into DIR/shard-i (each resumable on its own), to be joined by `vtsim merge DIR/shard-* --out ...`.

#include <cstddef>
#include <string>
#include <vector>

namespace vtsim::tools {

/// What the script runs and how Slurm should place it.
struct SlurmArrayJob {
  std::string vtsim;                    ///< absolute path of the vtsim executable
  std::string sweep_file;               ///< absolute path of the sweep file
  std::string out_dir;                  ///< absolute path of DIR; shard i writes DIR/shard-i
  std::vector<std::string> extra_set;   ///< --set assignments passed on to every task
  std::string job_name = "vtsim-sweep"; ///< --job-name
  std::size_t shards = 1;               ///< array tasks (--array=0-(shards-1)), one shard each
  int cpus_per_task = 1;                ///< CPUs per task, and the task's worker processes (--jobs)
  std::string partition;                ///< --partition; "" = the cluster's default partition
  std::string time_limit;               ///< --time, in Slurm's format (e.g. 30, 2:00:00, 1-00:00:00); "" = default
};

/// The script's text.
std::string slurm_array_script(const SlurmArrayJob& job);

/// `text` quoted for a POSIX shell.
std::string shell_quote(const std::string& text);

}  // namespace vtsim::tools
