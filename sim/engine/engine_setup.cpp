#include "sim/engine/engine_setup.hpp"

#include <malloc.h>

#include <csignal>
#include <string>

#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

namespace vtsim::sim {
namespace {

constexpr int kStackKiB = 128;  ///< each actor's stack

/// Whether the process started with SIGINT ignored, as a shell starts a backgrounded job without job control: read
/// at startup, before any Engine installs its own handler.
const bool kSigintIgnoredAtStart = [] {
  struct sigaction action {};
  return ::sigaction(SIGINT, nullptr, &action) == 0 && action.sa_handler == SIG_IGN;
}();

}  // namespace

void configure_engine() {
  namespace sg4 = simgrid::s4u;
  // SimGrid reports every configuration change at INFO level on stderr; vtsim's output is its own.
  xbt_log_control_set("root.thresh:warning");
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:1e18");
  // Actors here keep little on their stacks; 128 KiB is as fast as the 8 MiB default and far smaller (docs/simgrid-notes.md).
  sg4::Engine::set_config("contexts/stack-size:" + std::to_string(kStackKiB));
  // SimGrid's Engine answers SIGINT with a status dump and an exit. A backgrounded sweep ignores SIGINT, and its
  // simulation processes must too: else an interrupt meant for the foreground would end points that then read as
  // failed.
  if (kSigintIgnoredAtStart) std::signal(SIGINT, SIG_IGN);
}

void configure_stacks(std::size_t actor_count) {
  namespace sg4 = simgrid::s4u;
  // Above ~32 k actors the guard pages exhaust the kernel's vm.max_map_count (docs/simgrid-notes.md). Without them
  // SimGrid 3.32 takes each stack from calloc, which glibc serves from its heap once its dynamic mmap threshold has
  // risen, zeroing (so touching) every page: 32,000 actors then held 2.7 GB resident. A fixed threshold below the
  // stack size keeps stacks in fresh mappings whose pages the kernel supplies zeroed as they are first used
  // (1.2 GB for the same actors; docs/scale.md). Where the vtsim binary links jemalloc (CMakeLists.txt) glibc's
  // allocator serves nothing and this setting is moot; measured so, the bench's 65,536-GPU flow run (about 65,500
  // actors without guard pages) peaked at 1.76 GB.
  if (actor_count > 30000) {
    sg4::Engine::set_config("contexts/guard-size:0");
    mallopt(M_MMAP_THRESHOLD, kStackKiB * 1024 / 2);
  }
}

}  // namespace vtsim::sim
