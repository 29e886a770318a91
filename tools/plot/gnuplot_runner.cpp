#include "tools/plot/gnuplot_runner.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "models/core/atomic_file.hpp"
#include "models/core/control_characters.hpp"
#include "models/core/error.hpp"

extern char** environ;

namespace vtsim::tools {
namespace {

// The first line of `text` that holds `word` (any case), trimmed; "" when none does.
std::string line_with(const std::string& text, const std::string& word) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  const std::size_t at = lower.find(word);
  if (at == std::string::npos) return "";
  const std::size_t begin = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  const std::size_t end = std::min(text.find('\n', at), text.size());
  std::string line = text.substr(begin, end - begin);
  line.erase(0, std::min(line.find_first_not_of(" \t"), line.size()));
  return printable(line);
}

// Runs `command` in `dir` with its standard error in `log` (a file name in `dir`). A run that fails, or that warns
// (gnuplot draws on after "Terminal canvas area too small", "difficulty fitting plot titles into key": a plot that
// cannot be read), is an error naming the script and gnuplot's line.
void run_in(const std::string& dir, const std::vector<std::string>& command, const std::string& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW,
                                   0644);
  std::vector<char*> argv;
  for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int error = ::posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error == ENOENT || error == EACCES) {
    throw InputError("gnuplot not found (\"" + command[0] + "\"): vtsim plot draws through it; install it (Debian: "
                     "apt-get install gnuplot-nox; tools/setup.sh does) or name it with --gnuplot PATH");
  }
  if (error != 0) throw std::runtime_error("cannot run " + command[0] + ": " + std::strerror(error));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string script = (std::filesystem::path(dir) / command.back()).string();
  std::string messages;
  {
    std::ifstream in(std::filesystem::path(dir) / log);
    messages.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    const std::string said = line_with(messages, "line ");
    throw std::runtime_error(command[0] + " failed on " + script +
                             (WIFEXITED(status) ? " (exit status " + std::to_string(WEXITSTATUS(status)) + ")"
                                                : " (signal " + std::to_string(WTERMSIG(status)) + ")") +
                             (said.empty() ? "" : ": " + said));
  }
  if (const std::string warning = line_with(messages, "warning"); !warning.empty()) {
    throw InputError(script + ": gnuplot warned, so the plot would not be readable: " + warning + " (all of it in " +
                     (std::filesystem::path(dir) / log).string() + ")");
  }
}

}  // namespace

std::string gnuplot_script(const PlotSpec& plot) {
  const std::string name = plot.name;
  std::string script = "# Written by vtsim plot: draws " + name + ".dat into " + name + ".svg and " + name +
                       ".png. Rerun with: gnuplot " + name + ".gp\n";
  const auto section = [&](const std::string& terminal, const std::string& output) {
    return "\nreset\n" + terminal + "set termoption noenhanced\nset datafile missing '?'\nset output " +
           gnuplot_quote(output) + "\n" + plot.commands + "set output\n";
  };
  const std::string size = std::to_string(plot.width) + "," + std::to_string(plot.height);
  script += section("set terminal svg size " + size + " dynamic background '#ffffff' font 'Sans,11'\n", name + ".svg");
  script += section("if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
                    "  set terminal pngcairo size " + size + " background '#ffffff' font 'Sans,10'\n"
                    "} else {\n"
                    "  set terminal png size " + size + " background '#ffffff'\n"
                    "}\n",
                    name + ".png");
  return script;
}

std::vector<std::string> render_plot(const PlotSpec& plot, const std::string& dir, const std::string& gnuplot) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (fs::exists(dir, error) && !fs::is_directory(dir, error)) {
    throw InputError(dir + ": --out is a file, not a folder");
  }
  fs::create_directories(dir);
  // gnuplot opens its outputs itself (`set output`), following links: refused here, by name.
  for (const char* extension : {".svg", ".png"}) {
    refuse_symlinked_output((fs::path(dir) / (plot.name + extension)).string());
  }
  write_file_atomically((fs::path(dir) / (plot.name + ".dat")).string(), plot.data);
  write_file_atomically((fs::path(dir) / (plot.name + ".gp")).string(), gnuplot_script(plot));
  refuse_symlinked_output((fs::path(dir) / (plot.name + ".log")).string());
  run_in(dir, {gnuplot, plot.name + ".gp"}, plot.name + ".log");
  std::vector<std::string> images;
  for (const char* extension : {".svg", ".png"}) {
    const fs::path image = fs::path(dir) / (plot.name + extension);
    if (!fs::is_regular_file(image) || fs::file_size(image) == 0) {
      throw std::runtime_error(gnuplot + " wrote no " + image.string());
    }
    images.push_back(image.string());
  }
  return images;
}

}  // namespace vtsim::tools
