#include "models/scenario/fidelity.hpp"

#include <array>

#include "models/core/enum_names.hpp"

namespace vtsim {
namespace {

const std::array<std::pair<std::string, Fidelity>, 3> kFidelities = {{
    {"step", Fidelity::step},
    {"flow", Fidelity::flow},
    {"analytic", Fidelity::analytic},
}};

}  // namespace

std::span<const std::pair<std::string, Fidelity>> fidelity_names() { return kFidelities; }

std::string_view to_string(Fidelity fidelity) { return name_of(kFidelities, fidelity); }

}  // namespace vtsim
