#pragma once
// The sbatch script of `vtsim sweep SWEEP --out DIR --emit-slurm`: a Slurm job array whose task i runs shard i/N of
// the sweep into DIR/shard-i (each resumable on its own), to be joined by `vtsim merge DIR/shard-* --out ...`.
//
// Nothing from the command line reaches the script unchecked: the partition and time limit must follow Slurm's
// syntax, paths and names are quoted (for bash on command lines, for sbatch on #SBATCH lines) and refused when they
// hold a control character, since a newline would start a command of its own.

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

/// The script's text. Throws InputError when the partition or time limit is malformed (see the checks below) or a
/// path, name or --set assignment holds a control character.
std::string slurm_array_script(const SlurmArrayJob& job);

/// Why `partition` is not a Slurm partition list (names of letters, digits, '_', '-' and '.', separated by commas),
/// or "" when it is one.
std::string slurm_partition_error(const std::string& partition);

/// Why `time_limit` is not in one of sbatch --time's formats (minutes, minutes:seconds, hours:minutes:seconds,
/// days-hours, days-hours:minutes, days-hours:minutes:seconds, UNLIMITED or INFINITE), or "" when it is.
std::string slurm_time_limit_error(const std::string& time_limit);

/// `text` quoted for a POSIX shell: in single quotes, each ' written as '\''.
std::string shell_quote(const std::string& text);

/// `text` quoted for an #SBATCH line, which sbatch splits itself: in single quotes, with a backslash before each
/// backslash and single quote (sbatch honours backslash escapes inside quotes, unlike the shell).
std::string sbatch_quote(const std::string& text);

}  // namespace vtsim::tools
