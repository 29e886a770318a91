#pragma once
// The files a corpus replay reads: every FILE given, and every plain file in every DIR given, in name order (the
// replay drivers, fuzz/replay_main.cpp, and the check-against-run test, tests/tools/check_run_agreement.cpp).

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace vtsim::fuzz {

inline std::vector<std::filesystem::path> input_files(const std::vector<std::string>& arguments) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const std::string& argument : arguments) {
    const fs::path path = argument;
    if (fs::is_directory(path)) {
      for (const auto& entry : fs::directory_iterator(path)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
    } else {
      files.push_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace vtsim::fuzz
