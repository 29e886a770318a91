#include "models/catalog/nic_catalog.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "models/catalog/interconnect_catalog.hpp"

namespace vtsim {
namespace {

constexpr Transport kAllTransports[] = {Transport::roce_v1, Transport::roce_v2, Transport::pvrdma, Transport::tcp,
                                        Transport::infiniband};

TEST(Transport, SpellingsRoundTrip) {
  for (Transport transport : kAllTransports) EXPECT_EQ(parse_transport(to_string(transport)), transport);
  EXPECT_EQ(to_string(Transport::roce_v2), "roce_v2");
  EXPECT_EQ(to_string(Transport::pvrdma), "pvrdma");
}

TEST(Transport, ParseRejectsUnknownSpellings) {
  EXPECT_EQ(parse_transport("rocev2"), std::nullopt);
  EXPECT_EQ(parse_transport("TCP"), std::nullopt);
  EXPECT_EQ(parse_transport(""), std::nullopt);
}

TEST(TransportCatalog, HasOneEntryPerTransportInEnumOrder) {
  ASSERT_EQ(transport_catalog().size(), std::size(kAllTransports));
  for (std::size_t i = 0; i < std::size(kAllTransports); ++i) {
    EXPECT_EQ(transport_catalog()[i].transport, kAllTransports[i]);
    EXPECT_EQ(transport_spec(kAllTransports[i]).transport, kAllTransports[i]);
  }
}

TEST(TransportCatalog, EveryEntryIsSourcedAndPhysicallyPlausible) {
  for (const TransportSpec& spec : transport_catalog()) {
    EXPECT_FALSE(spec.description.empty()) << to_string(spec.transport);
    EXPECT_FALSE(spec.source.empty()) << to_string(spec.transport);
    EXPECT_GE(spec.added_latency_s, 0) << to_string(spec.transport);
    EXPECT_GT(spec.bandwidth_efficiency, 0) << to_string(spec.transport);
    EXPECT_LE(spec.bandwidth_efficiency, 1) << to_string(spec.transport);
  }
}

TEST(TransportCatalog, RoceV1IsNotRoutable) {
  // IBTA Annex A16: RoCE v1 is an Ethernet link-layer protocol, one broadcast domain.
  EXPECT_FALSE(transport_spec(Transport::roce_v1).routable);
  EXPECT_TRUE(transport_spec(Transport::roce_v2).routable);  // Annex A17: UDP/IP
  EXPECT_TRUE(transport_spec(Transport::tcp).routable);
}

TEST(TransportCatalog, PvrdmaAndTcpAreMarkedUncalibrated) {
  // No published PVRDMA or in-VM TCP latency/bandwidth figure backs these defaults (docs/hardware-facts.md).
  EXPECT_TRUE(transport_spec(Transport::pvrdma).uncalibrated);
  EXPECT_TRUE(transport_spec(Transport::tcp).uncalibrated);
  EXPECT_NE(transport_spec(Transport::pvrdma).source.find("uncalibrated"), std::string::npos);
  EXPECT_NE(transport_spec(Transport::tcp).source.find("uncalibrated"), std::string::npos);
  EXPECT_FALSE(transport_spec(Transport::roce_v2).uncalibrated);
}

TEST(TransportCatalog, RoceEfficiencyMatchesIbSendBw97GbpsOn100GbE) {
  // ib_send_bw at 64 KiB over 100 GbE: ~97 Gb/s [S].
  for (Transport transport : {Transport::roce_v1, Transport::roce_v2}) {
    EXPECT_NEAR(transport_spec(transport).bandwidth_efficiency * 100, 97, 0.5) << to_string(transport);
  }
}

TEST(TransportCatalog, InfinibandCarriesWhatIbWriteBwMeasuresUnderItsHeaderCeiling) {
  // ib_write_bw, 8 MiB: 392.8 of 400 Gb/s on NDR, 195.6 of 200 on HDR [S], both 0.98 to two digits; LRH 8 + BTH 12 +
  // ICRC 4 + VCRC 2 bytes per 4096-byte packet cap it at 4096 / 4122.
  const TransportSpec& infiniband = transport_spec(Transport::infiniband);
  EXPECT_NEAR(infiniband.bandwidth_efficiency, 392.8 / 400, 0.005);
  EXPECT_NEAR(infiniband.bandwidth_efficiency, 195.6 / 200, 0.005);
  EXPECT_LT(infiniband.bandwidth_efficiency, 4096.0 / (4096 + 8 + 12 + 4 + 2));
  EXPECT_TRUE(infiniband.gpudirect_rdma);
  EXPECT_TRUE(infiniband.routable);
  // Only the cards whose documents name an InfiniBand rate speak it: the VPI ConnectX cards and BlueField-3 (NDR).
  for (const NicSpec& nic : nic_catalog()) {
    const bool named = nic.name.find("VPI") != std::string::npos || nic.name.find("NDR") != std::string::npos;
    EXPECT_EQ(nic.infiniband, named) << nic.id;
  }
}

TEST(TransportCatalog, RoceOneWayLatencyMatchesIbSendLat0p81us) {
  // ib_send_lat, RC, 32 B: 0.81 us one-way [S]; the NIC brief's 600 ns plus the transport's share.
  const NicSpec* nic = find_nic("connectx-5-100gbe");
  ASSERT_NE(nic, nullptr);
  EXPECT_NEAR(nic->latency_s + transport_spec(Transport::roce_v2).added_latency_s, 0.81e-6, 1e-12);
}

TEST(TransportCatalog, TcpEfficiencyIsMtu1500FramingCeiling) {
  // Per 1500-byte frame: 1500 - 20 IP - 20 TCP - 12 timestamp option = 1448 payload bytes;
  // on the wire 1500 + 14 header + 4 FCS + 8 preamble + 12 gap = 1538 bytes.
  EXPECT_DOUBLE_EQ(transport_spec(Transport::tcp).bandwidth_efficiency, 1448.0 / 1538.0);
  EXPECT_LT(transport_spec(Transport::tcp).bandwidth_efficiency,
            transport_spec(Transport::roce_v2).bandwidth_efficiency);
}

TEST(TransportCatalog, SoftwareTransportsAddMoreLatencyThanRoce) {
  const double roce_s = transport_spec(Transport::roce_v2).added_latency_s;
  EXPECT_GT(transport_spec(Transport::pvrdma).added_latency_s, roce_s);
  EXPECT_GT(transport_spec(Transport::tcp).added_latency_s, transport_spec(Transport::pvrdma).added_latency_s);
}

TEST(NicCatalog, ListsTheNicsScenariosName) {
  for (const char* id : {"connectx-5-25gbe", "connectx-5-100gbe", "connectx-6-200gb"}) {
    EXPECT_NE(find_nic(id), nullptr) << id;
  }
  EXPECT_EQ(find_nic("connectx-7"), nullptr);
}

TEST(NicCatalog, IdsAreUniqueAndEveryEntryIsSourced) {
  std::set<std::string> ids;
  for (const NicSpec& nic : nic_catalog()) {
    EXPECT_TRUE(ids.insert(nic.id).second) << "duplicate " << nic.id;
    EXPECT_FALSE(nic.name.empty()) << nic.id;
    EXPECT_FALSE(nic.source.empty()) << nic.id;
    EXPECT_GE(nic.ports, 1) << nic.id;
  }
}

// Line rates in Gb/s as the product briefs name them, converted to bytes/s by hand (/8).
struct NicLineRateCase {
  const char* id;
  double gbps;
  double brief_latency_ns;  // "sub-600ns" / "sub 0.8usec"
};

class NicLineRate : public testing::TestWithParam<NicLineRateCase> {};

TEST_P(NicLineRate, MatchesProductBrief) {
  const NicSpec* nic = find_nic(GetParam().id);
  ASSERT_NE(nic, nullptr);
  EXPECT_DOUBLE_EQ(nic->line_rate_Bps, GetParam().gbps * 1e9 / 8);
  EXPECT_DOUBLE_EQ(nic->latency_s, GetParam().brief_latency_ns * 1e-9);
}

INSTANTIATE_TEST_SUITE_P(ProductBriefs, NicLineRate,
                         testing::Values(NicLineRateCase{"connectx-5-25gbe", 25, 600},
                                         NicLineRateCase{"connectx-5-100gbe", 100, 600},
                                         NicLineRateCase{"connectx-6-200gb", 200, 800},
                                         NicLineRateCase{"connectx-6-vpi-hdr", 200, 600},
                                         NicLineRateCase{"connectx-7-400g", 400, 600},
                                         NicLineRateCase{"bluefield-3-400g", 400, 600}));

TEST(NicCatalog, ABorrowedLatencySaysSo) {
  // ConnectX-7's and BlueField-3's documentation publish no latency: the ConnectX-6 VPI's is borrowed and flagged;
  // the others are their own briefs'.
  for (const NicSpec& nic : nic_catalog()) {
    EXPECT_EQ(nic.latency_uncalibrated, nic.id == "connectx-7-400g" || nic.id == "bluefield-3-400g") << nic.id;
    if (nic.latency_uncalibrated) {
      EXPECT_NE(nic.source.find("uncalibrated"), std::string::npos) << nic.id;
    }
  }
}

TEST(NicCatalog, HostInterfaceCarriesOnePortAtLineRate) {
  // An x8 link has half an x16's lanes; the PCIe catalog gives x16 after encoding.
  for (const NicSpec& nic : nic_catalog()) {
    const PcieSpec* pcie = find_pcie(nic.pcie_gen);
    ASSERT_NE(pcie, nullptr) << nic.id;
    const double host_Bps = pcie->theoretical_Bps * nic.pcie_lanes / 16.0;
    EXPECT_GE(host_Bps, nic.line_rate_Bps) << nic.id;
  }
}

}  // namespace
}  // namespace vtsim
