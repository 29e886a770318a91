#pragma once
// vtsim collectives: nccl-tests on a scenario's simulated cluster, and its curve held against a measured log.

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "sim/collectives/collective_sweep.hpp"

namespace vtsim::tools {

/// What `vtsim collectives` was asked for.
struct CollectivesRequest {
  std::string scenario_file;            ///< "" = the built-in default scenario
  std::vector<std::string> overrides;   ///< --set
  std::string op = "all_reduce";        ///< all_reduce, all_gather, reduce_scatter, broadcast, reduce, sendrecv, alltoall
  std::string gpus;                     ///< "N" (GPUs 0..N-1) or "a,b,c"; "" = job 0's GPUs
  std::int64_t min_bytes = 8;           ///< nccl-tests -b
  std::int64_t max_bytes = 128LL << 20; ///< nccl-tests -e
  double factor = 2;                    ///< nccl-tests -f
  std::string dtype = "float";          ///< float, half or bfloat16
  std::string format = "table";         ///< table, json or nccl-tests
  std::string compare_log;              ///< --compare: a measured nccl-tests log
  std::string algorithm;  ///< --algo: NCCL_ALGO for all_reduce (ring, tree, nvls, collnetdirect, collnetchain)
  std::string protocol;                 ///< --proto: NCCL_PROTO (LL, LL128, Simple); empty: NCCL's choice
  int channels = 0;                     ///< --channels: NCCL_MIN/MAX_NCHANNELS (1 to 64); 0: NCCL's count
  bool collnet = false;                 ///< --collnet: NCCL_COLLNET_ENABLE=1 (SHARP switches, infiniband)
};

/// One printed row.
struct CollectiveRow {
  double bytes = 0;
  double time_us = 0;
  double algbw_gBps = 0;
  double busbw_gBps = 0;
  std::string choice;
};

/// The rows of `timings` for `op` over `ranks` ranks, with nccl-tests' bandwidths: algbw = size / time, busbw = algbw
/// x 2(n-1)/n (all_reduce), (n-1)/n (all_gather, reduce_scatter, alltoall) or 1 (broadcast, reduce, sendrecv).
std::vector<CollectiveRow> collective_rows(const std::string& op, int ranks,
                                           const std::vector<sim::CollectiveTiming>& timings);

/// nccl-tests' table for `rows`: its header lines (version, "Collective test starting", one "#  Rank" line per rank
/// naming `devices[rank]` on `hosts[rank]`), the column header, one row per size (out-of-place and in-place alike,
/// #wrong 0) and the average bus bandwidth, so that scripts reading nccl-tests read it.
std::string format_nccl_tests(const std::string& op, const std::string& dtype, const std::vector<CollectiveRow>& rows,
                              const std::vector<std::string>& hosts, const std::vector<std::string>& devices);

/// Runs the command, printing to `out`.
void collectives_command(const CollectivesRequest& request, std::ostream& out);

}  // namespace vtsim::tools
