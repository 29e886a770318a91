// Output files are written whole or not at all (issue 11, item 12): a failed write keeps the old content and leaves no
// temporary behind; a device is written in place, never replaced; an output that is one of the inputs is refused.

#include "models/core/atomic_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "models/core/error.hpp"
#include "tests/support/full_disk.hpp"

namespace vtsim {
namespace {

namespace fs = std::filesystem;

struct Folder {
  fs::path path;
  Folder() {
    char name[] = "/tmp/vtsim-atomic-XXXXXX";
    path = ::mkdtemp(name);
  }
  ~Folder() { fs::remove_all(path); }
};

std::string contents(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(AtomicFile, ReplacesTheContentWhole) {
  const Folder folder;
  const fs::path file = folder.path / "out.json";
  write_file_atomically(file, "old\n");
  write_file_atomically(file, "new\n");
  EXPECT_EQ(contents(file), "new\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(folder.path), fs::directory_iterator()), 1);
}

TEST(AtomicFile, AFailedWriteKeepsTheOldContentAndNoTemporary) {
  // A child whose files may not grow past 1 KiB (the disk is "full"): writing 1 MiB fails.
  const Folder folder;
  const fs::path file = folder.path / "profile.json";
  write_file_atomically(file, "good profile\n");
  EXPECT_EQ(test_support::on_a_full_disk([&] { write_file_atomically(file, std::string(1 << 20, 'x')); }),
            test_support::FullDiskOutcome::input_error)
      << "the failed write was not an InputError";
  EXPECT_EQ(contents(file), "good profile\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(folder.path), fs::directory_iterator()), 1);
}

TEST(AtomicFile, ADeviceIsWrittenInPlaceNotReplaced) {
  write_file_atomically("/dev/null", "discarded\n");
  struct stat device {};
  ASSERT_EQ(::stat("/dev/null", &device), 0);
  EXPECT_TRUE(S_ISCHR(device.st_mode));
  EXPECT_THROW(write_file_atomically("/dev/full", "x"), InputError);
  ASSERT_EQ(::stat("/dev/full", &device), 0);
  EXPECT_TRUE(S_ISCHR(device.st_mode));
}

TEST(AtomicFile, AnOutputThatIsAnInputIsRefused) {
  const Folder folder;
  const fs::path scenario = folder.path / "s.json";
  write_file_atomically(scenario, "{}\n");
  const std::string same = (folder.path / "." / "s.json").string();
  try {
    refuse_overwriting_inputs(same, {"other.json", scenario.string()}, "--trace");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& error) {
    EXPECT_EQ(std::string(error.what()), same + ": --trace would overwrite the input " + scenario.string());
  }
  EXPECT_NO_THROW(refuse_overwriting_inputs((folder.path / "trace.json").string(), {scenario.string()}, "--trace"));
}

// Issue 31: an output is never written through a symbolic link planted where it goes.
TEST(AtomicFile, ALinkToAFileIsRefusedAndTheFileItPointsToIsUntouched) {
  const Folder folder;
  const fs::path victim = folder.path / "victim.txt";
  std::ofstream(victim) << "keep";
  const fs::path output = folder.path / "result.json";
  fs::create_symlink(victim, output);
  try {
    write_file_atomically(output.string(), "overwritten");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(std::string(error.what()), output.string() + ": is a symbolic link; vtsim writes no output through a "
                                                           "link (remove it, or name the file it points to)");
  }
  EXPECT_EQ(contents(victim), "keep");
  EXPECT_TRUE(fs::is_symlink(output));
}

TEST(AtomicFile, ALinkToADeviceIsWrittenThrough) {
  // /dev/stdout is such a link; a device is written in place.
  const Folder folder;
  const fs::path output = folder.path / "null";
  fs::create_symlink("/dev/null", output);
  write_file_atomically(output.string(), "discarded");
  EXPECT_TRUE(fs::is_symlink(output));
}

TEST(AtomicFile, ALinkPlantedUnderTheTemporarysNameIsRemovedNotFollowed) {
  const Folder folder;
  const fs::path victim = folder.path / "victim.txt";
  std::ofstream(victim) << "keep";
  const fs::path output = folder.path / "result.json";
  fs::create_symlink(victim, output.string() + ".tmp-" + std::to_string(::getpid()));
  write_file_atomically(output.string(), "new");
  EXPECT_EQ(contents(output), "new");
  EXPECT_EQ(contents(victim), "keep");
}

}  // namespace
}  // namespace vtsim
