#include "models/catalog/gpu_catalog.hpp"

#include "models/catalog/catalog_lookup.hpp"
#include "models/core/units.hpp"

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
//   PCIE CARDS (added 2026-12-03; no NVIDIA datasheet PDF or whitepaper was reachable from this project's machine, so
//             every figure below is a secondary copy [S] of NVIDIA's datasheet table, and SMs and L2 are what the
//             devices report (deviceQuery or torch.cuda.get_device_properties printouts in public repositories,
//             "DQ"). Dense tensor peaks are half the datasheets' sparsity figures, where only those are printed.
//     A10     [S] NVIDIA A10 datasheet as tabulated in public spec lists: FP32 31.2, TF32 62.5 (125*), BF16/FP16 125
//             (250*) TFLOPS, 24 GB GDDR6, 600 GB/s, 150 W, PCIe Gen4; DQ: 72 SMs, 6 MB L2.
//     A30     [S] NVIDIA A30 datasheet as tabulated: FP32 10.3, TF32 82 (165*), BF16/FP16 165 (330*) TFLOPS, 24 GB
//             HBM2, 933 GB/s, 165 W, PCIe Gen4, NVLink bridge 200 GB/s; 56 SMs, 24 MB L2 (TechPowerUp-derived
//             listing). Check: 56 SMs x 2,048 flop/clk x 1,440 MHz = 165 TFLOPS, the A100's per-SM rate.
//     A40     [S] NVIDIA A40 datasheet copy: FP32 37.4, TF32 74.8 (149.6*), BF16/FP16 149.7 (299.4*) TFLOPS, 48 GB
//             GDDR6 ECC, 696 GB/s, 300 W, PCIe Gen4, NVLink bridge 112.5 GB/s; DQ: 84 SMs, 6 MB L2.
//     A6000   [S] NVIDIA RTX A6000 (ServeTheHome's table of the datasheet; Microway): FP32 38.7, FP16/BF16 tensor
//             154.8 (309.7*) TFLOPS, 48 GB GDDR6 ECC, 768 GB/s, 300 W, PCIe 4.0, 2-way NVLink bridge 112.5 GB/s; DQ: 84
//             SMs, 6 MB L2. No TF32 figure was found: 77.4 is half its FP16 rate, Ampere's TF32:FP16 ratio on every
//             card above (A100 156:312, A40 74.8:149.7), a derivation, not a datasheet value.
//     H100P   [S] NVIDIA H100 PCIe product brief PB-11133-001_v02 and a copy of the H100 datasheet table: FP32 51,
//             TF32 378 (756*), BF16/FP16 756 (1,513*), FP8 1,513 (3,026*) TFLOPS, 80 GB HBM2e, 2,000 GB/s, 350 W,
//             PCIe Gen5, NVLink bridge 600 GB/s; 114 SMs and 50 MB L2 (table copy and DQ).
//     H100NVL [S] NVIDIA H100 NVL datasheet (as hosted by PNY) and a copy of the H100/H200 datasheet tables: FP32 60,
//             TF32 835*, BF16/FP16 1,671*, FP8 3,341* TFLOPS, 94 GB, 3.9 TB/s, 350-400 W configurable, PCIe Gen5,
//             NVLink bridge 600 GB/s. 132 SMs: a third-party `nvidia-smi mig -lgip` (7g.94gb) [S]. L2 not found: the
//             H100 SXM5's 50 MB is taken (same GH100 configuration), unconfirmed.
//     H200NVL [S] the same copy of the H200 datasheet, NVL column: FP32 60, TF32 835*, BF16/FP16 1,671*, FP8 3,341*
//             TFLOPS, 141 GB, 4.8 TB/s, up to 600 W, PCIe Gen5, 2- or 4-way NVLink bridge 900 GB/s. SMs and L2 not
//             found: the H200 SXM's (132 SMs, 60 MB [S]) are taken, unconfirmed.
//     V100P16 V100 PCIE's figures; 16 GB HBM2 (DQ and [S] spec tables).
//     A16     [S] NVIDIA A16 datasheet table as a reseller copies it (panchaea.com, "NVIDIA A16"): a board of four
//             GPUs, each with 1,280 CUDA cores and 40 third-generation tensor cores, FP32 4.5, TF32 9 (18*), FP16
//             17.9 (35.9*) TFLOPS, 16 GB GDDR6 at 200 GB/s; 250 W the board; one PCIe Gen4 x16 system interface for
//             the four (so a PCIe switch on the board); passive; "MIG Support: No" (nor in the MIG user guide's
//             supported GPUs). The entry is one of the four GPUs. Per GPU, as devices report them in public notes
//             [S] (Jackie2049/rollout-infra notebook/experiments/gpu-profiling-a16.md @54e0f3dd; parda21/NWC
//             docs/results.md @141d4c39): 10 SMs, 2 MB L2, compute capability 8.6 (GA107). Derived, not printed:
//             BF16 at the FP16 rate (the GA10x datasheets that print it, A10 and A40, give BF16 = FP16), and the
//             power per GPU, a quarter of the board's 250 W. The datasheet's FP32 and FP16 imply one clock at 10
//             SMs: 4.5 TFLOPS / (10 x 128 lanes x 2) = 1,758 MHz, 17.9 / (10 x 1,024 flop per clock, the A10's
//             dense rate per SM) = 1,748 MHz (a public spec database's 1,695 MHz boost gives 4.34, not 4.5).
//   The PCIe cards' NVLink bridges are not modelled (as for the A100 PCIe): these entries have no NVLink. The MIG
//   profiles of the H100 PCIe and H100 NVL are catalogued from published -lgip listings
// (models/catalog/mig_catalog.cpp;
//   mig_sm_count is their largest profile's SMs), and so are the A30's (four compute and four memory slices); the
//   H200 NVL's are not (no listing found): mig_sm_count 0 refuses MIG on it.
//   ADA AND BLACKWELL (2026-12-04). No NVIDIA document of these was read at first hand: the numbers are the
//   datasheets' and briefs' tables as third parties reproduce or quote them [S], checked against measured
//   deviceQuery / nvidia-smi output posted in public repositories (DQ [S]) and against SMs x flop per clock per SM x
//   boost clock. "*" marks figures printed with sparsity; the catalog takes the dense ones.
//     L4      NVIDIA L4 product brief PB-11316-001_v01 (72 W, 40 W minimum; base 795, boost 2,040 MHz; 24 GB GDDR6,
//             300 GB/s; PCIe Gen4 x16; no NVLink) and NVIDIA Ada GPU architecture whitepaper v2.02, appendix D (FP32
//             30.3, TF32 60 (120*), BF16/FP16 121 (242*), FP8 242 (485*) TFLOPS; 49,152 KB L2), both as quoted [S];
//             DQ: 58 SMs, 2,040 MHz, compute capability 8.9, 50,331,648 B L2. 121 TFLOPS at 58 SMs and 2,040 MHz is
//             1,024 flop per clock per SM: the full rate with FP32 accumulation (BF16 accumulates in FP32 only), as a
//             measured bf16 matmul of 70.9 TFLOPS on an L4 (above the 60.6 of half rate) agrees [S].
//     L40     NVIDIA L40 datasheet table as reproduced by a reseller [S]: 18,176 CUDA cores (142 SMs), FP32 90.5,
//             TF32 90.5 (181*), FP16 and BF16 181.05 (362.1*), FP8 362 (724*) TFLOPS, 48 GB GDDR6 ECC, 864 GB/s,
//             300 W, PCIe Gen4 x16; boost 2,490 MHz (TechPowerUp-derived listing [S]); 96 MB L2 (Ada whitepaper's
//             L40 table, as quoted [S]). 181 TFLOPS at 142 SMs and 2,490 MHz is 512 flop per clock per SM: half rate,
//             as GeForce Ada runs FP16 with FP32 accumulation (whitepaper appendix A, RTX 4090: 165.2 against 330.3
//             with FP16 accumulation, as quoted [S]). Taken as the FP32-accumulation figure; unconfirmed.
//     L40S    NVIDIA L40S product brief PB-11470-001_v02 (350 W; boost 2,520 MHz; 48 GB GDDR6, 864 GB/s; PCIe Gen4;
//             no NVLink; no MIG) and datasheet table (FP32 91.6, TF32 183 (366*), FP16 and BF16 362.05 (733*), FP8
//             733 (1,466*) TFLOPS), as quoted [S]; DQ: 142 SMs, 2,520 MHz, 100,663,296 B L2 (listings that say 48 MB
//             are wrong). 362 TFLOPS is 1,024 flop per clock per SM: full rate. (The datasheet's 733* halves to
//             366.4, not its printed 362.05; the printed dense figure is taken.)
//     B200    NVIDIA HGX B200 specifications table as reproduced [S] (per GPU: FP32 75, TF32 2.2 PF*, FP16/BF16
//             4.5 PF*, FP8 9 PF*; 180 GB HBM3e, 7.7 TB/s; up to 1,000 W; NVLink 5 1.8 TB/s; PCIe Gen5; MIG 7) and
//             the Blackwell technical brief as quoted (dense TF32 1,100, FP16 2,250, FP8 4,500 TFLOPS; FP32 80 in the
//             early brief) [S]; NVIDIA MIG user guide, supported GPUs (B200: compute capability 10.0, 180 GB, 7
//             instances) [P]. DQ [S]: 148 SMs, 129,536 KiB L2 (126.5 MiB), SM clock 1,965 MHz in use. The DGX B200's
//             64 TB/s over 8 GPUs is 8 TB/s each: the HGX table's 7.7 is taken.
//   CUDA CC   Compute capabilities: NVIDIA CUDA C++ Programming Guide, "Compute Capabilities" and NVIDIA's CUDA GPUs
//             list (developer.nvidia.com/cuda-gpus): P100 6.0, P4 6.1 (GP104), V100 7.0, T4 and Quadro RTX 7.5, A100
//             and A30 8.0 (GA100), A10, A40 and RTX A6000 8.6 (GA102), H100 and H200 9.0, L4, L40 and L40S 8.9
//             (Ada), B200 10.0. The A16's 8.6 (GA107) is as its devices report it in public notes (A16 above) [S].
//   MEMORY    Capacities are binary: [S] nvidia-smi on an A100 80GB (driver 515, public GPU Operator tutorial) reports
//             81920 MiB total, i.e. 80 GiB; NVIDIA's vGPU tables size full-GPU profiles likewise (A100X-40C:
//             40960 MiB). Bandwidths are decimal GB/s.

namespace vtsim {
namespace {

using units::gBps;
using units::gib;
using units::mib;
using units::tflops;

std::vector<GpuSpec> build_gpu_catalog() {
  std::vector<GpuSpec> gpus;
  gpus.push_back({
      .id = "p100-sxm2",
      .name = "NVIDIA Tesla P100 SXM2 16GB",
      .architecture = "Pascal",
      .compute_capability = 60,  // CUDA CC
      .fp32_flops = tflops(10.6),  // P100 DS
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(21.2),  // P100 DS; half2 on CUDA cores, no tensor cores
      .bf16_flops = std::nullopt,
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(16),             // P100 DS, 16 GB HBM2
      .memory_bandwidth_Bps = gBps(732),   // P100 DS
      .l2_bytes = mib(4),                     // P100 whitepaper / A100 WP table 3: 4,096 KB
      .sm_count = 56,                      // P100 whitepaper
      .mig_sm_count = 0,                   // no MIG before Ampere
      .nvlink_id = "nvlink1",
      .nvlink_links = 4,                   // P100 DS: 160 GB/s = 4 links x 20 GB/s x 2 directions
      .pcie_gen = 3,                       // P100 DS
      .max_power_w = 300,  // P100 DS: 300 W
      .source = "NVIDIA Tesla P100 datasheet (SXM2); P100 whitepaper",
      .not_modelled = "",
  });
  gpus.push_back({
      .id = "p100-pcie-16gb",
      .name = "NVIDIA Tesla P100 PCIe 16GB",
      .architecture = "Pascal",
      .compute_capability = 60,  // CUDA CC
      .fp32_flops = tflops(9.3),   // P100 PCIE
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(18.7),  // P100 PCIE; half2 on CUDA cores, no tensor cores
      .bf16_flops = std::nullopt,
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(16),             // P100 PCIE
      .memory_bandwidth_Bps = gBps(732),   // P100 PCIE
      .l2_bytes = mib(4),                  // P100 PCIE
      .sm_count = 56,                      // P100 PCIE
      .mig_sm_count = 0,
      .nvlink_id = "",
      .nvlink_links = 0,
      .pcie_gen = 3,                       // P100 PCIE
      .max_power_w = 250,  // P100 PCIE: 250 W
      .source = "NVIDIA Tesla P100 PCIe datasheet [S]; deviceQuery [S]",
      .not_modelled = "",
  });
  gpus.push_back({
      .id = "p4",
      .name = "NVIDIA Tesla P4",
      .architecture = "Pascal",
      .compute_capability = 61,  // CUDA CC
      .fp32_flops = tflops(5.5),  // P4 DS
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(5.5 / 64),  // P4 DS: GP104 runs FP16 at 1/64 of its FP32 rate (GP104 [S])
      .bf16_flops = std::nullopt,
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(8),              // P4 DS, 8 GB GDDR5
      .memory_bandwidth_Bps = gBps(192),   // P4 DS
      .l2_bytes = mib(2),                  // P4 DS
      .sm_count = 20,                      // P4 DS
      .mig_sm_count = 0,
      .nvlink_id = "",
      .nvlink_links = 0,
      .pcie_gen = 3,                       // P4 DS
      .max_power_w = 75,  // P4 DS: 50/75 W
      .source = "NVIDIA Tesla P4 datasheet [S]; deviceQuery [S]",
      .not_modelled = "",
  });
  gpus.push_back({
      .id = "v100-sxm2-16gb",
      .name = "NVIDIA Tesla V100 SXM2 16GB",
      .architecture = "Volta",
      .compute_capability = 70,  // CUDA CC
      .fp32_flops = tflops(15.7),  // V100 DS
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(125),   // V100 DS, tensor performance (FP16 with FP32 accumulate)
      .bf16_flops = std::nullopt,
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(16),             // V100 DS
      .memory_bandwidth_Bps = gBps(900),   // V100 DS
      .l2_bytes = mib(6),                     // Volta whitepaper / A100 WP table 3: 6,144 KB
      .sm_count = 80,                      // Volta whitepaper
      .mig_sm_count = 0,
      .nvlink_id = "nvlink2",
      .nvlink_links = 6,                   // V100 DS: 300 GB/s = 6 links x 25 GB/s x 2 directions
      .pcie_gen = 3,                       // V100 DS
      .max_power_w = 300,  // V100 DS: 300 W
      .source = "NVIDIA Tesla V100 datasheet (SXM2); Volta whitepaper",
      .not_modelled = "",
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
      .compute_capability = 70,  // CUDA CC
      .fp32_flops = tflops(14),    // V100 PCIE
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(112),   // V100 PCIE, tensor performance
      .bf16_flops = std::nullopt,
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(32),             // V100 PCIE
      .memory_bandwidth_Bps = gBps(900),   // V100 PCIE
      .l2_bytes = mib(6),                  // V100 PCIE
      .sm_count = 80,                      // V100 PCIE
      .mig_sm_count = 0,
      .nvlink_id = "",
      .nvlink_links = 0,                   // V100 PCIE: no NVLink
      .pcie_gen = 3,
      .max_power_w = 250,  // V100 PCIE: 250 W
      .source = "NVIDIA Tesla V100 datasheet (PCIe) [S]; deviceQuery [S]",
      .not_modelled = "",
  });
  GpuSpec v100_pcie_16gb = gpus.back();
  v100_pcie_16gb.id = "v100-pcie-16gb";
  v100_pcie_16gb.name = "NVIDIA Tesla V100 PCIe 16GB";
  v100_pcie_16gb.memory_bytes = gib(16);  // V100P16; every other figure is the 32GB card's
  v100_pcie_16gb.source = "NVIDIA Tesla V100 datasheet (PCIe) [S]; deviceQuery [S]";
  gpus.push_back(v100_pcie_16gb);
  gpus.push_back({
      .id = "t4",
      .name = "NVIDIA T4",
      .architecture = "Turing",
      .compute_capability = 75,  // CUDA CC
      .fp32_flops = tflops(8.1),  // T4 DS
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(65),   // T4 DS, mixed precision FP16/FP32
      .bf16_flops = std::nullopt,
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(16),            // T4 DS, 16 GB GDDR6
      .memory_bandwidth_Bps = gBps(320),  // T4 DS ("320+ GB/s")
      .l2_bytes = mib(4),                     // deviceQuery on a T4 [S]: 4,194,304 B
      .sm_count = 40,                     // T4 DS 2,560 CUDA cores / 64 per SM (TURING WP)
      .mig_sm_count = 0,
      .nvlink_id = "",
      .nvlink_links = 0,                  // T4 DS: no NVLink
      .pcie_gen = 3,                      // T4 DS
      .max_power_w = 70,  // T4 DS: 70 W
      .source = "NVIDIA T4 datasheet; Turing whitepaper",
      .not_modelled = "",
  });
  gpus.push_back({
      .id = "quadro-rtx-6000",
      .name = "NVIDIA Quadro RTX 6000",
      .architecture = "Turing",
      .compute_capability = 75,  // CUDA CC
      .fp32_flops = tflops(16.3),  // QRTX DS
      .tf32_flops = std::nullopt,
      .fp16_flops = tflops(130.5),  // QRTX DS, tensor performance
      .bf16_flops = std::nullopt,
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(24),            // QRTX DS, 24 GB GDDR6
      .memory_bandwidth_Bps = gBps(672),  // QRTX DS
      .l2_bytes = mib(6),                     // TURING WP table 1: 6,144 KB
      .sm_count = 72,                     // QRTX DS 4,608 CUDA cores / 64 per SM (TURING WP)
      .mig_sm_count = 0,
      .nvlink_id = "nvlink-bridge-turing",
      .nvlink_links = 2,                  // QRTX DS 100 GB/s = 2 x8 links x 25 GB/s x 2 directions (TURING WP)
      .pcie_gen = 3,                      // QRTX DS
      .max_power_w = 295,  // QRTX DS: 295 W
      .source = "NVIDIA Quadro RTX 6000 datasheet; Turing whitepaper",
      .not_modelled = "",
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
      .compute_capability = 80,  // CUDA CC
      .fp32_flops = tflops(19.5),  // A100 DS
      .tf32_flops = tflops(156),   // A100 DS, dense
      .fp16_flops = tflops(312),   // A100 DS, dense
      .bf16_flops = tflops(312),   // A100 DS, dense
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(40),             // A100 DS, 40 GB HBM2
      .memory_bandwidth_Bps = gBps(1555),  // A100 DS
      .l2_bytes = mib(40),                    // A100 WP table 3: 40,960 KB
      .sm_count = 108,                     // A100 whitepaper
      .mig_sm_count = 98,                  // A100 MIG
      .nvlink_id = "nvlink3",
      .nvlink_links = 12,                  // A100 DS 600 GB/s = 12 links x 25 GB/s x 2 directions (A100 whitepaper)
      .pcie_gen = 4,                       // A100 DS
      .max_power_w = 400,  // A100 DS: 400 W (SXM)
      .source = "NVIDIA A100 datasheet; A100 whitepaper; MIG user guide",
      .not_modelled = "",
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
  a100_pcie.max_power_w = 250;                  // A100 PCIE: 250 W (40GB)
  a100_pcie.source = "NVIDIA A100 datasheet (PCIe); A100 whitepaper; deviceQuery [S]";
  a100_pcie.not_modelled = "its NVLink bridge (three cards' worth of links between two cards)";
  gpus.push_back(a100_pcie);
  a100_pcie.id = "a100-80gb-pcie";
  a100_pcie.name = "NVIDIA A100 80GB PCIe";
  a100_pcie.memory_bytes = gib(80);             // A100 PCIE
  a100_pcie.memory_bandwidth_Bps = gBps(1935);  // A100 PCIE
  a100_pcie.max_power_w = 300;                  // A100 PCIE: 300 W (80GB)
  gpus.push_back(a100_pcie);
  gpus.push_back({
      .id = "a10",
      .name = "NVIDIA A10",
      .architecture = "Ampere",
      .compute_capability = 86,  // CUDA CC
      .fp32_flops = tflops(31.2),  // A10
      .tf32_flops = tflops(62.5),  // A10, dense
      .fp16_flops = tflops(125),   // A10, dense
      .bf16_flops = tflops(125),   // A10, dense
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(24),             // A10, 24 GB GDDR6
      .memory_bandwidth_Bps = gBps(600),   // A10
      .l2_bytes = mib(6),                  // A10 (DQ)
      .sm_count = 72,                      // A10 (DQ)
      .mig_sm_count = 0,                   // no MIG (MIG user guide, supported GPUs)
      .nvlink_id = "",
      .nvlink_links = 0,
      .pcie_gen = 4,                       // A10
      .max_power_w = 150,                  // A10
      .source = "NVIDIA A10 datasheet [S]; deviceQuery [S]",
      .not_modelled = "",
  });
  gpus.push_back({
      .id = "a16",
      .name = "NVIDIA A16",
      .architecture = "Ampere",
      .compute_capability = 86,    // A16 (device reports [S]): GA107
      .fp32_flops = tflops(4.5),   // A16, per GPU
      .tf32_flops = tflops(9),     // A16, per GPU, dense
      .fp16_flops = tflops(17.9),  // A16, per GPU, dense
      .bf16_flops = tflops(17.9),  // A16: not printed; the FP16 rate, as on the A10 and A40 (derived)
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(16),            // A16, 16 GB GDDR6 per GPU
      .memory_bandwidth_Bps = gBps(200),  // A16, per GPU
      .l2_bytes = mib(2),                 // A16 (device reports [S])
      .sm_count = 10,                     // A16 (device reports [S]); 1,280 CUDA cores / 128 per GA10x SM
      .mig_sm_count = 0,                  // A16: no MIG
      .nvlink_id = "",                    // A16: none
      .nvlink_links = 0,
      .pcie_gen = 4,        // A16
      .max_power_w = 62.5,  // A16: the board's 250 W over its four GPUs (derived)
      .source = "NVIDIA A16 datasheet, as copied [S]; device reports [S]; one of the board's four GPUs",
      .not_modelled = "the clock it holds under load (62.5 W a GPU, passively cooled: taken at the clock its peaks "
                      "imply, where the 70 W T4 of the kernel data held 0.45 of its boost clock); the board's PCIe "
                      "switch unless the scenario states it (cluster.host.pcie_switch_gpus = 4: its four GPUs share "
                      "one Gen4 x16 uplink)",
  });
  gpus.push_back({
      .id = "a30",
      .name = "NVIDIA A30",
      .architecture = "Ampere",
      .compute_capability = 80,  // CUDA CC
      .fp32_flops = tflops(10.3),  // A30
      .tf32_flops = tflops(82),    // A30, dense
      .fp16_flops = tflops(165),   // A30, dense
      .bf16_flops = tflops(165),   // A30, dense
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(24),             // A30, 24 GB HBM2
      .memory_bandwidth_Bps = gBps(933),   // A30
      .l2_bytes = mib(24),                 // A30 [S]
      .sm_count = 56,                      // A30 [S]
      .mig_sm_count = 56,                  // A30: the 4g.24gb profile's SMs (-lgip [S], models/catalog/mig_catalog.cpp)
      .nvlink_id = "",                     // A30: its NVLink bridge is not modelled
      .nvlink_links = 0,
      .pcie_gen = 4,                       // A30
      .max_power_w = 165,                  // A30
      .source = "NVIDIA A30 datasheet [S]; TechPowerUp-derived listing [S]",
      .not_modelled = "its NVLink bridge (200 GB/s)",
  });
  gpus.push_back({
      .id = "a40",
      .name = "NVIDIA A40",
      .architecture = "Ampere",
      .compute_capability = 86,  // CUDA CC
      .fp32_flops = tflops(37.4),   // A40
      .tf32_flops = tflops(74.8),   // A40, dense
      .fp16_flops = tflops(149.7),  // A40, dense
      .bf16_flops = tflops(149.7),  // A40, dense
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(48),             // A40, 48 GB GDDR6
      .memory_bandwidth_Bps = gBps(696),   // A40
      .l2_bytes = mib(6),                  // A40 (DQ)
      .sm_count = 84,                      // A40 (DQ)
      .mig_sm_count = 0,                   // no MIG (MIG user guide)
      .nvlink_id = "",                     // A40: its NVLink bridge is not modelled
      .nvlink_links = 0,
      .pcie_gen = 4,                       // A40
      .max_power_w = 300,                  // A40
      .source = "NVIDIA A40 datasheet [S]; deviceQuery [S]",
      .not_modelled = "its NVLink bridge (112.5 GB/s)",
  });
  gpus.push_back({
      .id = "rtx-a6000",
      .name = "NVIDIA RTX A6000",
      .architecture = "Ampere",
      .compute_capability = 86,  // CUDA CC
      .fp32_flops = tflops(38.7),   // A6000
      .tf32_flops = tflops(77.4),   // A6000: half its FP16 rate (derived, see A6000)
      .fp16_flops = tflops(154.8),  // A6000, dense
      .bf16_flops = tflops(154.8),  // A6000, dense
      .fp8_flops = std::nullopt,
      .memory_bytes = gib(48),             // A6000, 48 GB GDDR6
      .memory_bandwidth_Bps = gBps(768),   // A6000
      .l2_bytes = mib(6),                  // A6000 (DQ)
      .sm_count = 84,                      // A6000 (DQ)
      .mig_sm_count = 0,                   // no MIG (MIG user guide)
      .nvlink_id = "",                     // A6000: its NVLink bridge is not modelled
      .nvlink_links = 0,
      .pcie_gen = 4,                       // A6000
      .max_power_w = 300,                  // A6000
      .source = "NVIDIA RTX A6000 datasheet [S]; deviceQuery [S]; TF32 derived",
      .not_modelled = "its NVLink bridge (112.5 GB/s)",
  });
  gpus.push_back({
      .id = "h100-sxm5",
      .name = "NVIDIA H100 80GB SXM5",
      .architecture = "Hopper",
      .compute_capability = 90,  // CUDA CC
      .fp32_flops = tflops(66.9),   // H100 WP
      .tf32_flops = tflops(494.7),  // H100 WP, dense
      .fp16_flops = tflops(989.4),  // H100 WP, dense
      .bf16_flops = tflops(989.4),  // H100 WP, dense
      .fp8_flops = tflops(1978.9),  // H100 WP, dense (3,957.8 with sparsity)
      .memory_bytes = gib(80),             // H100 DS, 80 GB HBM3
      .memory_bandwidth_Bps = gBps(3350),  // H100 DS
      .l2_bytes = mib(50),                    // H100 WP: 50 MB on H100 SXM5 (the full GH100 has 60 MB)
      .sm_count = 132,                     // H100 WP
      .mig_sm_count = 132,                 // H100 MIG [S]
      .nvlink_id = "nvlink4",
      .nvlink_links = 18,                  // H100 DS 900 GB/s = 18 links x 25 GB/s x 2 directions (H100 WP)
      .pcie_gen = 5,                       // H100 DS
      .max_power_w = 700,  // H100 DS: up to 700 W (SXM)
      .source = "NVIDIA H100 whitepaper and datasheet; MIG -lgip [S]",
      .not_modelled = "",
  });
  gpus.push_back({
      .id = "h100-pcie",
      .name = "NVIDIA H100 80GB PCIe",
      .architecture = "Hopper",
      .compute_capability = 90,  // CUDA CC
      .fp32_flops = tflops(51),     // H100P
      .tf32_flops = tflops(378),    // H100P, dense
      .fp16_flops = tflops(756),    // H100P, dense
      .bf16_flops = tflops(756),    // H100P, dense
      .fp8_flops = tflops(1513),    // H100P, dense
      .memory_bytes = gib(80),             // H100P, 80 GB HBM2e
      .memory_bandwidth_Bps = gBps(2000),  // H100P
      .l2_bytes = mib(50),                 // H100P
      .sm_count = 114,                     // H100P
      .mig_sm_count = 114,                 // H100P: the 7g.80gb profile's SMs (-lgip [S], mig_catalog.cpp)
      .nvlink_id = "",                     // H100P: its NVLink bridge is not modelled
      .nvlink_links = 0,
      .pcie_gen = 5,                       // H100P
      .max_power_w = 350,                  // H100P
      .source = "NVIDIA H100 PCIe product brief [S]; H100 datasheet copy [S]; deviceQuery [S]",
      .not_modelled = "its NVLink bridge (600 GB/s)",
  });
  gpus.push_back({
      .id = "h100-nvl",
      .name = "NVIDIA H100 NVL 94GB",
      .architecture = "Hopper",
      .compute_capability = 90,  // CUDA CC
      .fp32_flops = tflops(60),       // H100NVL
      .tf32_flops = tflops(417.5),    // H100NVL, dense
      .fp16_flops = tflops(835.5),    // H100NVL, dense
      .bf16_flops = tflops(835.5),    // H100NVL, dense
      .fp8_flops = tflops(1670.5),    // H100NVL, dense
      .memory_bytes = gib(94),             // H100NVL
      .memory_bandwidth_Bps = gBps(3900),  // H100NVL
      .l2_bytes = mib(50),                 // H100NVL: the H100 SXM5's, unconfirmed
      .sm_count = 132,                     // H100NVL [S]
      .mig_sm_count = 132,                 // H100NVL: the 7g.94gb profile's SMs (-lgip [S], mig_catalog.cpp)
      .nvlink_id = "",                     // H100NVL: its NVLink bridge is not modelled
      .nvlink_links = 0,
      .pcie_gen = 5,                       // H100NVL
      .max_power_w = 400,                  // H100NVL: 350-400 W configurable
      .source = "NVIDIA H100 NVL datasheet [S]; mig -lgip [S]",
      .not_modelled = "its NVLink bridge (600 GB/s)",
  });
  GpuSpec h200 = gpus[gpus.size() - 3];  // the H100 SXM5 entry

  h200.id = "h200-sxm";
  h200.name = "NVIDIA H200 141GB SXM";
  h200.memory_bytes = gib(141);             // H200 DS, 141 GB HBM3e
  h200.memory_bandwidth_Bps = gBps(4800);   // H200 DS
  h200.l2_bytes = mib(60);                  // L2 [S], unconfirmed
  h200.mig_sm_count = 132;                  // H200 MIG [S]; compute, SMs, NVLink and PCIe are the H100 SXM5's (H200 DS)
  h200.source = "NVIDIA H200 datasheet; H100 whitepaper; MIG -lgip [S]";
  gpus.push_back(h200);
  GpuSpec h200_nvl = h200;  // SMs and L2 are the H200 SXM's (H200NVL), unconfirmed
  h200_nvl.id = "h200-nvl";
  h200_nvl.name = "NVIDIA H200 NVL 141GB";
  h200_nvl.fp32_flops = tflops(60);      // H200NVL
  h200_nvl.tf32_flops = tflops(417.5);   // H200NVL, dense
  h200_nvl.fp16_flops = tflops(835.5);   // H200NVL, dense
  h200_nvl.bf16_flops = tflops(835.5);   // H200NVL, dense
  h200_nvl.fp8_flops = tflops(1670.5);   // H200NVL, dense
  h200_nvl.memory_bandwidth_Bps = gBps(4800);  // H200NVL
  h200_nvl.mig_sm_count = 0;             // MIG exists (7 instances) but is not catalogued: see PCIE CARDS
  h200_nvl.nvlink_id = "";               // H200NVL: its NVLink bridge is not modelled
  h200_nvl.nvlink_links = 0;
  h200_nvl.max_power_w = 600;            // H200NVL
  h200_nvl.not_modelled = "its 2- or 4-way NVLink bridge (900 GB/s) and MIG (7 instances; no -lgip listing of its "
                          "profiles found)";
  h200_nvl.source = "NVIDIA H200 datasheet, NVL column [S]; SMs and L2 as the H200 SXM (unconfirmed)";
  gpus.push_back(h200_nvl);
  gpus.push_back({
      .id = "l4",
      .name = "NVIDIA L4",
      .architecture = "Ada",
      .compute_capability = 89,  // CUDA CC; L4 (DQ)
      .fp32_flops = tflops(30.3),   // L4
      .tf32_flops = tflops(60),     // L4, dense
      .fp16_flops = tflops(121),    // L4, dense; full rate with FP32 accumulation (derived, see L4)
      .bf16_flops = tflops(121),    // L4, dense
      .fp8_flops = tflops(242),     // L4, dense
      .memory_bytes = gib(24),             // L4, 24 GB GDDR6
      .memory_bandwidth_Bps = gBps(300),   // L4
      .l2_bytes = mib(48),                 // L4 (DQ: 50,331,648 B)
      .sm_count = 58,                      // L4 (DQ)
      .mig_sm_count = 0,                   // no MIG (MIG user guide, supported GPUs [P])
      .nvlink_id = "",                     // L4: none
      .nvlink_links = 0,
      .pcie_gen = 4,                       // L4
      .max_power_w = 72,                   // L4
      .source = "NVIDIA L4 product brief and Ada whitepaper, as quoted [S]; deviceQuery [S]",
      .not_modelled = "",
  });
  gpus.push_back({
      .id = "l40",
      .name = "NVIDIA L40",
      .architecture = "Ada",
      .compute_capability = 89,  // CUDA CC
      .fp32_flops = tflops(90.5),    // L40
      .tf32_flops = tflops(90.5),    // L40, dense
      .fp16_flops = tflops(181.05),  // L40, dense; half rate with FP32 accumulation (derived, see L40)
      .bf16_flops = tflops(181.05),  // L40, dense
      .fp8_flops = tflops(362),      // L40, dense
      .memory_bytes = gib(48),             // L40, 48 GB GDDR6
      .memory_bandwidth_Bps = gBps(864),   // L40
      .l2_bytes = mib(96),                 // L40: 98,304 KB (Ada whitepaper, as quoted)
      .sm_count = 142,                     // L40: 18,176 CUDA cores / 128 per SM
      .mig_sm_count = 0,                   // no MIG (MIG user guide, supported GPUs [P])
      .nvlink_id = "",                     // L40: none
      .nvlink_links = 0,
      .pcie_gen = 4,                       // L40
      .max_power_w = 300,                  // L40
      .source = "NVIDIA L40 datasheet, as reproduced [S]; Ada whitepaper, as quoted [S]",
      .not_modelled = "",
  });
  gpus.push_back({
      .id = "l40s",
      .name = "NVIDIA L40S",
      .architecture = "Ada",
      .compute_capability = 89,  // CUDA CC; L40S (DQ)
      .fp32_flops = tflops(91.6),    // L40S
      .tf32_flops = tflops(183),     // L40S, dense
      .fp16_flops = tflops(362.05),  // L40S, dense; full rate with FP32 accumulation (derived, see L40S)
      .bf16_flops = tflops(362.05),  // L40S, dense
      .fp8_flops = tflops(733),      // L40S, dense
      .memory_bytes = gib(48),             // L40S, 48 GB GDDR6
      .memory_bandwidth_Bps = gBps(864),   // L40S
      .l2_bytes = mib(96),                 // L40S (DQ: 100,663,296 B)
      .sm_count = 142,                     // L40S (DQ)
      .mig_sm_count = 0,                   // no MIG (L40S product brief)
      .nvlink_id = "",                     // L40S: none (product brief)
      .nvlink_links = 0,
      .pcie_gen = 4,                       // L40S
      .max_power_w = 350,                  // L40S
      .source = "NVIDIA L40S product brief and datasheet, as quoted [S]; deviceQuery [S]",
      .not_modelled = "",
  });
  gpus.push_back({
      .id = "b200-sxm",
      .name = "NVIDIA B200 180GB SXM",
      .architecture = "Blackwell",
      .compute_capability = 100,  // CUDA CC; MIG user guide [P]
      .fp32_flops = tflops(75),      // B200 (HGX table)
      .tf32_flops = tflops(1100),    // B200, dense
      .fp16_flops = tflops(2250),    // B200, dense
      .bf16_flops = tflops(2250),    // B200, dense
      .fp8_flops = tflops(4500),     // B200, dense
      .memory_bytes = gib(180),            // B200, 180 GB HBM3e (MIG user guide [P])
      .memory_bandwidth_Bps = gBps(7700),  // B200 (HGX table; 8,000 from the DGX B200's total)
      .l2_bytes = mib(126.5),              // B200 (DQ: 129,536 KiB), unconfirmed by NVIDIA
      .sm_count = 148,                     // B200 (DQ)
      .mig_sm_count = 148,                 // 7g.180gb (-lgip on a B200 [S], models/catalog/mig_catalog.cpp)
      .nvlink_id = "nvlink5",
      .nvlink_links = 18,                  // B200: NVLink 5, 1.8 TB/s over 18 links
      .pcie_gen = 5,                       // B200
      .max_power_w = 1000,                 // B200 (HGX table: configurable up to 1,000 W)
      .source = "NVIDIA HGX B200 specifications and Blackwell technical brief, as quoted [S]; MIG user guide; "
                "deviceQuery [S]",
      .not_modelled = "",
  });
  // The Blackwell GPU of a GB200 superchip (two per Grace CPU; 72 in a GB200 NVL72 rack). Its rates are the Blackwell
  // datasheet's GB200 column at 1,200 W as quoted [S] (dense; the sparse ones twice), which NVIDIA's NVL72 rack
  // figures over its 72 GPUs agree with (720 PFLOPS of FP8 with sparsity, 13.4 TB of HBM3e, 130 TB/s of NVLink, as
  // quoted [S]); no GB200 device listing was found, so its SMs and L2 are taken to be the HGX B200's (the same GPU),
  // an assumption the source says (docs/hardware-facts.md).
  gpus.push_back({
      .id = "gb200",
      .name = "NVIDIA Blackwell GPU of a GB200 superchip (186GB)",
      .architecture = "Blackwell",
      .compute_capability = 100,  // as B200
      .fp32_flops = tflops(90),       // Blackwell datasheet, GB200 at 1,200 W, as quoted [S]
      .tf32_flops = tflops(1250),     // the same, dense (2,500 with sparsity)
      .fp16_flops = tflops(2500),     // the same, dense (5,000 with sparsity)
      .bf16_flops = tflops(2500),     // the same
      .fp8_flops = tflops(5000),      // the same; NVL72: 720 PFLOPS with sparsity / 72 / 2
      .memory_bytes = gib(186),            // MLPerf Inference v6.1 GB200-NVL72 system description [S]; 13.4 TB / 72
      .memory_bandwidth_Bps = gBps(8000),  // 8 TB/s (GB200 entries as quoted [S])
      .l2_bytes = mib(126.5),              // assumed: the HGX B200's (DQ); none listed for GB200
      .sm_count = 148,                     // assumed: the HGX B200's (DQ); none listed for GB200
      .mig_sm_count = 0,                   // MIG's profiles are not catalogued (no GB200 listing found)
      .nvlink_id = "nvlink5",
      .nvlink_links = 18,                  // NVL72: 130 TB/s of NVLink / 72 = 1.8 TB/s per GPU, 18 NVLink 5 links
      .pcie_gen = 5,                       // the path to its NIC (ConnectX-7: PCIe Gen5 x16); to its Grace, C2C
      .max_power_w = 1200,                 // Blackwell datasheet, GB200 column
      .source = "NVIDIA Blackwell datasheet and GB200 NVL72 figures, as quoted [S]; MLPerf system description [S]; "
                "SMs and L2 assumed from the HGX B200",
      .not_modelled = "MIG (its profiles' SMs are not catalogued); NVLink-C2C to the Grace CPU (taken as PCIe Gen5)",
  });
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

// TF32 is new in the A100's third-generation tensor cores (NVIDIA A100 Tensor Core GPU Architecture whitepaper,
// "TF32"); Ada, Hopper and Blackwell keep it (their whitepapers' TF32 peaks).
bool has_tf32_tensor_cores(std::string_view architecture) {
  return architecture == "Ampere" || architecture == "Ada" || architecture == "Hopper" || architecture == "Blackwell";
}

const std::vector<GpuSpec>& gpu_catalog() {
  static const std::vector<GpuSpec> catalog = build_gpu_catalog();
  return catalog;
}

const GpuSpec* find_gpu(std::string_view id) { return find_by_id(gpu_catalog(), id); }

}  // namespace vtsim
