#pragma once
// What every probe shares: the error a missing device raises, the statistics of repeated timings, size lists, and
// the provenance of a measurement taken now on this host.

#include <cstdint>
#include <string>
#include <vector>

#include "models/calibration/calibration_profile.hpp"
#include "models/core/error.hpp"

namespace vtsim::calibrate {

/// No device to probe: what() is the whole line the user sees after "vtsim: " ("no CUDA device found").
/// An InputError, so that the command line reports it on one line and exits non-zero.
class DeviceNotFound : public InputError {
 public:
  explicit DeviceNotFound(const std::string& message) : InputError(message) {}
};

/// A device call failed while probing: what() names the call and the library's own error text.
class ProbeFailed : public InputError {
 public:
  explicit ProbeFailed(const std::string& message) : InputError(message) {}
};

/// The median of `values` (the mean of the middle two for an even count). REQUIRES: not empty.
double median(std::vector<double> values);

/// first, 2 first, 4 first, ... up to and including `last` when it is reached. REQUIRES: 0 < first <= last.
std::vector<std::int64_t> powers_of_two(std::int64_t first, std::int64_t last);

/// The current UTC time as ISO 8601, e.g. "2025-05-01T12:34:56Z".
std::string utc_now_iso8601();

/// A file's modification time as ISO 8601 UTC; "" when it cannot be read.
std::string file_date_iso8601(const std::string& file);

/// This machine's host name; "" when unknown.
std::string local_host_name();

/// The standard output of shell command `command`; "" when it cannot run or exits non-zero.
std::string command_output(const char* command);

/// Provenance of a probe run now on this host.
Provenance probe_provenance(const std::string& tool, const std::string& device, const std::string& driver);

}  // namespace vtsim::calibrate
