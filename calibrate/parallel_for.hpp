#pragma once
// Independent pieces of work spread over the machine's cores: work(i) runs once for each i in [0, count), in any order
// and on any thread; an exception from any of them is rethrown once all have stopped. The fits of the kernel model
// (one per family, GPU and split) are such pieces: each reads shared inputs and writes only its own result.
// REQUIRES: work(i) and work(j) write no shared state.

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace vtsim::calibrate {

/// Runs work(0) ... work(count - 1) on up to std::thread::hardware_concurrency() threads, the caller's among them.
template <typename Work>
void parallel_for(std::size_t count, const Work& work) {
  const std::size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads = std::min(count, cores);
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(threads);
  const auto run = [&](std::size_t thread) {
    try {
      for (std::size_t i = next++; i < count; i = next++) work(i);
    } catch (...) {
      errors[thread] = std::current_exception();
      next = count;  // the others stop after their current piece
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t thread = 1; thread < threads; ++thread) pool.emplace_back(run, thread);
  if (threads > 0) run(0);
  for (std::thread& thread : pool) thread.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace vtsim::calibrate
