#include "tools/sweep/slurm_script.hpp"

#include <sys/stat.h>

#include <algorithm>

#include <gtest/gtest.h>

#include "models/core/error.hpp"
#include "sweep_test_support.hpp"

namespace vtsim::tools {
namespace {

using testing::read_text;
using testing::run_vtsim;
using testing::TempDir;
using testing::write_text;

TEST(SlurmOptions, PartitionsAreSlurmNamesSeparatedByCommas) {
  for (const char* valid : {"debug", "gpu_a100", "long-q.2", "debug,gpu", "A,b.c,d-e,f_g"}) {
    EXPECT_EQ(slurm_partition_error(valid), "") << valid;
  }
  for (const char* invalid : {"", "debug\ntouch X", "debug;touch X", "a b", "a,,b", ",a", "a,", "$(id)", "a'b"}) {
    EXPECT_NE(slurm_partition_error(invalid), "") << invalid;
  }
  EXPECT_EQ(slurm_partition_error("debug\ntouch X"),
            "'debug\\ntouch X' is not a Slurm partition: expected names of letters, digits, '_', '-' and '.', "
            "separated by commas");
}

TEST(SlurmOptions, TimeLimitsTakeSbatchFormatsOnly) {
  // sbatch(1), --time: the six numeric formats and the two words.
  for (const char* valid : {"30", "0", "30:15", "2:00:00", "1-0", "1-12", "1-12:30", "1-12:30:05", "UNLIMITED",
                            "INFINITE", "unlimited"}) {
    EXPECT_EQ(slurm_time_limit_error(valid), "") << valid;
  }
  for (const char* invalid : {"", "30\necho INJECTED", "1:2:3:4", "1-2:3:4:5", "-1", "1-", "1--2", ":30", "30:",
                              "1:-2", "1.5", "30m", "1-x", "never", " 30"}) {
    EXPECT_NE(slurm_time_limit_error(invalid), "") << invalid;
  }
}

// The script's command line, run by bash with a stand-in vtsim that prints its arguments one per line.
TEST(SlurmScript, QuotesEveryPathSoBashPassesItWhole) {
  const TempDir dir("slurm-quote");
  const std::string odd = dir.path() + "/it's a $HOME `x` \"dir\"";
  ASSERT_EQ(::mkdir(odd.c_str(), 0755), 0);
  const std::string fake = odd + "/fake vtsim";
  write_text(fake, "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n");
  ASSERT_EQ(::chmod(fake.c_str(), 0755), 0);
  SlurmArrayJob job;
  job.vtsim = fake;
  job.sweep_file = odd + "/sweep.json";
  job.out_dir = odd + "/out";
  job.extra_set = {"jobs[0].name=a b;c"};
  job.shards = 2;
  job.partition = "debug,gpu";
  job.time_limit = "1-00:30:00";
  const std::string script = dir.path() + "/sweep.sbatch";
  write_text(script, slurm_array_script(job));
  std::string output;
  ASSERT_EQ(::system(("cd '" + dir.path() + "' && SLURM_ARRAY_TASK_ID=1 SLURM_CPUS_PER_TASK=3 bash sweep.sbatch > args.txt")
                         .c_str()),
            0);
  EXPECT_EQ(read_text(dir.path() + "/args.txt"), "sweep\n" + job.sweep_file + "\n--out\n" + job.out_dir +
                                                     "/shard-1\n--shard\n1/2\n--jobs\n3\n--set\njobs[0].name=a b;c\n");
  // The #SBATCH lines, which sbatch splits itself (backslash escapes inside quotes).
  const std::string text = read_text(script);
  EXPECT_NE(text.find("\n#SBATCH --output='" + dir.path() + "/it\\'s a $HOME `x` \"dir\"/out/slurm-%A_%a.out'\n"),
            std::string::npos);
  EXPECT_NE(text.find("\n#SBATCH --partition=debug,gpu\n#SBATCH --time=1-00:30:00\n"), std::string::npos);
}

TEST(SlurmScript, APercentInTheFolderIsLiteralInTheOutputPattern) {
  // Issue 31: sbatch reads --output as a filename pattern, where %A, %a, %j ... are replaced and %% is a '%'.
  SlurmArrayJob job;
  job.vtsim = "/usr/bin/vtsim";
  job.sweep_file = "/tmp/s.json";
  job.out_dir = "/tmp/100%A";
  EXPECT_NE(slurm_array_script(job).find("\n#SBATCH --output='/tmp/100%%A/slurm-%A_%a.out'\n"), std::string::npos);
}

TEST(SlurmScript, RefusesControlCharactersAndMalformedOptions) {
  SlurmArrayJob job;
  job.vtsim = "/usr/bin/vtsim";
  job.sweep_file = "/tmp/s.json";
  job.out_dir = "/tmp/out";
  const auto error_of = [](const SlurmArrayJob& bad) {
    try {
      slurm_array_script(bad);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  SlurmArrayJob bad = job;
  bad.sweep_file = "/tmp/x\ntouch PWNED\n.json";
  EXPECT_EQ(error_of(bad),
            "the sweep file '/tmp/x\\ntouch PWNED\\n.json' holds a control character; it cannot go into a Slurm script");
  bad = job;
  bad.out_dir = "/tmp/out\rx";
  EXPECT_NE(error_of(bad).find("the output folder"), std::string::npos);
  bad = job;
  bad.job_name = "vtsim-\x1b[2J";
  EXPECT_NE(error_of(bad).find("the job name"), std::string::npos);
  bad = job;
  bad.partition = "debug\ntouch X";
  EXPECT_EQ(error_of(bad).rfind("--partition: 'debug\\ntouch X' is not a Slurm partition", 0), 0u);
  bad = job;
  bad.time_limit = "30\necho INJECTED";
  EXPECT_EQ(error_of(bad).rfind("--time-limit: '30\\necho INJECTED' is not a Slurm time limit", 0), 0u);
}

// On the command line a malformed --partition or --time-limit is a usage error (exit status 2) and writes nothing.
TEST(SlurmScript, MalformedOptionsExitTwoAndWriteNothing) {
  const TempDir dir("slurm-cli");
  const std::string sweep = std::string(VTSIM_SOURCE_DIR) + "/tests/tools/small_sweep.json";
  std::string output;
  const std::string log = dir.path() + "/log.txt";
  EXPECT_EQ(run_vtsim({"sweep", sweep, "--out", dir.path() + "/a", "--emit-slurm", "--partition", "debug\ntouch X"},
                      output, log),
            2);
  EXPECT_EQ(output,
            "vtsim: --partition: 'debug\\ntouch X' is not a Slurm partition: expected names of letters, digits, '_', "
            "'-' and '.', separated by commas (see --help)\n");
  EXPECT_EQ(run_vtsim({"sweep", sweep, "--out", dir.path() + "/b", "--emit-slurm", "--time-limit", "30\necho INJECTED"},
                      output, log),
            2);
  EXPECT_EQ(output.rfind("vtsim: --time-limit: '30\\necho INJECTED' is not a Slurm time limit: expected minutes, ", 0), 0u)
      << output;
  EXPECT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/a"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/b"));
  // A sweep file whose name holds a newline: refused as bad input, nothing written.
  const std::string odd_sweep = dir.path() + "/x\ntouch PWNED\n.json";
  write_text(odd_sweep, "{\"scenario\": \"" + std::string(VTSIM_SOURCE_DIR) +
                            "/scenarios/t4-pvrdma-horovod.json\", \"axes\": [{\"grid\": {\"cluster.hosts_per_rack\": [1, 2]}}]}");
  EXPECT_EQ(run_vtsim({"sweep", odd_sweep, "--out", dir.path() + "/c", "--emit-slurm"}, output, log), 1);
  EXPECT_NE(output.find("the sweep file '" + dir.path() + "/x\\ntouch PWNED\\n.json' holds a control character"),
            std::string::npos)
      << output;
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/c"));
}

}  // namespace
}  // namespace vtsim::tools
