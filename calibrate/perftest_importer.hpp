#pragma once
// Importer of perftest output (linux-rdma/perftest: ib_write_bw, ib_send_bw, ib_read_bw, ib_write_lat, ib_send_lat,
// ib_read_lat). perftest prints a title ("RDMA_Write BW Test", "Send Latency Test"), "Key : value" settings (Device,
// Link type, Connection type), then a table:
//   bandwidth: " #bytes  #iterations  BW peak[MB/sec]  BW average[MB/sec]  MsgRate[Mpps]" (or [Gb/sec] with
//              --report_gbits). perftest's "MB/sec" is 2^20 bytes/s (format_factor 0x100000 in
//              perftest_parameters.c), its "Gb/sec" 1e9 bit/s (125000000 bytes/s).
//   latency:   " #bytes #iterations  t_min[usec]  t_max[usec]  t_typical[usec]  t_avg[usec]  t_stdev[usec]
//              99% percentile[usec]  99.9% percentile[usec]" (older versions stop after t_typical); the latency tests
//              report half the measured round trip, the one-way latency.

#include <string>
#include <string_view>

#include "models/calibration/calibration_profile.hpp"

namespace vtsim::calibrate {

/// What the command line may say instead of the log.
struct PerftestOptions {
  std::string transport;  ///< rdma_transport_names() spelling; "" = from the log (Link type, device name)
};

/// Parses one perftest log into a series (bandwidth: BW average; latency: t_typical, the median). Malformed input
/// throws InputError "FILE:LINE: what is wrong".
RdmaSeries import_perftest(std::string_view text, const std::string& file, const PerftestOptions& options);

}  // namespace vtsim::calibrate
