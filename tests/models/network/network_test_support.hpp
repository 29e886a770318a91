#pragma once
// Topologies written by hand for the network model's tests (one copy: the test files of a target compile in unity
// batches).

#include "models/network/topology.hpp"

namespace vtsim::test_support {

/// Two one-GPU hosts in one rack, one NIC each, no NVLink: PCIe links of 25 GB/s and 0.5 us, NICs of 12 GB/s and
/// 2 us per message, a leaf switch of 0.3 us. A route between the GPUs is PCIe, NIC, leaf, NIC, PCIe.
inline TopologySpec two_one_gpu_hosts() {
  TopologySpec spec;
  spec.gpus_per_host = 1;
  spec.hosts_per_rack = 2;
  spec.nics_per_host = 1;
  spec.switch_latency_s = 0.3e-6;
  spec.pcie = {.bandwidth_Bps = 25e9, .latency_s = 0.5e-6, .uncalibrated = false, .source = "test"};
  spec.nic = {.bandwidth_Bps = 12e9, .latency_s = 2e-6, .uncalibrated = false, .source = "test"};
  return spec;
}

}  // namespace vtsim::test_support
