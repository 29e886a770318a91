#pragma once
// Helpers for the sweep tests: temporary folders, files, and running the vtsim executable in a child process.

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace vtsim::tools::testing {

/// A new empty folder under the test temporary folder, named after `name`, removed with everything in it at the end
/// of its scope.
class TempDir {
 public:
  explicit TempDir(const std::string& name) : path_(::testing::TempDir() + "vtsim-" + name + "-XXXXXX") {
    if (::mkdtemp(path_.data()) == nullptr) ADD_FAILURE() << "mkdtemp " << path_;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  /// The folder.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Writes `text` to `file`.
inline void write_text(const std::string& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
}

/// The content of `file`, "" when absent.
inline std::string read_text(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The number of "\n" in `file`.
inline std::size_t count_lines(const std::string& file) {
  const std::string text = read_text(file);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

/// Starts the vtsim executable with `args`, its standard output and error into `log_file`. Returns its pid.
inline pid_t start_vtsim(const std::vector<std::string>& args, const std::string& log_file) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int log = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(log, STDOUT_FILENO);
    ::dup2(log, STDERR_FILENO);
    std::vector<std::string> words = {VTSIM_EXE};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

/// Waits for `pid` and returns its exit status (128 + signal when killed).
inline int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// Runs vtsim with `args` to the end; returns its exit status and puts its output in `output`.
inline int run_vtsim(const std::vector<std::string>& args, std::string& output, const std::string& log_file) {
  const int code = wait_exit(start_vtsim(args, log_file));
  output = read_text(log_file);
  return code;
}

}  // namespace vtsim::tools::testing
