#include "tools/sweep/sweep_records.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "models/core/error.hpp"
#include "sweep_test_support.hpp"
#include "tests/support/full_disk.hpp"
#include "tools/sweep/sweep_folder.hpp"

namespace vtsim::tools {
namespace {

using testing::TempDir;
using testing::read_text;
using testing::write_text;

const std::vector<std::string> kIds = {"000000000000000a", "000000000000000b", "000000000000000c"};

std::string record_line(std::size_t point, const std::string& outcome) {
  return "{\"point\":" + std::to_string(point) + ",\"id\":\"" + kIds[point] + "\",\"set\":{}," + outcome + "}";
}

TEST(RecordLog, AppendsAndIndexesTheLatestRecordOfEachPoint) {
  const TempDir dir("records");
  const std::string file = dir.path() + "/records.jsonl";
  {
    RecordLog log(file, kIds);
    EXPECT_FALSE(log.records()[0].present());
    log.append({record_line(2, "\"error\":\"x\""), record_line(0, "\"result\":{\"a\":1}")});
    log.append({record_line(2, "\"result\":{\"b\":2}")});  // a failed point, rerun
    EXPECT_EQ(log.read(2), record_line(2, "\"result\":{\"b\":2}"));
  }
  RecordLog reopened(file, kIds);
  EXPECT_TRUE(reopened.records()[0].present());
  EXPECT_FALSE(reopened.records()[1].present());
  EXPECT_FALSE(reopened.records()[2].failed);
  EXPECT_EQ(reopened.read(0), record_line(0, "\"result\":{\"a\":1}"));
  EXPECT_EQ(reopened.read(2), record_line(2, "\"result\":{\"b\":2}"));
}

TEST(RecordLog, ATornLastLineIsIgnoredAndCutBeforeTheNextAppend) {
  const TempDir dir("torn");
  const std::string file = dir.path() + "/records.jsonl";
  const std::string whole = record_line(0, "\"result\":{}") + "\n";
  for (const std::string& torn : {std::string("{\"point\":1,\"id\":\"0000"),    // no newline: cut mid-write
                                  std::string("{\"point\":1,\"id\":\n"),        // a newline but not JSON
                                  std::string(7, '\0')}) {                      // zeros after a crash
    write_text(file, whole + torn);
    {
      RecordLog log(file, kIds);
      EXPECT_TRUE(log.records()[0].present());
      EXPECT_FALSE(log.records()[1].present());
      log.append({record_line(1, "\"result\":{}")});
    }
    EXPECT_EQ(read_text(file), whole + record_line(1, "\"result\":{}") + "\n");
  }
}

TEST(RecordLog, ACorruptLineBeforeTheLastIsAnError) {
  const TempDir dir("corrupt");
  const std::string file = dir.path() + "/records.jsonl";
  write_text(file, record_line(0, "\"result\":{}") + "\nnot json\n" + record_line(1, "\"result\":{}") + "\n");
  try {
    RecordLog log(file, kIds);
    FAIL() << "expected an error";
  } catch (const InputError& error) {
    EXPECT_EQ(std::string(error.what()), file + ": line 2 is not a record of this sweep: the file is corrupt");
  }
}

TEST(RecordLog, ARecordOfAnotherSweepIsAnError) {
  const TempDir dir("other");
  const std::string file = dir.path() + "/records.jsonl";
  write_text(file, "{\"point\":0,\"id\":\"ffffffffffffffff\",\"set\":{},\"result\":{}}\n");
  EXPECT_THROW(RecordLog(file, kIds), InputError);
}

TEST(RecordLog, ASecondWriterIsRefused) {
  const TempDir dir("lock");
  const std::string file = dir.path() + "/records.jsonl";
  RecordLog first(file, kIds);
  try {
    RecordLog second(file, kIds);
    FAIL() << "expected the lock to refuse a second writer";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("another vtsim sweep is writing to this folder"), std::string::npos);
  }
}

TEST(SweepFolder, ResumesTheSameSweepAndShardOnly) {
  const TempDir temp("folder");
  const std::string dir = temp.path() + "/out";
  const SweepManifest manifest{"0123456789abcdef", 10, Shard{1, 2}, {"cluster.racks"}, "s.json"};
  prepare_sweep_folder(dir, manifest);
  EXPECT_EQ(read_manifest(dir).shard.to_string(), "1/2");
  prepare_sweep_folder(dir, manifest);  // the same: fine

  SweepManifest other_sweep = manifest;
  other_sweep.fingerprint = "fedcba9876543210";
  EXPECT_THROW(prepare_sweep_folder(dir, other_sweep), InputError);
  SweepManifest other_shard = manifest;
  other_shard.shard = Shard{0, 2};
  EXPECT_THROW(prepare_sweep_folder(dir, other_shard), InputError);

  const TempDir foreign("foreign");
  write_text(foreign.path() + "/notes.txt", "mine");
  EXPECT_THROW(prepare_sweep_folder(foreign.path(), manifest), InputError);
}

TEST(SweepFolder, ASecondSweepWaitsForTheFirstsManifestInsteadOfCallingTheFolderForeign) {
  // issue 31: two sweeps started into one new folder; the second looked while the first was writing its manifest (a
  // temporary file there, no sweep.json yet) and said "not a vtsim sweep folder". Here the test is the first: it
  // holds the folder's lock with its temporary file in place, then a second process prepares the folder. That one must
  // wait, then find the whole manifest of the same sweep and go on.
  const TempDir temp("race");
  const std::string dir = temp.path() + "/out";
  const SweepManifest manifest{"0123456789abcdef", 10, Shard{0, 1}, {"cluster.racks"}, "s.json"};
  const std::string written = temp.path() + "/written";
  prepare_sweep_folder(written, manifest);  // the manifest the first sweep is about to write
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0);
  const int folder = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(folder, 0);
  ASSERT_EQ(::flock(folder, LOCK_EX), 0);
  write_text(dir + "/sweep.json.tmp-first", "{");
  const pid_t second = ::fork();
  ASSERT_GE(second, 0);
  if (second == 0) {
    ::close(folder);  // the lock belongs to the open folder, which the child shares: not the second sweep's
    try {
      prepare_sweep_folder(dir, manifest);
      ::_exit(0);
    } catch (...) {
      ::_exit(1);
    }
  }
  ::usleep(200 * 1000);  // the second process starts meanwhile (if it did not, the test passes anyway)
  write_text(dir + "/sweep.json", read_text(written + "/sweep.json"));
  ::unlink((dir + "/sweep.json.tmp-first").c_str());
  ::close(folder);  // releases the lock
  int status = 0;
  ASSERT_EQ(::waitpid(second, &status, 0), second);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the second sweep refused the folder the first was preparing";
}

TEST(RecordLog, ALinkedRecordsFileIsRefusedAndItsTargetUntouched) {
  // Issue 31: a sweep folder's records.jsonl planted as a link would have its torn-line repair cut, and its appends
  // land in, the file it points to.
  const TempDir dir("linked");
  const std::string victim = dir.path() + "/victim.txt";
  write_text(victim, "keep\nno newline at the end");
  const std::string file = dir.path() + "/records.jsonl";
  ASSERT_EQ(::symlink(victim.c_str(), file.c_str()), 0);
  try {
    RecordLog log(file, kIds);
    FAIL() << "expected an error";
  } catch (const InputError& error) {
    EXPECT_EQ(std::string(error.what()),
              file + ": is a symbolic link; vtsim writes no output through a link (remove it)");
  }
  EXPECT_EQ(read_text(victim), "keep\nno newline at the end");
}

TEST(RecordLog, AFullDiskIsAnInputErrorNotAnInternalOne) {
  // Issue 31: ENOSPC on records.jsonl exited 3. A child whose files may not grow past 1 KiB (the disk is "full")
  // appends a 2 KiB record.
  const TempDir dir("full");
  const std::string file = dir.path() + "/records.jsonl";
  EXPECT_EQ(test_support::on_a_full_disk([&] {
              RecordLog log(file, kIds);
              log.append({record_line(0, "\"result\":{\"a\":\"" + std::string(2048, 'x') + "\"}")});
            }),
            test_support::FullDiskOutcome::input_error);
}

}  // namespace
}  // namespace vtsim::tools
