#pragma once
// NIC and transport catalog: network adapters from their product briefs, and the transports a VM can use between
// hosts (RoCE v1/v2 on a passed-through or SR-IOV NIC, VMware paravirtual RDMA, TCP).
//
// A message of n bytes between hosts costs, before switches and wires:
//   nic.latency_s + transport.added_latency_s + n / (nic.line_rate_Bps * transport.bandwidth_efficiency).
// Every number is cited in nic_catalog.cpp; transports without a published figure say so in `uncalibrated`.

#include "models/catalog/catalog_guard.hpp"  // refused in sim/ and models/network/

#include <string_view>
#include <vector>

#include "models/catalog/nic_spec.hpp"

namespace vtsim {

/// One entry per Transport, in enum order. Built once, never changes.
const std::vector<TransportSpec>& transport_catalog();

/// The catalog entry of `transport` (every Transport has one).
const TransportSpec& transport_spec(Transport transport);

/// Every catalogued NIC. Built once, never changes.
const std::vector<NicSpec>& nic_catalog();

/// The NIC with this id, or nullptr when unknown.
const NicSpec* find_nic(std::string_view id);

}  // namespace vtsim
