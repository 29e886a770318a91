#pragma once
// The fidelity levels of the simulated collectives, apart from the scenario so that the engine's collectives need no
// more.

#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace vtsim {

/// How collectives are simulated (docs/design.md, "Fidelity levels").
enum class Fidelity {
  step,      ///< every ring step of every rank is a SimGrid communication, O(N^2)
  flow,      ///< each rank's share of a collective phase is one flow plus the step latencies, O(N)
  analytic,  ///< closed form with the bottleneck bandwidth found on the topology graph, O(1)
};

/// Every level with its name in scenario files.
std::span<const std::pair<std::string, Fidelity>> fidelity_names();
/// "step", "flow" or "analytic".
std::string_view to_string(Fidelity fidelity);

}  // namespace vtsim
