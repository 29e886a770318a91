#include "models/catalog/gpu_catalog.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "models/catalog/interconnect_catalog.hpp"

namespace vtsim {
namespace {

const GpuSpec& gpu(const std::string& id) {
  const GpuSpec* spec = find_gpu(id);
  EXPECT_NE(spec, nullptr) << id;
  static const GpuSpec kMissing{};
  return spec ? *spec : kMissing;
}

TEST(GpuCatalog, ListsEveryGpuTheScenarioLoaderNames) {
  for (const char* id : {"t4", "quadro-rtx-6000", "quadro-rtx-8000", "p100-sxm2", "v100-sxm2-16gb", "v100-sxm2-32gb",
                         "a100-40gb-sxm4", "a100-80gb-sxm4", "h100-sxm5", "h200-sxm"}) {
    EXPECT_NE(find_gpu(id), nullptr) << id;
  }
}

TEST(GpuCatalog, IdsAreUniqueLowerCaseAndEveryEntryIsSourced) {
  std::set<std::string> ids;
  for (const GpuSpec& spec : gpu_catalog()) {
    EXPECT_TRUE(ids.insert(spec.id).second) << "duplicate " << spec.id;
    for (char c : spec.id) EXPECT_FALSE(c >= 'A' && c <= 'Z') << spec.id;
    EXPECT_FALSE(spec.name.empty()) << spec.id;
    EXPECT_FALSE(spec.architecture.empty()) << spec.id;
    EXPECT_FALSE(spec.source.empty()) << spec.id;
  }
}

TEST(GpuCatalog, FindGpuReturnsNullForUnknownId) {
  EXPECT_EQ(find_gpu("a100"), nullptr);
  EXPECT_EQ(find_gpu("A100-40GB-SXM4"), nullptr);
  EXPECT_EQ(find_gpu(""), nullptr);
}

TEST(GpuCatalog, EveryNvlinkIdExistsInNvlinkCatalogWithinItsLinkCount) {
  for (const GpuSpec& spec : gpu_catalog()) {
    if (spec.nvlink_id.empty()) {
      EXPECT_EQ(spec.nvlink_links, 0) << spec.id;
      continue;
    }
    const NvlinkSpec* nvlink = find_nvlink(spec.nvlink_id);
    ASSERT_NE(nvlink, nullptr) << spec.id << " names " << spec.nvlink_id;
    EXPECT_GT(spec.nvlink_links, 0) << spec.id;
    EXPECT_LE(spec.nvlink_links, nvlink->max_links_per_gpu) << spec.id;
  }
}

TEST(GpuCatalog, PcieGenerationExistsInPcieCatalog) {
  for (const GpuSpec& spec : gpu_catalog()) EXPECT_NE(find_pcie(spec.pcie_gen), nullptr) << spec.id;
}

// Per-GPU NVLink bandwidth as datasheets quote it: links x per-link rate x 2 directions.
struct NvlinkCase {
  const char* gpu_id;
  double datasheet_bidirectional_gBps;  // the GPU's datasheet
};

class GpuNvlinkBandwidth : public testing::TestWithParam<NvlinkCase> {};

TEST_P(GpuNvlinkBandwidth, MatchesDatasheet) {
  const GpuSpec& spec = gpu(GetParam().gpu_id);
  const NvlinkSpec* nvlink = find_nvlink(spec.nvlink_id);
  ASSERT_NE(nvlink, nullptr);
  const double bidirectional_Bps = spec.nvlink_links * nvlink->per_link_bandwidth_Bps * 2;
  EXPECT_DOUBLE_EQ(bidirectional_Bps, GetParam().datasheet_bidirectional_gBps * 1e9);
}

INSTANTIATE_TEST_SUITE_P(Datasheets, GpuNvlinkBandwidth,
                         testing::Values(NvlinkCase{"p100-sxm2", 160},        // P100 datasheet
                                         NvlinkCase{"v100-sxm2-16gb", 300},   // V100 datasheet
                                         NvlinkCase{"quadro-rtx-6000", 100},  // Quadro RTX 6000 datasheet
                                         NvlinkCase{"a100-40gb-sxm4", 600},   // A100 datasheet
                                         NvlinkCase{"a100-80gb-sxm4", 600},   // A100 datasheet
                                         NvlinkCase{"h100-sxm5", 900},        // H100 datasheet
                                         NvlinkCase{"h200-sxm", 900}));       // H200 datasheet

TEST(GpuCatalog, A100NvlinkBandwidthMatchesDatasheet600GBps) {
  // A100 whitepaper: 12 NVLink3 links, each 4 lanes x 6.25 GB/s per direction.
  const GpuSpec& a100 = gpu("a100-40gb-sxm4");
  const double per_link_Bps = find_nvlink(a100.nvlink_id)->per_link_bandwidth_Bps;
  EXPECT_DOUBLE_EQ(per_link_Bps, 4 * 6.25e9);
  EXPECT_DOUBLE_EQ(a100.nvlink_links * per_link_Bps * 2, 600e9);
}

TEST(GpuCatalog, T4HasNoNvlink) { EXPECT_TRUE(gpu("t4").nvlink_id.empty()); }

// Dense peaks as written in each datasheet or whitepaper, TFLOP/s; 0 = the GPU has no such path.
struct PeakCase {
  const char* gpu_id;
  Precision precision;
  double tflops;
};

class GpuPeakFlops : public testing::TestWithParam<PeakCase> {};

TEST_P(GpuPeakFlops, MatchesPublishedDensePeak) {
  const std::optional<double> peak = gpu(GetParam().gpu_id).peak_flops(GetParam().precision);
  if (GetParam().tflops == 0) {
    EXPECT_FALSE(peak.has_value());
  } else {
    ASSERT_TRUE(peak.has_value());
    EXPECT_NEAR(*peak / (GetParam().tflops * 1e12), 1.0, 1e-3);  // datasheets round to 3-4 digits
  }
}

INSTANTIATE_TEST_SUITE_P(
    Datasheets, GpuPeakFlops,
    testing::Values(PeakCase{"t4", Precision::fp32, 8.1}, PeakCase{"t4", Precision::fp16, 65},  // T4 datasheet
                    PeakCase{"t4", Precision::tf32, 0}, PeakCase{"t4", Precision::bf16, 0},
                    PeakCase{"quadro-rtx-8000", Precision::fp16, 130.5},                    // RTX 8000 datasheet
                    PeakCase{"p100-sxm2", Precision::fp32, 10.6},                           // P100 datasheet
                    PeakCase{"p100-sxm2", Precision::fp16, 21.2},                           // P100 datasheet
                    PeakCase{"v100-sxm2-32gb", Precision::fp16, 125},                       // V100 datasheet
                    PeakCase{"v100-sxm2-32gb", Precision::tf32, 0},
                    PeakCase{"a100-40gb-sxm4", Precision::tf32, 156},                       // A100 datasheet
                    PeakCase{"a100-80gb-sxm4", Precision::bf16, 312},                       // A100 datasheet
                    PeakCase{"h100-sxm5", Precision::tf32, 494.7},                          // H100 whitepaper
                    PeakCase{"h200-sxm", Precision::bf16, 1979.0 / 2},    // H200 datasheet: 1,979 with sparsity
                    // PCIe cards, datasheet tables as copied in public spec lists [S] (models/catalog/gpu_catalog.cpp)
                    PeakCase{"a10", Precision::fp16, 250.0 / 2},        // A10: 250 with sparsity
                    PeakCase{"a30", Precision::tf32, 82},               // A30: 82 (165 with sparsity)
                    PeakCase{"a40", Precision::bf16, 299.4 / 2},        // A40: 299.4 with sparsity
                    PeakCase{"rtx-a6000", Precision::fp16, 309.7 / 2},  // RTX A6000: 309.7 with sparsity
                    PeakCase{"h100-pcie", Precision::fp16, 1513.0 / 2}, // H100 PCIe: 1,513 with sparsity
                    PeakCase{"h100-nvl", Precision::bf16, 1671.0 / 2},  // H100 NVL: 1,671 with sparsity
                    PeakCase{"h200-nvl", Precision::fp16, 1671.0 / 2},  // H200 NVL: 1,671 with sparsity
                    PeakCase{"v100-pcie-16gb", Precision::fp16, 112},   // V100 PCIe datasheet
                    PeakCase{"v100-pcie-16gb", Precision::bf16, 0},
                    PeakCase{"a16", Precision::fp16, 17.9},             // A16, per GPU: 17.9 (35.9 with sparsity)
                    PeakCase{"a16", Precision::tf32, 9},                // A16, per GPU: 9 (18 with sparsity)
                    // Ada and Blackwell, their tables as quoted [S] (models/catalog/gpu_catalog.cpp, ADA AND BLACKWELL)
                    PeakCase{"l4", Precision::fp16, 242.0 / 2},         // L4: 242 with sparsity
                    PeakCase{"l40", Precision::bf16, 362.1 / 2},        // L40: 362.1 with sparsity
                    PeakCase{"l40s", Precision::tf32, 366.0 / 2},       // L40S: 366 with sparsity
                    PeakCase{"b200-sxm", Precision::bf16, 4500.0 / 2},  // HGX B200: 4.5 PFLOPS with sparsity
                    PeakCase{"b200-sxm", Precision::fp32, 75},
                    // GB200 at 1,200 W (Blackwell datasheet as quoted [S]): 5,000 with sparsity; NVL72's 720 PFLOPS
                    // of FP8 with sparsity over 72 GPUs, halved for 16 bits and again for density
                    PeakCase{"gb200", Precision::bf16, 720000.0 / 72 / 2 / 2},
                    PeakCase{"gb200", Precision::fp32, 90}));

// FP32 peak = SMs x FP32 lanes per SM x 2 flop per FMA x boost clock (architecture whitepapers).
struct ClockCase {
  const char* gpu_id;
  int fp32_lanes_per_sm;
  double boost_clock_hz;
};

class GpuFp32Peak : public testing::TestWithParam<ClockCase> {};

TEST_P(GpuFp32Peak, MatchesSmsTimesLanesTimesBoostClockWithinOnePercent) {
  const GpuSpec& spec = gpu(GetParam().gpu_id);
  const double derived_flops = spec.sm_count * GetParam().fp32_lanes_per_sm * 2.0 * GetParam().boost_clock_hz;
  EXPECT_NEAR(spec.fp32_flops / derived_flops, 1.0, 0.01) << spec.id;
}

INSTANTIATE_TEST_SUITE_P(Whitepapers, GpuFp32Peak,
                         testing::Values(ClockCase{"p100-sxm2", 64, 1480e6},        // P100 whitepaper: 1480 MHz
                                         ClockCase{"v100-sxm2-16gb", 64, 1530e6},   // V100 SXM2 boost 1530 MHz
                                         ClockCase{"t4", 64, 1590e6},               // T4 boost 1590 MHz
                                         ClockCase{"quadro-rtx-6000", 64, 1770e6},  // RTX 6000 boost 1770 MHz [S]
                                         ClockCase{"a100-40gb-sxm4", 64, 1410e6},   // A100 whitepaper: 1410 MHz
                                         ClockCase{"h100-sxm5", 128, 1980e6},       // H100 SXM5 boost 1980 MHz
                                         // GA100 64 FP32 lanes per SM, GA102 128 (Ampere GA102 whitepaper); max
                                         // clocks as deviceQuery reports them on each card [S]
                                         ClockCase{"a30", 64, 1440e6}, ClockCase{"a10", 128, 1695e6},
                                         ClockCase{"a40", 128, 1740e6}, ClockCase{"rtx-a6000", 128, 1800e6},
                                         ClockCase{"h100-pcie", 128, 1755e6},
                                         // Ada: 128 FP32 lanes per SM (Ada whitepaper, as quoted [S]); boost clocks
                                         // as the product briefs and deviceQuery give them [S]
                                         ClockCase{"l4", 128, 2040e6}, ClockCase{"l40", 128, 2490e6},
                                         ClockCase{"l40s", 128, 2520e6},
                                         // B200: 128 lanes; the 1,965 MHz SM clock measured in use [S]
                                         ClockCase{"b200-sxm", 128, 1965e6}));

// Memory: datasheet capacity in GB read as GiB; bandwidth in GB/s decimal.
struct MemoryCase {
  const char* gpu_id;
  double capacity_gib;
  double bandwidth_gBps;
};

class GpuMemory : public testing::TestWithParam<MemoryCase> {};

TEST_P(GpuMemory, MatchesDatasheet) {
  const GpuSpec& spec = gpu(GetParam().gpu_id);
  EXPECT_DOUBLE_EQ(spec.memory_bytes, GetParam().capacity_gib * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(spec.memory_bandwidth_Bps, GetParam().bandwidth_gBps * 1e9);
}

INSTANTIATE_TEST_SUITE_P(Datasheets, GpuMemory,
                         testing::Values(MemoryCase{"t4", 16, 320}, MemoryCase{"quadro-rtx-6000", 24, 672},
                                         MemoryCase{"quadro-rtx-8000", 48, 672}, MemoryCase{"p100-sxm2", 16, 732},
                                         MemoryCase{"v100-sxm2-32gb", 32, 900},
                                         MemoryCase{"a100-40gb-sxm4", 40, 1555},
                                         MemoryCase{"a100-80gb-sxm4", 80, 2039}, MemoryCase{"h100-sxm5", 80, 3350},
                                         MemoryCase{"h200-sxm", 141, 4800}, MemoryCase{"a10", 24, 600},
                                         MemoryCase{"a30", 24, 933}, MemoryCase{"a40", 48, 696},
                                         MemoryCase{"rtx-a6000", 48, 768}, MemoryCase{"h100-pcie", 80, 2000},
                                         MemoryCase{"h100-nvl", 94, 3900}, MemoryCase{"h200-nvl", 141, 4800},
                                         MemoryCase{"v100-pcie-16gb", 16, 900}, MemoryCase{"a16", 16, 200},
                                         // GB200: 13.4 TB of HBM3e over 72 GPUs (186 GB, MLPerf), 8 TB/s [S]
                                         MemoryCase{"gb200", 186, 8000}));

TEST(GpuCatalog, P100HasNoTensorCoresSoFp16IsTwiceFp32) {
  const GpuSpec& p100 = gpu("p100-sxm2");
  EXPECT_DOUBLE_EQ(*p100.peak_flops(Precision::fp16), 2 * p100.fp32_flops);
}

TEST(GpuCatalog, TensorCoreGenerationsSupportTheRightFormats) {
  for (const GpuSpec& spec : gpu_catalog()) {
    const bool ampere_or_later = spec.architecture == "Ampere" || spec.architecture == "Ada" ||
                                 spec.architecture == "Hopper" || spec.architecture == "Blackwell";
    EXPECT_EQ(spec.tf32_flops.has_value(), ampere_or_later) << spec.id;
    EXPECT_EQ(has_tf32_tensor_cores(spec.architecture), ampere_or_later) << spec.id;
    EXPECT_EQ(spec.bf16_flops.has_value(), ampere_or_later) << spec.id;
    EXPECT_TRUE(spec.fp16_flops.has_value()) << spec.id;
    EXPECT_DOUBLE_EQ(*spec.peak_flops(Precision::fp32), spec.fp32_flops) << spec.id;
  }
}

TEST(GpuCatalog, A100MigLeaves98Of108SmsUsable) {
  // MIG user guide -lgip (7g.40gb: 98 SMs) against the A100 whitepaper's 108 SMs.
  EXPECT_EQ(gpu("a100-40gb-sxm4").sm_count, 108);
  EXPECT_EQ(gpu("a100-40gb-sxm4").mig_sm_count, 98);
  EXPECT_EQ(gpu("a100-80gb-sxm4").mig_sm_count, 98);
}

TEST(GpuCatalog, MigOnlyOnGpusTheMigGuideListsAndNeverMoreSmsThanTheGpu) {
  // MIG user guide, "Supported GPUs": the A100s, A30, H100 (SXM5, PCIe, NVL), H200 (SXM, NVL) and B200. The H200
  // NVL's and GB200's profiles are not catalogued (no -lgip listing found), so they have none here.
  const std::set<std::string> catalogued = {"a100-40gb-sxm4", "a100-80gb-sxm4", "a100-40gb-pcie", "a100-80gb-pcie",
                                            "a30", "h100-sxm5", "h100-pcie", "h100-nvl", "h200-sxm", "b200-sxm"};
  for (const GpuSpec& spec : gpu_catalog()) {
    EXPECT_EQ(spec.mig_sm_count > 0, catalogued.contains(spec.id)) << spec.id;
    EXPECT_LE(spec.mig_sm_count, spec.sm_count) << spec.id;
  }
}

TEST(GpuCatalog, ComputeCapabilityIsTheChipsNotTheArchitectures) {
  // CUDA GPUs list: GA100 8.0 (A100, A30), GA102 8.6 (A10, A40, RTX A6000), GP100 6.0, GP104 6.1 (P4); GA107 8.6
  // (A16), as its devices report it [S].
  EXPECT_EQ(gpu("a30").compute_capability, 80);
  for (const char* ga10x : {"a10", "a40", "rtx-a6000", "a16"}) EXPECT_EQ(gpu(ga10x).compute_capability, 86) << ga10x;
  EXPECT_EQ(gpu("p100-pcie-16gb").compute_capability, 60);
  EXPECT_EQ(gpu("p4").compute_capability, 61);
  const std::map<std::string, int> major = {{"Pascal", 6}, {"Volta", 7},  {"Turing", 7},    {"Ampere", 8},
                                            {"Ada", 8},    {"Hopper", 9}, {"Blackwell", 10}};
  for (const char* ad10x : {"l4", "l40", "l40s"}) EXPECT_EQ(gpu(ad10x).compute_capability, 89) << ad10x;
  for (const GpuSpec& spec : gpu_catalog()) EXPECT_EQ(spec.compute_capability / 10, major.at(spec.architecture)) << spec.id;
}

TEST(GpuCatalog, A30RunsTheA100sTensorRatePerSmAndClock) {
  // Both GA100: 2,048 dense FP16 flop per SM per clock (A100 whitepaper: 312 TFLOPS = 108 SMs x 1,410 MHz x 2,048),
  // so the A30's datasheet 165 TFLOPS over its 56 SMs at 1,440 MHz must be the same within rounding.
  const double a100 = *gpu("a100-40gb-sxm4").fp16_flops / (108 * 1410e6);
  const double a30 = *gpu("a30").fp16_flops / (gpu("a30").sm_count * 1440e6);
  EXPECT_NEAR(a30 / a100, 1.0, 0.01);
}

TEST(GpuCatalog, A16sDatasheetPeaksImplyOneClockAtItsTenSms) {
  // No boost clock is published for the A16; its FP32 peak over 10 SMs x 128 lanes x 2 and its FP16 peak over 10 SMs x
  // 1,024 dense flop per clock (the A10's: 125 TFLOPS = 72 SMs x 1,695 MHz x 1,024) must give the same clock.
  const GpuSpec& a16 = gpu("a16");
  const double fp32_clock = a16.fp32_flops / (a16.sm_count * 128 * 2.0);
  const double fp16_clock = *a16.fp16_flops / (a16.sm_count * 1024.0);
  EXPECT_NEAR(fp32_clock / fp16_clock, 1.0, 0.01);
  EXPECT_NEAR(*gpu("a10").fp16_flops / (gpu("a10").sm_count * 1695e6), 1024.0, 1024.0 * 0.01);
}

TEST(GpuCatalog, Fp8FromAdaAndHopperOnAtTwiceThe16BitRate) {
  for (const GpuSpec& spec : gpu_catalog()) {
    const bool fp8 = spec.architecture == "Ada" || spec.architecture == "Hopper" || spec.architecture == "Blackwell";
    EXPECT_EQ(spec.fp8_flops.has_value(), fp8) << spec.id;
    // The FP8 tensor rate is twice the 16-bit one (H100 whitepaper: 1,978.9 against 989.4 dense; B200 4,500 against
    // 2,250). The L40S's datasheet prints 733 against 362.05 (its 733 with sparsity halves to 366.4): 2.5% over.
    if (spec.fp8_flops) {
      EXPECT_NEAR(*spec.fp8_flops / *spec.fp16_flops, 2.0, 0.03) << spec.id;
    }
  }
}

TEST(GpuCatalog, AdaCardsRunFp32AccumulationAtTheRateTheirDatasheetsImply) {
  // Dense 16-bit flop per clock per SM at the boost clock: the L4 and L40S 1,024 (FP32 accumulation at full rate),
  // the L40 512 (half rate, as GeForce Ada: RTX 4090 165.2 against 330.3 TFLOPS with FP16 accumulation).
  const auto per_sm_clock = [](const char* id, double boost_hz) {
    return *gpu(id).fp16_flops / (gpu(id).sm_count * boost_hz);
  };
  EXPECT_NEAR(per_sm_clock("l4", 2040e6), 1024, 1024 * 0.01);
  EXPECT_NEAR(per_sm_clock("l40s", 2520e6), 1024, 1024 * 0.015);  // 362.05 printed where 1,024 gives 366.4
  EXPECT_NEAR(per_sm_clock("l40", 2490e6), 512, 512 * 0.01);
}

TEST(GpuCatalog, EveryGpuHasItsDatasheetPowerLimit) {
  for (const GpuSpec& spec : gpu_catalog()) {
    EXPECT_GE(spec.max_power_w, 62.5) << spec.id;  // an A16 GPU's quarter of its board's 250 W is the lowest
    EXPECT_LE(spec.max_power_w, 1200) << spec.id;  // the GB200's 1,200 W the highest
  }
  EXPECT_EQ(gpu("a30").max_power_w, 165);    // A30 datasheet [S]
  EXPECT_EQ(gpu("gb200").max_power_w, 1200);  // Blackwell datasheet's GB200 column, as quoted [S]
  EXPECT_EQ(gpu("a16").max_power_w, 250.0 / 4);  // A16 datasheet [S]: 250 W the board of four GPUs
}

}  // namespace
}  // namespace vtsim
