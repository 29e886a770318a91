#pragma once
// The RDMA probe (`vtsim calibrate probe rdma --server | --client HOST`): two processes, each with an RC queue pair on
// a verbs device, exchange their QP numbers, LIDs/GIDs, keys and addresses over TCP (as perftest does), then the
// client measures RDMA write:
//   latency    ping-pong: the client writes a message into the server's buffer, the server, polling its buffer,
//              writes one back; half the round trip is the one-way latency (perftest's ib_write_lat convention),
//              the median over the iterations (perftest's t_typical);
//   bandwidth  the client streams writes with up to `depth` outstanding; bytes x iterations / time.
// Any verbs device works: InfiniBand, RoCE, VMware PVRDMA, soft-RoCE. The hardware sits behind RdmaBackend;
// ibverbs_backend.cpp implements it with libibverbs.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/calibration/calibration_profile.hpp"

namespace vtsim::calibrate {

/// How to open the device and reach the peer.
struct RdmaEndpointOptions {
  std::string device;       ///< verbs device name ("mlx5_0"); "" = the first one
  int ib_port = 1;          ///< port of the device
  int gid_index = -1;       ///< GID table index for RoCE; -1 = the first RoCE v2 GID, else the first valid one
  int tcp_port = 18515;     ///< TCP port of the exchange (perftest's default)
  std::int64_t max_bytes = std::int64_t{8} << 20;  ///< largest message; both sides register 2 x this much
};

/// The client's side of a connected pair of queue pairs.
class RdmaConnection {
 public:
  virtual ~RdmaConnection() = default;
  /// The local device's name.
  virtual std::string device_name() = 0;
  /// The port's link layer: "InfiniBand" or "Ethernet".
  virtual std::string link_layer() = 0;
  /// Round-trip times of `iterations` write ping-pongs of `bytes`, after a few untimed ones.
  virtual std::vector<double> write_round_trips_s(std::int64_t bytes, int iterations) = 0;
  /// Seconds to stream `iterations` writes of `bytes`, up to `depth` outstanding.
  virtual double write_stream_s(std::int64_t bytes, int iterations, int depth) = 0;
  /// Tells the server the measurements are over.
  virtual void finish() = 0;
};

/// The verbs devices and the two roles.
class RdmaBackend {
 public:
  virtual ~RdmaBackend() = default;
  /// Names of the verbs devices; empty when none.
  virtual std::vector<std::string> devices() = 0;
  /// Server: waits for one client on options.tcp_port and answers its measurements until it finishes.
  virtual void serve(const RdmaEndpointOptions& options) = 0;
  /// Client: connects to the server on `host`.
  virtual std::unique_ptr<RdmaConnection> connect(const std::string& host, const RdmaEndpointOptions& options) = 0;
};

/// What the client measures.
struct RdmaProbeOptions {
  RdmaEndpointOptions endpoint;
  std::int64_t min_bytes = 2;               ///< perftest -a starts at 2 bytes
  int latency_iterations = 1000;            ///< perftest's default for latency tests
  int bandwidth_iterations = 5000;          ///< and for bandwidth tests
  int depth = 128;                          ///< outstanding writes (perftest's TX depth)
  std::string transport;                    ///< rdma_transport_names() spelling; "" = from the device
};

/// The transport a verbs device runs: "pvrdma" for VMware's vmw_pvrdma devices, "roce" on Ethernet (RoCE v1 and v2
/// alike), "infiniband" on InfiniBand ("IB" as perftest prints it); "" when the link layer is unknown.
std::string rdma_transport(const std::string& device, const std::string& link_layer);

/// Server role. Throws DeviceNotFound("no RDMA device found") when there is no verbs device.
void serve_rdma(RdmaBackend& backend, const RdmaProbeOptions& options);

/// Client role: a latency and a bandwidth series of RDMA write over powers of two from min_bytes to max_bytes.
/// Throws DeviceNotFound("no RDMA device found") when there is no verbs device.
std::vector<RdmaSeries> probe_rdma(RdmaBackend& backend, const std::string& host, const RdmaProbeOptions& options);

}  // namespace vtsim::calibrate
