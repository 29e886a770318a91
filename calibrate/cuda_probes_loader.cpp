// make_gpu_backend and make_nccl_backend of a build with CUDA: they load the CUDA probes module
// (cuda_probes_module.hpp) on first use and ask it for a backend. Without the module, or where CUDA's libraries do
// not load, they say so on one line, as a build without CUDA does.

#include <dlfcn.h>

#include <filesystem>
#include <memory>
#include <string>

#include "calibrate/cuda_probes_module.hpp"
#include "calibrate/hardware_backends.hpp"
#include "calibrate/probe_support.hpp"

namespace vtsim::calibrate {
namespace {

/// The module, loaded once and never unloaded (the backends' code lives in it). Throws DeviceNotFound naming the
/// paths tried and the loader's reason when it cannot be loaded.
void* cuda_probes_module() {
  static void* module = nullptr;
  if (module != nullptr) return module;
  std::error_code error;
  const std::filesystem::path executable = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path folder = error ? std::filesystem::current_path() : executable.parent_path();
  std::string reasons;
  for (const std::filesystem::path& candidate :
       {folder / kCudaProbesModule, folder / ".." / "lib" / "vtsim" / kCudaProbesModule}) {
    if (!std::filesystem::exists(candidate)) continue;
    module = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (module != nullptr) return module;
    const char* reason = ::dlerror();
    reasons += "; " + candidate.string() + ": " + (reason != nullptr ? reason : "cannot be loaded");
  }
  throw DeviceNotFound("no CUDA device found (the CUDA probes module " + std::string(kCudaProbesModule) +
                       (reasons.empty() ? " is not beside vtsim nor in ../lib/vtsim" : " did not load" + reasons) +
                       ")");
}

/// The module's entry point `name`, as a function returning a new T.
template <typename T>
T* new_backend(const char* name) {
  void* symbol = ::dlsym(cuda_probes_module(), name);
  if (symbol == nullptr) {
    throw DeviceNotFound(std::string("no CUDA device found (the CUDA probes module lacks ") + name + ")");
  }
  return reinterpret_cast<T* (*)()>(symbol)();
}

}  // namespace

std::unique_ptr<GpuBackend> make_gpu_backend() {
  return std::unique_ptr<GpuBackend>(new_backend<GpuBackend>("vtsim_new_cuda_gpu_backend"));
}

std::unique_ptr<NcclBackend> make_nccl_backend() {
  return std::unique_ptr<NcclBackend>(new_backend<NcclBackend>("vtsim_new_nccl_backend"));
}

}  // namespace vtsim::calibrate
