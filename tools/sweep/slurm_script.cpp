#include "tools/sweep/slurm_script.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "models/core/control_characters.hpp"
#include "models/core/error.hpp"

namespace vtsim::tools {
namespace {

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

// The number of ':'-separated fields of `text` when each is a non-empty run of digits, else 0.
std::size_t digit_fields(std::string_view text) {
  std::size_t fields = 0;
  while (true) {
    const std::size_t colon = text.find(':');
    if (!all_digits(text.substr(0, colon))) return 0;
    ++fields;
    if (colon == std::string_view::npos) return fields;
    text.remove_prefix(colon + 1);
  }
}

bool equals_ignoring_case(std::string_view text, std::string_view word) {
  return text.size() == word.size() && std::equal(text.begin(), text.end(), word.begin(), [](char a, char b) {
           return std::toupper(static_cast<unsigned char>(a)) == b;
         });
}

// Refuses text that would break out of its line in the script.
void check_one_line(const std::string& what, const std::string& text) {
  if (has_control_character(text)) {
    throw InputError(what + " '" + printable(text) + "' holds a control character; it cannot go into a Slurm script");
  }
}

}  // namespace

std::string slurm_partition_error(const std::string& partition) {
  // Slurm's partition names (slurm.conf PartitionName); sbatch --partition takes a comma-separated list of them.
  bool valid = !partition.empty() && partition.front() != ',' && partition.back() != ',' &&
               partition.find(",,") == std::string::npos;
  for (const char c : partition) {
    valid = valid && (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.' || c == ',');
  }
  if (valid) return "";
  const std::string shown = printable(partition);
  return "'" + shown +
         "' is not a Slurm partition: expected names of letters, digits, '_', '-' and '.', separated by commas";
}

std::string slurm_time_limit_error(const std::string& time_limit) {
  // sbatch --time: "minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours", "days-hours:minutes",
  // "days-hours:minutes:seconds", or UNLIMITED / INFINITE (sbatch(1)).
  const std::size_t dash = time_limit.find('-');
  bool valid = false;
  if (equals_ignoring_case(time_limit, "UNLIMITED") || equals_ignoring_case(time_limit, "INFINITE")) {
    valid = true;
  } else if (dash == std::string::npos) {
    const std::size_t fields = digit_fields(time_limit);
    valid = fields >= 1 && fields <= 3;
  } else {
    const std::size_t fields = digit_fields(std::string_view(time_limit).substr(dash + 1));
    valid = all_digits(std::string_view(time_limit).substr(0, dash)) && fields >= 1 && fields <= 3;
  }
  if (valid) return "";
  const std::string shown = printable(time_limit);
  return "'" + shown +
         "' is not a Slurm time limit: expected minutes, minutes:seconds, hours:minutes:seconds, days-hours, "
         "days-hours:minutes, days-hours:minutes:seconds, UNLIMITED or INFINITE";
}

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

std::string sbatch_quote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) {
    if (c == '\\' || c == '\'') quoted += '\\';
    quoted += c;
  }
  return quoted + "'";
}

namespace {

// `text` as a literal part of an sbatch filename pattern: a '%' there starts a replacement symbol (%A, %a, %j ...)
// unless doubled (sbatch(1), "filename pattern": "%% The character \"%\"").
std::string literal_in_filename_pattern(const std::string& text) {
  std::string literal;
  for (const char c : text) {
    literal += c;
    if (c == '%') literal += '%';
  }
  return literal;
}

}  // namespace

std::string slurm_array_script(const SlurmArrayJob& job) {
  check_one_line("the vtsim executable", job.vtsim);
  check_one_line("the sweep file", job.sweep_file);
  check_one_line("the output folder", job.out_dir);
  check_one_line("the job name", job.job_name);
  for (const std::string& assignment : job.extra_set) check_one_line("--set", assignment);
  if (!job.partition.empty()) {
    if (const std::string error = slurm_partition_error(job.partition); !error.empty()) {
      throw InputError("--partition: " + error);
    }
  }
  if (!job.time_limit.empty()) {
    if (const std::string error = slurm_time_limit_error(job.time_limit); !error.empty()) {
      throw InputError("--time-limit: " + error);
    }
  }

  const std::string count = std::to_string(job.shards);
  const std::string dir = shell_quote(job.out_dir);
  std::string script = "#!/bin/bash\n";
  script += "# Written by `vtsim sweep --emit-slurm`: the sweep " + shell_quote(job.sweep_file) +
            " as a Slurm job array,\n";
  script += "# task i running shard i/" + count + " into " + dir + "/shard-i.\n";
  script += "#   submit:   sbatch " + dir + "/sweep.sbatch\n";
  script += "#   rerun task 3 only (it resumes where it stopped): sbatch --array=3 " + dir + "/sweep.sbatch\n";
  script += "#   then:     vtsim merge " + dir + "/shard-* --out " + dir + "/merged\n";
  script += "#SBATCH --job-name=" + sbatch_quote(job.job_name) + "\n";
  script += "#SBATCH --array=0-" + std::to_string(job.shards - 1) + "\n";
  script += "#SBATCH --ntasks=1\n";
  script += "#SBATCH --cpus-per-task=" + std::to_string(job.cpus_per_task) + "\n";
  script += "#SBATCH --output=" + sbatch_quote(literal_in_filename_pattern(job.out_dir) + "/slurm-%A_%a.out") + "\n";
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
