#pragma once
// Reads a Horovod timeline (HOROVOD_TIMELINE=FILE; horovod/common/timeline.cc writes it from rank 0's coordinator)
// for what it shows of Horovod's negotiation, cycle and fusion in a real run.
//
// The file is a Chrome-trace JSON array. Each tensor is a "process": a metadata event ("ph": "M", "name":
// "process_name") names its pid. Per tensor, in order:
// - its negotiation: "B" named NEGOTIATE_ALLREDUCE (or another NEGOTIATE_ type), one "X" per rank that reported the
//   tensor ready, named by the rank ("0", "1", ...), and the "E" when the coordinator decided;
// - its operation: "B" named ALLREDUCE (the response type), activities inside it ("B"/"E": QUEUE,
//   MEMCPY_IN_FUSION_BUFFER, NCCL_ALLREDUCE, ...), and the "E" whose args give its "dtype" (HOROVOD_FLOAT32, ...)
//   and "shape" ("[1024, 1024]").
// With HOROVOD_TIMELINE_MARK_CYCLES=1, instant events ("ph": "i") named CYCLE_START mark the coordinator's ticks.
//
// What the importer keeps (models/calibration/calibration_profile.hpp HorovodTimelineSeries):
// - per negotiation, the coordinator's own time: its "E" less the last rank's report (the wait for the slowest rank
//   before that is the ranks' skew, not the negotiation's cost);
// - the intervals between CYCLE_START markers;
// - the fused responses: tensors whose first activity inside ALLREDUCE started within kFusionWindowUs of each other
//   were dispatched together (the coordinator starts every entry of a response at once, ActivityStartAll), with
//   their count and bytes.
// Bad input throws one InputError naming the file and the event ("FILE: [12] (pid 3): ..."): not a JSON array, an
// event without its fields, a rank report outside a negotiation, an "E" without its "B", no negotiation with rank
// reports (a run with Horovod's response cache hitting every tensor negotiates nothing the timeline shows: profile
// the first iterations), fewer than two ranks, an unknown dtype.

#include <string>
#include <string_view>

#include "models/calibration/calibration_profile.hpp"

namespace vtsim::calibrate {

/// Tensors whose first activity started within this many microseconds were one response (ActivityStartAll writes
/// one event per tensor in a loop; the writer's clock is in whole microseconds).
inline constexpr double kFusionWindowUs = 5;

/// What `text` (the timeline `file`) shows. Throws InputError as the header says.
HorovodTimelineSeries import_horovod_timeline(std::string_view text, const std::string& file);

}  // namespace vtsim::calibrate
