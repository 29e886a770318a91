#include "sim/engine/isolated_run.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>

#include "models/core/error.hpp"

namespace vtsim::sim {
namespace {

// The child answers with one line saying how it ended, then its payload.
constexpr char kOk[] = "ok";
constexpr char kInputError[] = "input-error";
constexpr char kOutOfMemory[] = "out-of-memory";
constexpr char kFailure[] = "failure";

void write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    written += static_cast<std::size_t>(n);
  }
}

std::string read_all(int fd) {
  std::string text;
  char buffer[65536];
  while (true) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  return text;
}

// What a simulation out of memory leaves on its standard error: SimGrid's message when mmap refuses an actor's stack
// (src/kernel/context/ContextSwapped.cpp), followed by its backtrace and an abort.
constexpr char kSimgridStackFailure[] = "Failed to allocate stack";

std::string out_of_memory_message(const std::string& what) {
  return "out of memory: the simulation " + what +
         ": simulate fewer GPUs, at analytic fidelity (simulation.fidelity), or on a machine with more memory";
}

// The whole of `file`, read from its start.
std::string read_file(std::FILE* file) {
  std::string text;
  if (file == nullptr) return text;
  std::fflush(file);
  std::rewind(file);
  char buffer[65536];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) text.append(buffer, n);
  return text;
}

}  // namespace

nlohmann::json run_isolated(const std::function<nlohmann::json()>& work) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  // The child's standard error, held in an unnamed file (a pipe could fill while this process waits for the answer).
  std::FILE* child_stderr = std::tmpfile();
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    // A simulation outlives nothing: if the process that asked for it dies (a sweep killed with SIGKILL), so does it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // the parent died before prctl took effect
    ::close(pipe_fds[0]);
    if (child_stderr != nullptr) ::dup2(::fileno(child_stderr), STDERR_FILENO);
    std::string answer;
    try {
      answer = std::string(kOk) + "\n" + work().dump();
    } catch (const std::bad_alloc&) {
      answer = std::string(kOutOfMemory) + "\n";
    } catch (const InputError& error) {
      answer = std::string(kInputError) + "\n" + error.what();
    } catch (const std::exception& error) {
      answer = std::string(kFailure) + "\n" + error.what();
    }
    write_all(pipe_fds[1], answer);
    ::close(pipe_fds[1]);
    std::cout.flush();
    std::cerr.flush();
    ::_exit(0);  // no atexit handlers or static destructors of the parent's state in the child
  }
  ::close(pipe_fds[1]);
  const std::string answer = read_all(pipe_fds[0]);
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const std::string errors = read_file(child_stderr);
  if (child_stderr != nullptr) std::fclose(child_stderr);
  if (WIFSIGNALED(status) && errors.find(kSimgridStackFailure) != std::string::npos) {
    throw OutOfMemory(out_of_memory_message("could not allocate a simulated process's stack (SimGrid: " +
                                            std::string(kSimgridStackFailure) + ")"));
  }
  std::cerr << errors << std::flush;
  if (WIFSIGNALED(status)) {
    throw std::runtime_error("the simulation process died from signal " + std::to_string(WTERMSIG(status)));
  }
  const std::size_t newline = answer.find('\n');
  const std::string kind = answer.substr(0, newline);
  const std::string payload = newline == std::string::npos ? "" : answer.substr(newline + 1);
  if (kind == kOk) return nlohmann::json::parse(payload);
  if (kind == kInputError) throw InputError(payload);
  if (kind == kOutOfMemory) throw OutOfMemory(out_of_memory_message("could not allocate memory"));
  throw std::runtime_error(payload.empty() ? "the simulation process ended without an answer" : payload);
}

}  // namespace vtsim::sim
