#include "tools/commands/shipped_files.hpp"

#include <filesystem>
#include <system_error>

namespace vtsim::tools {

namespace {

namespace fs = std::filesystem;

// The folders find_shipped_file() looks in after the current one.
std::vector<fs::path> shipped_roots() {
  std::vector<fs::path> roots;
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (!error) roots.push_back(executable.parent_path().parent_path() / "share" / "vtsim");
#ifdef VTSIM_SOURCE_DIR
  roots.emplace_back(VTSIM_SOURCE_DIR);
#endif
  return roots;
}

}  // namespace

std::vector<std::string> shipped_file_candidates(std::string_view relative) {
  std::vector<std::string> candidates{std::string(relative)};
  for (const fs::path& root : shipped_roots()) candidates.push_back((root / relative).string());
  return candidates;
}

std::string find_shipped_file(std::string_view relative) {
  for (const std::string& candidate : shipped_file_candidates(relative)) {
    std::error_code error;
    if (fs::is_regular_file(candidate, error)) return candidate;
  }
  return std::string(relative);
}

std::string shipped_file_places(std::string_view relative) {
  std::string places = "here";
  const std::vector<fs::path> roots = shipped_roots();
  for (std::size_t i = 0; i < roots.size(); ++i) {
    places += (i + 1 == roots.size() ? " or in " : ", in ") + roots[i].string();
  }
  return std::string(relative) + " (looked " + places + ")";
}

}  // namespace vtsim::tools
