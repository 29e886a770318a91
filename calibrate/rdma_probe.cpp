#include "calibrate/rdma_probe.hpp"

#include "calibrate/probe_support.hpp"
#include "models/core/units.hpp"

namespace vtsim::calibrate {
namespace {

void require_device(RdmaBackend& backend) {
  if (backend.devices().empty()) throw DeviceNotFound("no RDMA device found");
}

}  // namespace

std::string rdma_transport(const std::string& device, const std::string& link_layer) {
  if (device.rfind("vmw_pvrdma", 0) == 0) return "pvrdma";
  if (link_layer == "Ethernet") return "roce";
  if (link_layer == "InfiniBand" || link_layer == "IB") return "infiniband";
  return "";
}

void serve_rdma(RdmaBackend& backend, const RdmaProbeOptions& options) {
  require_device(backend);
  backend.serve(options.endpoint);
}

std::vector<RdmaSeries> probe_rdma(RdmaBackend& backend, const std::string& host, const RdmaProbeOptions& options) {
  require_device(backend);
  const std::unique_ptr<RdmaConnection> connection = backend.connect(host, options.endpoint);
  const std::string device = connection->device_name();
  const std::string transport =
      options.transport.empty() ? rdma_transport(device, connection->link_layer()) : options.transport;
  if (transport.empty()) {
    throw InputError(device + ": unknown link layer '" + connection->link_layer() + "': pass --transport");
  }
  RdmaSeries latency;
  latency.provenance = probe_provenance("vtsim calibrate probe rdma", device, "libibverbs");
  latency.provenance.notes = "RC, peer " + host + ", link layer " + connection->link_layer() +
                             "; latency: median half round trip of " + std::to_string(options.latency_iterations) +
                             " write ping-pongs; bandwidth: " + std::to_string(options.bandwidth_iterations) +
                             " writes, " + std::to_string(options.depth) + " outstanding";
  latency.transport = transport;
  latency.op = "write";
  latency.test = "latency";
  RdmaSeries bandwidth = latency;
  bandwidth.test = "bandwidth";
  for (std::int64_t bytes : powers_of_two(options.min_bytes, options.endpoint.max_bytes)) {
    const std::vector<double> round_trips = connection->write_round_trips_s(bytes, options.latency_iterations);
    if (round_trips.empty()) throw ProbeFailed("RDMA write latency: no timings");
    RdmaPoint lat;
    lat.bytes = bytes;
    lat.latency_us = median(round_trips) / 2 / units::kSecondsPerUs;
    latency.points.push_back(lat);
    const double stream_s = connection->write_stream_s(bytes, options.bandwidth_iterations, options.depth);
    if (!(stream_s > 0)) throw ProbeFailed("RDMA write bandwidth: no time measured");
    RdmaPoint bw;
    bw.bytes = bytes;
    bw.bandwidth_gBps = static_cast<double>(bytes) * options.bandwidth_iterations / stream_s /
                        units::kBytesPerSecondPerGBps;
    bandwidth.points.push_back(bw);
  }
  connection->finish();
  return {latency, bandwidth};
}

}  // namespace vtsim::calibrate
