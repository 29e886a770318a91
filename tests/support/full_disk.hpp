#pragma once
// Running an action as if the disk were full, for tests of what a failed write does: in a child process whose files
// may not grow past 1 KiB (RLIMIT_FSIZE, with SIGXFSZ ignored so that a write past it fails with EFBIG).

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <functional>

#include "models/core/error.hpp"

namespace vtsim::test_support {

/// How `action` ended in the child.
enum class FullDiskOutcome { input_error, no_error, other_exception, child_failed };

/// Runs `action` in a child whose files may not grow past 1 KiB and says how it ended.
inline FullDiskOutcome on_a_full_disk(const std::function<void()>& action) {
  const pid_t child = ::fork();
  if (child < 0) return FullDiskOutcome::child_failed;
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{1024, 1024};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      action();
    } catch (const InputError&) {
      ::_exit(0);
    } catch (...) {
      ::_exit(2);
    }
    ::_exit(1);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!WIFEXITED(status)) return FullDiskOutcome::child_failed;
  switch (WEXITSTATUS(status)) {
    case 0: return FullDiskOutcome::input_error;
    case 1: return FullDiskOutcome::no_error;
    case 2: return FullDiskOutcome::other_exception;
    default: return FullDiskOutcome::child_failed;
  }
}

}  // namespace vtsim::test_support
