#include "models/gpu_catalog.hpp"

#include "models/units.hpp"

// Sources. [S] marks a secondary source (third-party page, public repository) where no primary one was at hand.
//   T4 DS     NVIDIA T4 Tensor Core GPU datasheet: 2,560 CUDA cores, 320 Turing Tensor Cores, FP32 8.1 TFLOPS,
//             FP16/FP32 mixed 65 TFLOPS, 16 GB GDDR6, 320+ GB/s, PCIe Gen3 x16, no NVLink.
//   QRTX DS   NVIDIA Quadro RTX 6000 / RTX 8000 datasheets: 4,608 CUDA cores, 576 Tensor Cores, FP32 16.3 TFLOPS,
//             tensor 130.5 TFLOPS, 24 / 48 GB GDDR6, 672 GB/s, NVLink bridge joining two cards at 100 GB/s
//             bidirectional, PCIe 3.0 x16. Cores, FP32 and bandwidth also confirmed on [S] chip.pl (2018-10) and
//             sysrqmts.com (72 SMs, 672.0 GB/s).
//   TURING WP NVIDIA Turing GPU Architecture whitepaper (2018): 64 FP32 cores per Turing SM.
//   P100 DS   NVIDIA Tesla P100 datasheet, NVLink-optimized (SXM2) version: FP64 5.3, FP32 10.6, FP16 21.2 TFLOPS,
//             16 GB CoWoS HBM2, 732 GB/s, NVLink 160 GB/s. P100 has no tensor cores: its FP16 rate is packed half2
//             arithmetic at twice FP32 (P100 whitepaper). 56 SMs (P100 whitepaper; also [S] hothardware/tech4gamers).
//   V100 DS   NVIDIA Tesla V100 datasheet, SXM2 column: FP32 15.7 TFLOPS, tensor 125 TFLOPS, 16 or 32 GB HBM2,
//             900 GB/s, NVLink 300 GB/s. 80 SMs (Volta whitepaper, 2017).
//   A100 DS   NVIDIA A100 Tensor Core GPU datasheet: FP32 19.5, TF32 156, BF16 312, FP16 312 TFLOPS dense
//             (312/624/624 are the sparse figures), 40GB HBM2 1,555 GB/s / 80GB HBM2e 2,039 GB/s (SXM), NVLink
//             600 GB/s, PCIe Gen4. 108 SMs (A100 whitepaper, 2020).
//   A100 MIG  NVIDIA MIG user guide, `nvidia-smi mig -lgip` on A100-SXM4-40GB: 7g.40gb has 98 SMs; 10 of the 108 are
//             not usable with MIG on (also CERN blog [S]).
//   H100 WP   NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022), H100 SXM5 column: 132 SMs, FP32 66.9,
//             TF32 494.7, FP16 989.4, BF16 989.4 TFLOPS dense.
//   H100 DS   NVIDIA H100 Tensor Core GPU datasheet: SXM 80 GB HBM3, 3.35 TB/s, NVLink 900 GB/s (18 links), PCIe Gen5.
//   H100 MIG  [S] `nvidia-smi mig -lgip` on "NVIDIA H100 80GB HBM3" quoted in public notes: 7g.80gb has 132 SMs.
//   H200 DS   NVIDIA H200 Tensor Core GPU datasheet, SXM column: 141 GB HBM3e, 4.8 TB/s, NVLink 900 GB/s, PCIe
//             Gen5; FP32 67, TF32 989*, BF16/FP16 1,979* TFLOPS (* = with sparsity, dense is half): the H100 SXM5's
//             compute, so the dense peaks below are the H100 whitepaper's. Also MLCommons system descriptions [P].
//   H200 MIG  [S] `nvidia-smi mig -lgip` on H200 quoted in a public repository's parser test: 7g.141gb has 132 SMs.
//   P100 PCIE [S] NVIDIA Tesla P100 PCIe datasheet as quoted by Microway: FP32 9.3, FP16 18.7 TFLOPS (half2, no
//             tensor cores), 16 GB HBM2, 732 GB/s, PCIe 3.0 x16; 56 SMs and 4,096 KB L2 as deviceQuery reports them.
//   P4 DS     [S] NVIDIA Tesla P4 datasheet as quoted in launch coverage: FP32 5.5 TFLOPS, 8 GB GDDR5, 192 GB/s,
//             PCIe 3.0 x16, 50/75 W. GP104 [S]: GP104 runs FP16 at 1/64 of its FP32 rate (AnandTech's GTX 1080
//             review, "FP16 throughput"). 20 SMs and 2,097,152 B L2 as deviceQuery reports.
//   V100 PCIE [S] NVIDIA Tesla V100 datasheet, PCIe column: FP32 14, tensor 112 TFLOPS, 32 GB HBM2, 900 GB/s, no
//             NVLink; 80 SMs, 6,144 KB L2 as deviceQuery on a V100-PCIE-32GB reports.
//   A100 PCIE A100 DS, PCIe columns: the SXM4 card's peaks; 40GB HBM2 1,555 GB/s, 80GB HBM2e 1,935 GB/s, PCIe Gen4;
//             108 SMs and 40,960 KB L2 (A100 whitepaper; deviceQuery on both PCIe cards [S]). Their NVLink bridge
//             (three cards' worth of links between two cards) is not modelled: these entries have no NVLink.
//   L2        L2 sizes of the SXM parts: A100 whitepaper table 3 (P100 4,096 KB, V100 6,144 KB, A100 40,960 KB),
//             Turing whitepaper table 1 (Quadro RTX 6000 6,144 KB), H100 whitepaper (H100 SXM5 50 MB); T4 4 MB and
//             H200 60 MB as the devices report them [S] (NVIDIA's H200 material gives no L2 size; a public spec
//             file says 50 MB, a torch reading on an H200 60 MB, the full GH100's size: unconfirmed).
//   MEMORY    Capacities are binary: [S] nvidia-smi on an A100 80GB (driver 515, public GPU Operator tutorial) reports
//             81920 MiB total, i.e. 80 GiB; NVIDIA's vGPU tables size full-GPU profiles likewise (A100X-40C:
//             40960 MiB). Bandwidths are decimal GB/s.

namespace vtsim {
namespace {

constexpr double tflops(double value) { return units::tflops_to_flops(value); }
constexpr double gib(double value) { return value * units::kBytesPerGiB; }
constexpr double gBps(double value) { return units::gBps_to_Bps(value); }
constexpr double mib(double value) { return value * 1024.0 * 1024.0; }

std::vector<GpuSpec> build_gpu_catalog() {
  std::vector<GpuSpec> gpus;
  gpus.push_back({
      .id = "p100-sxm2",
      .name = "NVIDIA Tesla P100 SXM2 16GB",
      .architecture = "Pascal",
      .fp32_flops = tflops(10.6),  // P100 DS
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(21.2),  // P100 DS; half2 on CUDA cores, no tensor cores
      .bf16_flops = std::nullopt,
      .memory_bytes = gib(16),             // P100 DS, 16 GB HBM2
      .memory_bandwidth_Bps = gBps(732),   // P100 DS
      .l2_bytes = mib(4),                     // P100 whitepaper / A100 WP table 3: 4,096 KB
      .sm_count = 56,                      // P100 whitepaper
      .mig_sm_count = 0,                   // no MIG before Ampere
      .nvlink_id = "nvlink1",
      .nvlink_links = 4,                   // P100 DS: 160 GB/s = 4 links x 20 GB/s x 2 directions
      .pcie_gen = 3,                       // P100 DS
      .source = "NVIDIA Tesla P100 datasheet (SXM2); P100 whitepaper",
  });
  gpus.push_back({
      .id = "p100-pcie-16gb",
      .name = "NVIDIA Tesla P100 PCIe 16GB",
      .architecture = "Pascal",
      .fp32_flops = tflops(9.3),   // P100 PCIE
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(18.7),  // P100 PCIE; half2 on CUDA cores, no tensor cores
      .bf16_flops = std::nullopt,
      .memory_bytes = gib(16),             // P100 PCIE
      .memory_bandwidth_Bps = gBps(732),   // P100 PCIE
      .l2_bytes = mib(4),                  // P100 PCIE
      .sm_count = 56,                      // P100 PCIE
      .mig_sm_count = 0,
      .nvlink_id = "",
      .nvlink_links = 0,
      .pcie_gen = 3,                       // P100 PCIE
      .source = "NVIDIA Tesla P100 PCIe datasheet [S]; deviceQuery [S]",
  });
  gpus.push_back({
      .id = "p4",
      .name = "NVIDIA Tesla P4",
      .architecture = "Pascal",
      .fp32_flops = tflops(5.5),  // P4 DS
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(5.5 / 64),  // P4 DS: GP104 runs FP16 at 1/64 of its FP32 rate (GP104 [S])
      .bf16_flops = std::nullopt,
      .memory_bytes = gib(8),              // P4 DS, 8 GB GDDR5
      .memory_bandwidth_Bps = gBps(192),   // P4 DS
      .l2_bytes = mib(2),                  // P4 DS
      .sm_count = 20,                      // P4 DS
      .mig_sm_count = 0,
      .nvlink_id = "",
      .nvlink_links = 0,
      .pcie_gen = 3,                       // P4 DS
      .source = "NVIDIA Tesla P4 datasheet [S]; deviceQuery [S]",
  });
  gpus.push_back({
      .id = "v100-sxm2-16gb",
      .name = "NVIDIA Tesla V100 SXM2 16GB",
      .architecture = "Volta",
      .fp32_flops = tflops(15.7),  // V100 DS
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(125),   // V100 DS, tensor performance (FP16 with FP32 accumulate)
      .bf16_flops = std::nullopt,
      .memory_bytes = gib(16),             // V100 DS
      .memory_bandwidth_Bps = gBps(900),   // V100 DS
      .l2_bytes = mib(6),                     // Volta whitepaper / A100 WP table 3: 6,144 KB
      .sm_count = 80,                      // Volta whitepaper
      .mig_sm_count = 0,
      .nvlink_id = "nvlink2",
      .nvlink_links = 6,                   // V100 DS: 300 GB/s = 6 links x 25 GB/s x 2 directions
      .pcie_gen = 3,                       // V100 DS
      .source = "NVIDIA Tesla V100 datasheet (SXM2); Volta whitepaper",
  });
  GpuSpec v100_32gb = gpus.back();
  v100_32gb.id = "v100-sxm2-32gb";
  v100_32gb.name = "NVIDIA Tesla V100 SXM2 32GB";
  v100_32gb.memory_bytes = gib(32);  // V100 DS; every other figure is the 16GB card's
  gpus.push_back(v100_32gb);
  gpus.push_back({
      .id = "v100-pcie-32gb",
      .name = "NVIDIA Tesla V100 PCIe 32GB",
      .architecture = "Volta",
      .fp32_flops = tflops(14),    // V100 PCIE
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(112),   // V100 PCIE, tensor performance
      .bf16_flops = std::nullopt,
      .memory_bytes = gib(32),             // V100 PCIE
      .memory_bandwidth_Bps = gBps(900),   // V100 PCIE
      .l2_bytes = mib(6),                  // V100 PCIE
      .sm_count = 80,                      // V100 PCIE
      .mig_sm_count = 0,
      .nvlink_id = "",
      .nvlink_links = 0,                   // V100 PCIE: no NVLink
      .pcie_gen = 3,
      .source = "NVIDIA Tesla V100 datasheet (PCIe) [S]; deviceQuery [S]",
  });
  gpus.push_back({
      .id = "t4",
      .name = "NVIDIA T4",
      .architecture = "Turing",
      .fp32_flops = tflops(8.1),  // T4 DS
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(65),   // T4 DS, mixed precision FP16/FP32
      .bf16_flops = std::nullopt,
      .memory_bytes = gib(16),            // T4 DS, 16 GB GDDR6
      .memory_bandwidth_Bps = gBps(320),  // T4 DS ("320+ GB/s")
      .l2_bytes = mib(4),                     // deviceQuery on a T4 [S]: 4,194,304 B
      .sm_count = 40,                     // T4 DS 2,560 CUDA cores / 64 per SM (TURING WP)
      .mig_sm_count = 0,
      .nvlink_id = "",
      .nvlink_links = 0,                  // T4 DS: no NVLink
      .pcie_gen = 3,                      // T4 DS
      .source = "NVIDIA T4 datasheet; Turing whitepaper",
  });
  gpus.push_back({
      .id = "quadro-rtx-6000",
      .name = "NVIDIA Quadro RTX 6000",
      .architecture = "Turing",
      .fp32_flops = tflops(16.3),  // QRTX DS
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(130.5),  // QRTX DS, tensor performance
      .bf16_flops = std::nullopt,
      .memory_bytes = gib(24),            // QRTX DS, 24 GB GDDR6
      .memory_bandwidth_Bps = gBps(672),  // QRTX DS
      .l2_bytes = mib(6),                     // TURING WP table 1: 6,144 KB
      .sm_count = 72,                     // QRTX DS 4,608 CUDA cores / 64 per SM (TURING WP)
      .mig_sm_count = 0,
      .nvlink_id = "nvlink-bridge-turing",
      .nvlink_links = 2,                  // QRTX DS 100 GB/s = 2 x8 links x 25 GB/s x 2 directions (TURING WP)
      .pcie_gen = 3,                      // QRTX DS
      .source = "NVIDIA Quadro RTX 6000 datasheet; Turing whitepaper",
  });
  GpuSpec rtx8000 = gpus.back();
  rtx8000.id = "quadro-rtx-8000";
  rtx8000.name = "NVIDIA Quadro RTX 8000";
  rtx8000.memory_bytes = gib(48);  // QRTX DS (RTX 8000): 48 GB GDDR6; every other figure is the RTX 6000's
  rtx8000.source = "NVIDIA Quadro RTX 8000 datasheet; Turing whitepaper";
  gpus.push_back(rtx8000);
  gpus.push_back({
      .id = "a100-40gb-sxm4",
      .name = "NVIDIA A100 40GB SXM4",
      .architecture = "Ampere",
      .fp32_flops = tflops(19.5),  // A100 DS
      .tf32_flops = tflops(156),   // A100 DS, dense
      .fp16_flops = tflops(312),   // A100 DS, dense
      .bf16_flops = tflops(312),   // A100 DS, dense
      .memory_bytes = gib(40),             // A100 DS, 40 GB HBM2
      .memory_bandwidth_Bps = gBps(1555),  // A100 DS
      .l2_bytes = mib(40),                    // A100 WP table 3: 40,960 KB
      .sm_count = 108,                     // A100 whitepaper
      .mig_sm_count = 98,                  // A100 MIG
      .nvlink_id = "nvlink3",
      .nvlink_links = 12,                  // A100 DS 600 GB/s = 12 links x 25 GB/s x 2 directions (A100 whitepaper)
      .pcie_gen = 4,                       // A100 DS
      .source = "NVIDIA A100 datasheet; A100 whitepaper; MIG user guide",
  });
  GpuSpec a100_80gb = gpus.back();
  a100_80gb.id = "a100-80gb-sxm4";
  a100_80gb.name = "NVIDIA A100 80GB SXM4";
  a100_80gb.memory_bytes = gib(80);             // A100 DS, 80 GB HBM2e
  a100_80gb.memory_bandwidth_Bps = gBps(2039);  // A100 DS, SXM 80GB column; every other figure is the 40GB card's
  gpus.push_back(a100_80gb);
  GpuSpec a100_pcie = gpus.back();  // the A100 80GB SXM4 entry: every figure below is restated
  a100_pcie.id = "a100-40gb-pcie";
  a100_pcie.name = "NVIDIA A100 40GB PCIe";
  a100_pcie.memory_bytes = gib(40);             // A100 PCIE
  a100_pcie.memory_bandwidth_Bps = gBps(1555);  // A100 PCIE
  a100_pcie.nvlink_id = "";                     // A100 PCIE: the NVLink bridge is not modelled
  a100_pcie.nvlink_links = 0;
  a100_pcie.source = "NVIDIA A100 datasheet (PCIe); A100 whitepaper; deviceQuery [S]";
  gpus.push_back(a100_pcie);
  a100_pcie.id = "a100-80gb-pcie";
  a100_pcie.name = "NVIDIA A100 80GB PCIe";
  a100_pcie.memory_bytes = gib(80);             // A100 PCIE
  a100_pcie.memory_bandwidth_Bps = gBps(1935);  // A100 PCIE
  gpus.push_back(a100_pcie);
  gpus.push_back({
      .id = "h100-sxm5",
      .name = "NVIDIA H100 80GB SXM5",
      .architecture = "Hopper",
      .fp32_flops = tflops(66.9),   // H100 WP
      .tf32_flops = tflops(494.7),  // H100 WP, dense
      .fp16_flops = tflops(989.4),  // H100 WP, dense
      .bf16_flops = tflops(989.4),  // H100 WP, dense
      .memory_bytes = gib(80),             // H100 DS, 80 GB HBM3
      .memory_bandwidth_Bps = gBps(3350),  // H100 DS
      .l2_bytes = mib(50),                    // H100 WP: 50 MB on H100 SXM5 (the full GH100 has 60 MB)
      .sm_count = 132,                     // H100 WP
      .mig_sm_count = 132,                 // H100 MIG [S]
      .nvlink_id = "nvlink4",
      .nvlink_links = 18,                  // H100 DS 900 GB/s = 18 links x 25 GB/s x 2 directions (H100 WP)
      .pcie_gen = 5,                       // H100 DS
      .source = "NVIDIA H100 whitepaper and datasheet; MIG -lgip [S]",
  });
  GpuSpec h200 = gpus.back();
  h200.id = "h200-sxm";
  h200.name = "NVIDIA H200 141GB SXM";
  h200.memory_bytes = gib(141);             // H200 DS, 141 GB HBM3e
  h200.memory_bandwidth_Bps = gBps(4800);   // H200 DS
  h200.l2_bytes = mib(60);                  // L2 [S], unconfirmed
  h200.mig_sm_count = 132;                  // H200 MIG [S]; compute, SMs, NVLink and PCIe are the H100 SXM5's (H200 DS)
  h200.source = "NVIDIA H200 datasheet; H100 whitepaper; MIG -lgip [S]";
  gpus.push_back(h200);
  return gpus;
}

}  // namespace

std::optional<double> GpuSpec::peak_flops(Precision precision) const {
  switch (precision) {
    case Precision::fp32: return fp32_flops;
    case Precision::tf32: return tf32_flops;
    case Precision::fp16: return fp16_flops;
    case Precision::bf16: return bf16_flops;
  }
  return std::nullopt;
}

bool has_tensor_cores(std::string_view architecture) { return architecture != "Pascal"; }  // Volta whitepaper

const std::vector<GpuSpec>& gpu_catalog() {
  static const std::vector<GpuSpec> catalog = build_gpu_catalog();
  return catalog;
}

const GpuSpec* find_gpu(std::string_view id) {
  for (const GpuSpec& gpu : gpu_catalog()) {
    if (gpu.id == id) return &gpu;
  }
  return nullptr;
}

}  // namespace vtsim
