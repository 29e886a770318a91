// Horovod's coordinator (sim/training/horovod_coordinator.hpp) on its own: gradients reported at chosen times, each
// fusion buffer's time and contents worked out tick by tick by hand in the comments.

#include "sim/training/horovod_coordinator.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include "sim/engine/isolated_run.hpp"
#include "sim_test_support.hpp"

namespace vtsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

/// At `at_s`, `count` more ranks have `tensor`'s gradient ready.
struct Report {
  double at_s;
  int tensor;
  int count;
};

/// Runs a coordinator over `ranks` ranks and gradients of `tensor_bytes` (in a child process), fed `reports` in order,
/// and returns each buffer it dispatched as [time, iteration, gradients, bytes].
nlohmann::json dispatched(HorovodCoordinator::Settings settings, const std::vector<double>& tensor_bytes, int ranks,
                          const std::vector<Report>& reports) {
  return run_isolated([&] {
    const auto engine = testing::test_engine(2);
    sg4::Host* host = testing::lone_host("cpu");
    nlohmann::json buffers = nlohmann::json::array();
    HorovodCoordinator coordinator(settings, tensor_bytes, ranks, [&](const FusionBuffer& buffer) {
      buffers.push_back({sg4::Engine::get_clock(), buffer.iteration, buffer.tensor_count, buffer.bytes});
    });
    sg4::Actor::create("coordinator", host, [&] { coordinator.run(); })->daemonize();
    sg4::Actor::create("ranks", host, [&] {
      for (const Report& report : reports) {
        sg4::this_actor::sleep_until(report.at_s);
        coordinator.gradient_ready({.tensor = report.tensor, .ranks = report.count});
      }
      sg4::this_actor::sleep_for(1.0);  // long enough for the last tick and negotiation
    });
    engine->run();
    return buffers;
  });
}

void expect_buffer(const nlohmann::json& buffer, double at_s, int iteration, int gradients, double bytes) {
  EXPECT_NEAR(buffer.at(0).get<double>(), at_s, 1e-12) << buffer;
  EXPECT_EQ(buffer.at(1).get<int>(), iteration) << buffer;
  EXPECT_EQ(buffer.at(2).get<int>(), gradients) << buffer;
  EXPECT_DOUBLE_EQ(buffer.at(3).get<double>(), bytes) << buffer;
}

TEST(HorovodCoordinator, FusesWhatIsReadyEverywhereAtEachTickAfterTheNegotiation) {
  // Three ranks, gradients of 10, 20, 30 and 60 bytes, a 1 ms cycle, 0.1 ms of negotiation, a 50-byte threshold.
  const HorovodCoordinator::Settings settings{1e-3, 1e-4, 50};
  // clang-format off
  const std::vector<Report> reports = {
      // Gradient 0 is ready on a class of two ranks, then on the third, at 0.3 ms.
      {0.3e-3, 0, 2}, {0.3e-3, 0, 1},
      // Gradients 1 and 2 on every rank at 1.05 ms: during the first tick's negotiation (1.0-1.1 ms).
      {1.05e-3, 1, 3}, {1.05e-3, 2, 3},
      // Gradient 3 at 2.5 ms; then iteration 1's four, last layer first, at 4.2 ms.
      {2.5e-3, 3, 1}, {2.5e-3, 3, 2},
      {4.2e-3, 3, 3}, {4.2e-3, 2, 3}, {4.2e-3, 1, 3}, {4.2e-3, 0, 3}};
  // clang-format on
  const nlohmann::json buffers = dispatched(settings, {10, 20, 30, 60}, 3, reports);
  ASSERT_EQ(buffers.size(), 6u) << buffers;
  // Tick at 1 ms, negotiated until 1.1 ms: gradient 0 alone (1 and 2 came after the tick's list was made).
  expect_buffer(buffers[0], 1.1e-3, 0, 1, 10);
  // Next tick at 2 ms: 1 and 2 together, 20 + 30 = 50 bytes, at the threshold.
  expect_buffer(buffers[1], 2.1e-3, 0, 2, 50);
  // Gradient 3 at 2.5 ms: tick at 3 ms, 60 bytes alone (above the threshold, nothing to fuse with).
  expect_buffer(buffers[2], 3.1e-3, 0, 1, 60);
  // Iteration 1 at 4.2 ms, tick at 5 ms: 60 alone (60 + 30 > 50), 30 + 20 = 50, then 10 (50 + 10 > 50).
  expect_buffer(buffers[3], 5.1e-3, 1, 1, 60);
  expect_buffer(buffers[4], 5.1e-3, 1, 2, 50);
  expect_buffer(buffers[5], 5.1e-3, 1, 1, 10);
}

TEST(HorovodCoordinator, WithoutACycleOrANegotiationDispatchesAsSoonAsAGradientIsReadyEverywhere) {
  // Two ranks; gradient 0 on one at 1 ms, on the other at 2 ms: ready everywhere at 2 ms, dispatched then.
  const nlohmann::json buffers = dispatched({0, 0, 1e9}, {8, 8}, 2, {{1e-3, 0, 1}, {2e-3, 0, 1}, {3e-3, 1, 2}});
  ASSERT_EQ(buffers.size(), 2u) << buffers;
  expect_buffer(buffers[0], 2e-3, 0, 1, 8);
  expect_buffer(buffers[1], 3e-3, 0, 1, 8);
}

}  // namespace
}  // namespace vtsim::sim
