#include "models/compute/data_loading.hpp"

// Sources. [P] read at the source, [S] second-hand.
//   DALI A100  NVIDIA's blog "Loading Data Fast with DALI and the New Hardware JPEG Decoder in NVIDIA A100 GPUs"
//              (2020), as its reader quotes it in NVIDIA/DALI issue #5362 [S]: the ResNet-50 pipeline on one A100
//              with every image on the hardware decoder (NVJPG) "about 5000 img/sec" (about 7,000 with 75% of them).
//              The all-hardware figure is taken: the lower of the two, without the CPU's help the 75% split needs.
//   DALI QA    NVIDIA/DALI qa/TL1_decoder_perf/test.sh [P]: DALI's CI requires at least 19,000 frames/s of the
//              ResNet-50 pipeline (internal_tools/hw_decoder_bench.py RN50Pipeline: mixed image_random_crop, resize
//              to 224, crop_mirror_normalize to FP16) on x86 Hopper, batch 408, 70 CPU threads, hw_load 0.12. A test
//              threshold is a lower bound of what the pipeline reaches, on DALI's test images (not ImageNet).
// Other architectures: no rate found (V100 and T4 have no hardware JPEG decoder; DALI's hybrid decoder keeps the
// Huffman stage on the CPU there, NVIDIA/DALI dali/operators/decoder/image_decoder.cc [P]).

namespace vtsim {

std::optional<PublishedRate> dali_images_per_s(const GpuSpec& gpu) {
  if (gpu.architecture == "Ampere" && gpu.id.rfind("a100-", 0) == 0) {
    return PublishedRate{5000, "DALI on A100, all images on the hardware JPEG decoder (NVIDIA blog, 2020 [S])"};
  }
  if (gpu.architecture == "Hopper") {
    return PublishedRate{19000, "DALI's CI floor for the ResNet-50 pipeline on Hopper (qa/TL1_decoder_perf), a lower "
                                "bound"};
  }
  return std::nullopt;
}

}  // namespace vtsim
