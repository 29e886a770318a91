#pragma once
// Reads per-iteration times from a single-GPU training log, for the spread of step times
// (models/compute/variability.hpp).
//
// Three kinds of log, told apart by their lines:
// - DLLogger JSON lines, as NVIDIA DeepLearningExamples write them: "DLLL {...}" records whose "step" is a list
//   (per-iteration records; the summary's is empty) and whose "data" holds a time or throughput field;
// - JSON lines: one object per line with a time or throughput field;
// - CSV: one number per line, or a header naming a time or throughput column.
// Fields, preferred in this order (whole-step measures before compute-only ones): iteration_time, step_time,
// train.iteration_time, train.step_time, train.total_time (seconds); train.total_ips, throughput_train, ips
// (samples/s); train.compute_time (seconds); train.compute_ips (samples/s); time (seconds). A throughput is taken as
// 1 / throughput: seconds per sample, whose spread is the step's at a fixed batch. Records without the field (other
// log entries) are skipped; a malformed one is an error naming the file and line.

#include <string>
#include <string_view>

#include "models/calibration/calibration_profile.hpp"

namespace vtsim::calibrate {

/// The times of `text` (the log `file`), skipping the first `skip_first` (warm-up) ones. Throws InputError
/// "FILE:LINE: ..." for a malformed line, "FILE: ..." when fewer than two times remain.
StepTimeSeries import_step_times(std::string_view text, const std::string& file, int skip_first);

}  // namespace vtsim::calibrate
