#include "sim/engine_setup.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

namespace vtsim::sim {

void configure_engine(std::size_t actor_count) {
  namespace sg4 = simgrid::s4u;
  // SimGrid reports every configuration change at INFO level on stderr; vtsim's output is its own.
  xbt_log_control_set("root.thresh:warning");
  sg4::Engine::set_config("network/model:CM02");
  sg4::Engine::set_config("network/crosstraffic:0");
  sg4::Engine::set_config("network/TCP-gamma:1e18");
  // Actors here keep little on their stacks; 128 KiB is as fast as the 8 MiB default and far smaller (docs/simgrid-notes.md).
  sg4::Engine::set_config("contexts/stack-size:128");
  // Above ~32 k actors the guard pages exhaust the kernel's vm.max_map_count (docs/simgrid-notes.md).
  if (actor_count > 30000) sg4::Engine::set_config("contexts/guard-size:0");
}

}  // namespace vtsim::sim
