#pragma once
// `vtsim calibrate`: measure the hardware, import standard tools' logs, fit, and show calibration profiles.
//   vtsim calibrate probe gpu|nccl|rdma [--server | --client HOST] [--out PROFILE] [options]
//   vtsim calibrate import nccl-tests|perftest|topo|mig-lgip LOG... [--into PROFILE] [provenance options]
//   vtsim calibrate fit PROFILE
//   vtsim calibrate show PROFILE [--format table|json]
// calibrate/README.md documents the probes, the importers, the fits and the profile format. The command registers
// itself with add_calibrate_command() (tools/commands/command.hpp).

#include <string>
#include <vector>

#include "models/calibration/calibration_profile.hpp"

namespace vtsim::tools {

/// Provenance fields given on the command line; each non-empty one replaces what the log says.
struct ProvenanceOverrides {
  std::string device;
  std::string driver;
  std::string date;
  std::string host;
  std::string notes;
};

/// What `vtsim calibrate import` was asked for.
struct ImportRequest {
  std::string tool;               ///< "nccl-tests", "perftest", "topo", "mig-lgip" or "step-times"
  std::vector<std::string> logs;  ///< log files, at least one (exactly one for topo and mig-lgip)
  std::string op;                 ///< nccl-tests: the collective, when neither the log nor its file name says
  std::string transport;          ///< perftest: the transport, when the log does not tell (RoCE v1 against v2)
  int skip_first = 0;             ///< step-times: warm-up steps to drop
  ProvenanceOverrides overrides;
};

/// Adds the imported logs to `profile`; returns one line per section added. Stale fits are dropped (and said so).
std::vector<std::string> import_logs(CalibrationProfile& profile, const ImportRequest& request);

/// The profile in `file`, or an empty one named `file` when the file does not exist (or `file` is "").
CalibrationProfile load_or_new_profile(const std::string& file);

}  // namespace vtsim::tools
