#include "models/scenario/framework.hpp"

#include <array>

#include "models/core/enum_names.hpp"

namespace vtsim {
namespace {

const std::array<std::pair<std::string, Framework>, 3> kNames = {{
    {"pytorch", Framework::pytorch},
    {"tensorflow", Framework::tensorflow},
    {"mxnet", Framework::mxnet},
}};

const std::array<std::pair<std::string, Execution>, 2> kExecutionNames = {{
    {"eager", Execution::eager},
    {"cuda_graphs", Execution::cuda_graphs},
}};

const std::array<std::pair<std::string, DataLoader>, 3> kDataLoaderNames = {{
    {"cpu", DataLoader::cpu},
    {"gpu", DataLoader::gpu},
    {"synthetic", DataLoader::synthetic},
}};

}  // namespace

std::span<const std::pair<std::string, Framework>> framework_names() { return kNames; }

std::string_view to_string(Framework framework) { return name_of(kNames, framework); }

std::span<const std::pair<std::string, Execution>> execution_names() { return kExecutionNames; }

std::string_view to_string(Execution execution) { return name_of(kExecutionNames, execution); }

std::span<const std::pair<std::string, DataLoader>> data_loader_names() { return kDataLoaderNames; }

std::string_view to_string(DataLoader loader) { return name_of(kDataLoaderNames, loader); }

}  // namespace vtsim
