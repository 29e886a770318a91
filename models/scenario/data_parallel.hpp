#pragma once
// How a data-parallel job reduces its gradients, apart from the scenario so that the engine's training job needs no
// more.

#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace vtsim {

/// How a data-parallel job reduces its gradients.
enum class DataParallel {
  horovod,      ///< Horovod: a coordinator fuses the gradients ready on every rank each cycle (HorovodConfig)
  pytorch_ddp,  ///< PyTorch DistributedDataParallel: fixed buckets, each reduced as soon as it fills (DdpConfig)
};

/// Every way with its name in scenario files.
std::span<const std::pair<std::string, DataParallel>> data_parallel_names();
/// "horovod" or "pytorch_ddp".
std::string_view to_string(DataParallel data_parallel);

}  // namespace vtsim
