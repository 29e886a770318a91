#pragma once
// Importer of nccl-tests output (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf,
// broadcast_perf, reduce_perf, sendrecv_perf, scatter_perf, gather_perf), as NVIDIA/nccl-tests src/util.cu prints it:
//   "# nccl-tests version 2.x nccl-headers=N nccl-library=N" and "# Collective test starting: all_reduce_perf" (newer)
//   "#  Rank  0 Group  0 Pid  1234 on host1 device  0 [0000:07:00] NVIDIA A100-SXM4-40GB" (one per rank)
//   "#       size         count      type   redop    root     time   algbw   busbw #wrong     time ..." header
//   then rows "size count type redop root" + out-of-place "time algbw busbw #wrong" + in-place the same.
// Older versions (no "root" column, "bytes N type op" names, "error" for "#wrong") are read from their header.

#include <string>
#include <string_view>

#include "models/calibration/calibration_profile.hpp"

namespace vtsim::calibrate {

/// What the command line may say instead of the log.
struct NcclTestsOptions {
  std::string op;  ///< the collective ("all_reduce", ...); "" = from the log's program line, else from the file name
};

/// Parses one nccl-tests log into a series; its provenance names the tool, device(s), NCCL version and host(s), with
/// `date` left empty. Malformed input throws InputError "FILE:LINE: what is wrong".
CollectiveSeries import_nccl_tests(std::string_view text, const std::string& file, const NcclTestsOptions& options);

}  // namespace vtsim::calibrate
