#include "models/scenario/data_parallel.hpp"

#include <array>

#include "models/core/enum_names.hpp"

namespace vtsim {
namespace {

const std::array<std::pair<std::string, DataParallel>, 2> kDataParallel = {{
    {"horovod", DataParallel::horovod},
    {"pytorch_ddp", DataParallel::pytorch_ddp},
}};

}  // namespace

std::span<const std::pair<std::string, DataParallel>> data_parallel_names() { return kDataParallel; }

std::string_view to_string(DataParallel data_parallel) { return name_of(kDataParallel, data_parallel); }

}  // namespace vtsim
