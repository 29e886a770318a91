#include "models/scenario/scheduler_policy.hpp"

#include <array>

#include "models/core/enum_names.hpp"

namespace vtsim {
namespace {

const std::array<std::pair<std::string, SchedulerPolicy>, 3> kPolicies = {{
    {"best_effort", SchedulerPolicy::best_effort},
    {"equal_share", SchedulerPolicy::equal_share},
    {"fixed_share", SchedulerPolicy::fixed_share},
}};

}  // namespace

std::span<const std::pair<std::string, SchedulerPolicy>> scheduler_policy_names() { return kPolicies; }

std::string_view to_string(SchedulerPolicy policy) { return name_of(kPolicies, policy); }

}  // namespace vtsim
