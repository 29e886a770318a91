// A simulation runs in a child process (sim/engine/isolated_run.hpp): what it answers comes back, what it writes to
// standard error is passed on once it ends, and a child out of memory is one line saying so, not SimGrid's backtrace.

#include "sim/engine/isolated_run.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <new>
#include <string>

#include "models/core/error.hpp"

namespace vtsim::sim {
namespace {

TEST(IsolatedRun, AnswersAndPassesOnWhatTheChildWroteToStandardError) {
  ::testing::internal::CaptureStderr();
  const nlohmann::json answer = run_isolated([] {
    std::cerr << "a warning from the simulation\n";
    return nlohmann::json{{"samples_per_s", 12.5}};
  });
  const std::string errors = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(answer["samples_per_s"].get<double>(), 12.5);
  EXPECT_EQ(errors, "a warning from the simulation\n");
}

TEST(IsolatedRun, AStackSimgridCannotAllocateIsOneLineAboutMemory) {
  // What SimGrid 3.32 does when mmap refuses an actor's stack: a CRITICAL line, a backtrace, abort().
  ::testing::internal::CaptureStderr();
  try {
    run_isolated([]() -> nlohmann::json {
      std::cerr << "[0.000000] ./src/kernel/context/ContextSwapped.cpp:104: [root/CRITICAL] Failed to allocate stack.\n"
                   "Backtrace (displayed in actor maestro):\n  ->  0# 0x00007FD00423DFD0 in libsimgrid.so.3.32\n";
      std::abort();
    });
    FAIL() << "the child aborted";
  } catch (const OutOfMemory& error) {
    EXPECT_EQ(std::string(error.what()).rfind("out of memory: the simulation could not allocate", 0), 0u)
        << error.what();
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // no backtrace
}

TEST(IsolatedRun, AFailedAllocationIsOutOfMemoryAndACrashIsNot) {
  EXPECT_THROW(run_isolated([]() -> nlohmann::json { throw std::bad_alloc(); }), OutOfMemory);
  ::testing::internal::CaptureStderr();
  try {
    run_isolated([]() -> nlohmann::json {
      std::cerr << "what the child said before it died\n";
      std::abort();
    });
    FAIL() << "the child aborted";
  } catch (const OutOfMemory&) {
    FAIL() << "an abort without SimGrid's stack message is not out of memory";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "the simulation process died from signal 6");
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "what the child said before it died\n");
  EXPECT_THROW(run_isolated([]() -> nlohmann::json { throw InputError("x.json: bad"); }), InputError);
}

}  // namespace
}  // namespace vtsim::sim
