#pragma once
// Reading the scenario's `operations`, `events` and each job's `checkpoint` (scenarios/README.md, "Operations").

#include <optional>

#include "models/core/json_reader.hpp"
#include "models/scenario/scenario.hpp"

namespace vtsim {

/// A job's `checkpoint` object.
CheckpointConfig read_checkpoint(JsonObject checkpoint);

/// The top-level `operations` object (absent: the defaults).
OperationsConfig read_operations(const std::optional<JsonValue>& operations);

/// The top-level `events` list, checked against the scenario's cluster, virtualization and jobs, which must be read
/// already: a vMotion moves a VM with vGPUs (vgpu or mig mode) over a network (hosts with NICs) and names a job with
/// ranks on the host; every event touches some job and happens before its jobs end.
std::vector<OperationEvent> read_events(const JsonValue& events, const Scenario& scenario);

}  // namespace vtsim
