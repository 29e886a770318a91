#pragma once
// Running a simulation in a child process. SimGrid allows one engine per process, so every simulation vtsim runs
// (the scenario, its side-by-side variants, later the points of a sweep) runs in a process of its own.

#include <functional>

#include <nlohmann/json.hpp>

namespace vtsim::tools {

/// Runs `work` in a forked child and returns the JSON it produced. An InputError thrown in the child is thrown again
/// here with the same message; a child that crashes or throws anything else gives std::runtime_error.
nlohmann::json run_isolated(const std::function<nlohmann::json()>& work);

}  // namespace vtsim::tools
