// Where vtsim finds the files it ships (tools/commands/shipped_files.hpp): here, the installed share folder beside the
// executable, then the source tree.

#include "tools/commands/shipped_files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace vtsim::tools {
namespace {

namespace fs = std::filesystem;

// Runs `action` with `folder` as the current folder, and goes back.
template <typename Action>
void in_folder(const fs::path& folder, Action action) {
  const fs::path before = fs::current_path();
  fs::current_path(folder);
  action();
  fs::current_path(before);
}

TEST(ShippedFiles, AreLookedForHereThenBesideTheExecutableThenInTheSourceTree) {
  const std::vector<std::string> candidates = shipped_file_candidates("scenarios/validation/table.json");
  ASSERT_EQ(candidates.size(), 3u);
  EXPECT_EQ(candidates[0], "scenarios/validation/table.json");
  // This test's executable is build/tests/sweep_tests: its share folder is build/share/vtsim.
  const fs::path executable = fs::read_symlink("/proc/self/exe");
  EXPECT_EQ(candidates[1],
            (executable.parent_path().parent_path() / "share/vtsim/scenarios/validation/table.json").string());
  EXPECT_EQ(candidates[2], std::string(VTSIM_SOURCE_DIR) + "/scenarios/validation/table.json");
}

TEST(ShippedFiles, FromAnotherFolderTheSourceTreesTableIsFound) {
  const fs::path elsewhere = fs::temp_directory_path() / ("vtsim-shipped-" + std::to_string(::getpid()));
  fs::create_directories(elsewhere);
  in_folder(elsewhere, [] {
    EXPECT_EQ(find_shipped_file("scenarios/validation/table.json"),
              std::string(VTSIM_SOURCE_DIR) + "/scenarios/validation/table.json");
    // Nothing anywhere: the name as given, so that opening it fails with the usual message.
    EXPECT_EQ(find_shipped_file("scenarios/no-such-file.json"), "scenarios/no-such-file.json");
    EXPECT_NE(shipped_file_places("scenarios/no-such-file.json").find(std::string(VTSIM_SOURCE_DIR)),
              std::string::npos);
  });
  fs::remove_all(elsewhere);
}

TEST(ShippedFiles, HereComesFirst) {
  const fs::path here = fs::temp_directory_path() / ("vtsim-shipped-here-" + std::to_string(::getpid()));
  fs::create_directories(here / "scenarios/validation");
  { std::ofstream(here / "scenarios/validation/table.json") << "{}"; }
  in_folder(here, [] {
    EXPECT_EQ(find_shipped_file("scenarios/validation/table.json"), "scenarios/validation/table.json");
  });
  fs::remove_all(here);
}

}  // namespace
}  // namespace vtsim::tools
