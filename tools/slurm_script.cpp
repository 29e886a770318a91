#include "tools/slurm_script.hpp"

namespace vtsim::tools {

std::string shell_quote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

std::string slurm_array_script(const SlurmArrayJob& job) {
  const std::string count = std::to_string(job.shards);
  const std::string dir = shell_quote(job.out_dir);
  std::string script = "#!/bin/bash\n";
  script += "# Written by `vtsim sweep --emit-slurm`: the sweep " + job.sweep_file + " as a Slurm job array,\n";
  script += "# task i running shard i/" + count + " into " + job.out_dir + "/shard-i.\n";
  script += "#   submit:   sbatch " + dir + "/sweep.sbatch\n";
  script += "#   rerun task 3 only (it resumes where it stopped): sbatch --array=3 " + dir + "/sweep.sbatch\n";
  script += "#   then:     vtsim merge " + dir + "/shard-* --out " + dir + "/merged\n";
  script += "#SBATCH --job-name=" + job.job_name + "\n";
  script += "#SBATCH --array=0-" + std::to_string(job.shards - 1) + "\n";
  script += "#SBATCH --ntasks=1\n";
  script += "#SBATCH --cpus-per-task=" + std::to_string(job.cpus_per_task) + "\n";
  script += "#SBATCH --output=" + job.out_dir + "/slurm-%A_%a.out\n";
  if (!job.partition.empty()) script += "#SBATCH --partition=" + job.partition + "\n";
  if (!job.time_limit.empty()) script += "#SBATCH --time=" + job.time_limit + "\n";
  script += "set -euo pipefail\n";
  script += "shard=${SLURM_ARRAY_TASK_ID:?submit this script with sbatch}\n";
  script += "exec " + shell_quote(job.vtsim) + " sweep " + shell_quote(job.sweep_file) + " --out " + dir +
            "/shard-\"$shard\" --shard \"$shard\"/" + count + " --jobs \"${SLURM_CPUS_PER_TASK:-" +
            std::to_string(job.cpus_per_task) + "}\"";
  for (const std::string& assignment : job.extra_set) script += " --set " + shell_quote(assignment);
  script += "\n";
  return script;
}

}  // namespace vtsim::tools
