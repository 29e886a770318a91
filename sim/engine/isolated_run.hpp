#pragma once
// Running a simulation in a child process. SimGrid allows one engine per process, so every simulation vtsim runs
// (the scenario, its side-by-side variants, later the points of a sweep) runs in a process of its own.

#include <functional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace vtsim::sim {

/// The simulation process ran out of memory (SimGrid could not allocate an actor's stack, or an allocation failed):
/// what() is one line saying so and what to change.
class OutOfMemory : public std::runtime_error {
 public:
  explicit OutOfMemory(const std::string& message) : std::runtime_error(message) {}
};

/// Runs `work` in a forked child and returns the JSON it produced. An InputError thrown in the child is thrown again
/// here with the same message; a child out of memory gives OutOfMemory; one that crashes or throws anything else
/// gives std::runtime_error. What the child writes to standard error is held until it ends, then passed on, except
/// the backtrace SimGrid prints when it cannot allocate an actor's stack.
nlohmann::json run_isolated(const std::function<nlohmann::json()>& work);

}  // namespace vtsim::sim
