#include "models/operations.hpp"

#include <cassert>

namespace vtsim {

std::string_view to_string(EventType type) {
  switch (type) {
    case EventType::vmotion: return "vmotion";
    case EventType::host_failure: return "host_failure";
    case EventType::maintenance: return "maintenance";
  }
  return "?";
}

double vmotion_stun_s(const OperationsConfig& operations, double framebuffer_bytes) {
  assert(framebuffer_bytes >= 0);
  return operations.stun_fixed_s + operations.stun_s_per_framebuffer_gib * framebuffer_bytes / (1024.0 * 1024 * 1024);
}

double ha_restart_s(const OperationsConfig& operations, double restore_s) {
  return operations.ha_detection_s + operations.vm_boot_s + operations.job_restart_s + restore_s;
}

std::vector<std::string> uncalibrated_operations(const OperationsConfig& operations, bool vmotion, bool failure,
                                                 bool default_storage) {
  std::vector<std::string> lines;
  if (vmotion && !operations.vm_memory_stated) {
    lines.push_back("VM guest memory 64 GiB pre-copied by vMotion: uncalibrated default (operations.vm_memory_gib)");
  }
  if (failure && !operations.vm_boot_stated) {
    lines.push_back("VM boot 60 s after an HA restart: uncalibrated default (operations.vm_boot_s)");
  }
  if (failure && !operations.job_restart_stated) {
    lines.push_back("job restart 30 s (framework and NCCL start) after an HA restart: uncalibrated default "
                    "(operations.job_restart_s)");
  }
  if (default_storage) {
    lines.push_back("checkpoint storage bandwidth 1 GB/s: uncalibrated default "
                    "(jobs[i].checkpoint.storage_bandwidth_gbps)");
  }
  return lines;
}

}  // namespace vtsim
