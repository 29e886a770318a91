#include "tools/sweep/worker_pool.hpp"

#include <signal.h>
#include <unistd.h>

#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "tools/sweep/sweep_progress.hpp"

namespace vtsim::tools {
namespace {

TEST(WorkerPool, AnswersEveryTaskOnceFromOtherProcesses) {
  std::map<std::size_t, std::string> answers;
  WorkerPoolTasks tasks;
  tasks.work = [](std::size_t index) { return std::to_string(index * index) + " " + std::to_string(::getpid()); };
  tasks.on_worker_death = [](std::size_t, const std::string& why) { return why; };
  tasks.on_answers = [&](const std::vector<std::pair<std::size_t, std::string>>& batch) {
    for (const auto& [index, line] : batch) EXPECT_TRUE(answers.emplace(index, line).second) << "task " << index;
  };
  const std::vector<std::size_t> indices = {3, 1, 4, 5, 9, 2, 6};
  run_worker_pool(indices, 3, tasks);
  ASSERT_EQ(answers.size(), indices.size());
  for (const std::size_t index : indices) {
    std::istringstream answer(answers[index]);
    std::size_t square = 0;
    pid_t pid = 0;
    answer >> square >> pid;
    EXPECT_EQ(square, index * index);
    EXPECT_NE(pid, ::getpid());  // computed in a worker
  }
}

TEST(WorkerPool, AWorkerThatDiesGivesItsTaskTheDeathAndIsReplaced) {
  std::map<std::size_t, std::string> answers;
  WorkerPoolTasks tasks;
  tasks.work = [](std::size_t index) {
    if (index == 2) ::raise(SIGKILL);
    return "ok " + std::to_string(index);
  };
  tasks.on_worker_death = [](std::size_t index, const std::string& why) { return std::to_string(index) + ": " + why; };
  tasks.on_answers = [&](const std::vector<std::pair<std::size_t, std::string>>& batch) {
    for (const auto& [index, line] : batch) answers.emplace(index, line);
  };
  run_worker_pool({0, 1, 2, 3, 4}, 1, tasks);  // one worker: the tasks after 2 need its replacement
  ASSERT_EQ(answers.size(), 5u);
  EXPECT_EQ(answers[2], "2: the worker process died from signal 9");
  EXPECT_EQ(answers[4], "ok 4");
}

TEST(WorkerPool, TicksWhileATaskRunsLong) {
  // One task of 3 s: no answer for three whole seconds, so ticks (one a second) before it comes; at least one even if
  // this process is held up for a second or two between its polls.
  int ticks = 0;
  WorkerPoolTasks tasks;
  tasks.work = [](std::size_t) {
    ::sleep(3);
    return std::string("done");
  };
  tasks.on_worker_death = [](std::size_t, const std::string& why) { return why; };
  tasks.on_answers = [](const std::vector<std::pair<std::size_t, std::string>>& batch) { EXPECT_EQ(batch.size(), 1u); };
  tasks.on_tick = [&] { ++ticks; };
  run_worker_pool({0}, 1, tasks);
  EXPECT_GE(ticks, 1);
}

TEST(ProgressLine, CountsRateAndEta) {
  std::ostringstream out;
  ProgressLine quiet(out, false, 10, 4, 1);
  quiet.point_done(true);
  quiet.finish();
  EXPECT_EQ(out.str(), "");  // not a terminal: nothing
  EXPECT_EQ(quiet.text().substr(0, 30), "sweep: 5/10 points, 2 failed, ");
  EXPECT_NE(quiet.text().find(" points/s, ETA "), std::string::npos);
  ProgressLine drawn(out, true, 2, 0, 0);
  drawn.point_done(false);
  drawn.point_done(false);
  drawn.finish();
  EXPECT_EQ(out.str().back(), '\n');
  EXPECT_NE(out.str().find("\rsweep: 2/2 points, 0 failed"), std::string::npos);
  EXPECT_EQ(format_duration(3725), "1:02:05");
  EXPECT_EQ(format_duration(9.4), "0:09");
}

}  // namespace
}  // namespace vtsim::tools
