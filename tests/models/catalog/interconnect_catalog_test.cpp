#include "models/catalog/interconnect_catalog.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace vtsim {
namespace {

TEST(NvlinkCatalog, IdsAreUniqueAndEveryEntryIsSourced) {
  std::set<std::string> ids;
  for (const NvlinkSpec& spec : nvlink_catalog()) {
    EXPECT_TRUE(ids.insert(spec.id).second) << "duplicate " << spec.id;
    EXPECT_FALSE(spec.name.empty()) << spec.id;
    EXPECT_FALSE(spec.source.empty()) << spec.id;
    EXPECT_GT(spec.per_link_bandwidth_Bps, 0) << spec.id;
  }
}

TEST(NvlinkCatalog, FindNvlinkReturnsNullForUnknownId) {
  EXPECT_EQ(find_nvlink("nvlink6"), nullptr);
  EXPECT_EQ(find_nvlink(""), nullptr);
}

// A full set of links, both directions: the per-GPU figure of the GPU that introduced the generation.
struct GenerationCase {
  const char* id;
  double whitepaper_bidirectional_gBps;
};

class NvlinkGeneration : public testing::TestWithParam<GenerationCase> {};

TEST_P(NvlinkGeneration, FullLinkSetMatchesWhitepaperPerGpuBandwidth) {
  const NvlinkSpec* spec = find_nvlink(GetParam().id);
  ASSERT_NE(spec, nullptr);
  EXPECT_DOUBLE_EQ(spec->max_links_per_gpu * spec->per_link_bandwidth_Bps * 2,
                   GetParam().whitepaper_bidirectional_gBps * 1e9);
}

INSTANTIATE_TEST_SUITE_P(Whitepapers, NvlinkGeneration,
                         testing::Values(GenerationCase{"nvlink1", 160},                // P100: 4 x 20 x 2
                                         GenerationCase{"nvlink2", 300},                // V100: 6 x 25 x 2
                                         GenerationCase{"nvlink3", 600},                // A100: 12 x 25 x 2
                                         GenerationCase{"nvlink4", 900},                // H100: 18 x 25 x 2
                                         GenerationCase{"nvlink5", 1800},               // B200: 18 x 50 x 2
                                         GenerationCase{"nvlink-bridge-turing", 100}));  // TU102: 2 x 25 x 2

TEST(NvlinkCatalog, Nvlink3LinkIsFourLanesOf6p25GBps) {
  EXPECT_DOUBLE_EQ(find_nvlink("nvlink3")->per_link_bandwidth_Bps, 4 * 6.25e9);  // A100 whitepaper
}

TEST(PcieCatalog, HoldsGen3Gen4Gen5AtX16InOrder) {
  ASSERT_EQ(pcie_catalog().size(), 3u);
  for (std::size_t i = 0; i < pcie_catalog().size(); ++i) {
    EXPECT_EQ(pcie_catalog()[i].generation, static_cast<int>(i) + 3);
    EXPECT_EQ(pcie_catalog()[i].lanes, 16);
    EXPECT_FALSE(pcie_catalog()[i].source.empty());
  }
}

TEST(PcieCatalog, FindPcieReturnsNullForUncataloguedGeneration) {
  EXPECT_EQ(find_pcie(2), nullptr);
  EXPECT_EQ(find_pcie(6), nullptr);
  EXPECT_EQ(find_pcie(4)->generation, 4);
}

// x16 theoretical, one direction: GT/s x 128/130 x 16 lanes / 8 bits.
struct LineRateCase {
  int generation;
  double giga_transfers_per_s;
  double rounded_gBps;  // as commonly quoted: 15.75, 31.5, 63.0
};

class PcieLineRate : public testing::TestWithParam<LineRateCase> {};

TEST_P(PcieLineRate, TheoreticalX16MatchesLineRateAfter128b130bEncoding) {
  const PcieSpec* spec = find_pcie(GetParam().generation);
  ASSERT_NE(spec, nullptr);
  const double hand_derived_Bps = GetParam().giga_transfers_per_s * 1e9 * 128 / 130 * 16 / 8;
  EXPECT_NEAR(spec->theoretical_Bps, hand_derived_Bps, 1.0);
  EXPECT_NEAR(spec->theoretical_Bps / (GetParam().rounded_gBps * 1e9), 1.0, 1e-3);  // quoted to 3-4 digits
  EXPECT_DOUBLE_EQ(spec->lane_rate_transfers_per_s, GetParam().giga_transfers_per_s * 1e9);
}

INSTANTIATE_TEST_SUITE_P(PciSig, PcieLineRate,
                         testing::Values(LineRateCase{3, 8, 15.75}, LineRateCase{4, 16, 31.5},
                                         LineRateCase{5, 32, 63.0}));

TEST(PcieCatalog, TypicalMatchesPublishedMeasurementsWhereCalibrated) {
  // docs/hardware-facts.md [S]: ~12 GB/s on PCIe3 x16, ~25 GB/s on PCIe4 x16 (A100).
  EXPECT_DOUBLE_EQ(find_pcie(3)->typical_Bps, 12e9);
  EXPECT_FALSE(find_pcie(3)->typical_uncalibrated);
  EXPECT_DOUBLE_EQ(find_pcie(4)->typical_Bps, 25e9);
  EXPECT_FALSE(find_pcie(4)->typical_uncalibrated);
}

TEST(PcieCatalog, Gen5TypicalIsMarkedUncalibratedAndScalesGen4Fraction) {
  const PcieSpec& gen5 = *find_pcie(5);
  EXPECT_TRUE(gen5.typical_uncalibrated);
  EXPECT_NE(gen5.source.find("uncalibrated"), std::string::npos);
  // Same fraction of theoretical as the Gen4 measurement: 25 / 31.5 x 63.0 = 50 GB/s.
  EXPECT_NEAR(gen5.typical_Bps, 50e9, 0.01e9);
}

TEST(PcieCatalog, TypicalIsBelowTheoretical) {
  for (const PcieSpec& spec : pcie_catalog()) {
    EXPECT_GT(spec.typical_Bps, 0) << spec.generation;
    EXPECT_LT(spec.typical_Bps, spec.theoretical_Bps) << spec.generation;
  }
}

}  // namespace
}  // namespace vtsim
