#include "models/scenario/operations.hpp"

#include <algorithm>
#include <array>
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

double pre_7u2_vmotion_peak_Bps(int vmknics) {
  assert(vmknics >= 1 && vmknics <= 3);
  static constexpr std::array<double, 3> kPeakGbps = {18, 28, 36};  // VMOTION STREAMS, one 40 GbE NIC
  return kPeakGbps[static_cast<std::size_t>(vmknics - 1)] * 1e9 / 8;
}

double vmotion_rate_Bps(const OperationsConfig& operations, double line_rate_Bps) {
  assert(line_rate_Bps > 0);
  if (!operations.vmotion_vmknics) return line_rate_Bps;
  return std::min(line_rate_Bps, pre_7u2_vmotion_peak_Bps(*operations.vmotion_vmknics));
}

double stun_s_per_framebuffer_gib(const OperationsConfig& operations, double rate_Bps) {
  assert(rate_Bps > 0);
  if (operations.stun_s_per_framebuffer_gib) return *operations.stun_s_per_framebuffer_gib;
  return kStunSPerGibAt10Gbe * kStunTableLineRateBps / rate_Bps;
}

double vmotion_stun_s(const OperationsConfig& operations, double framebuffer_bytes, double rate_Bps) {
  assert(framebuffer_bytes >= 0);
  return operations.stun_fixed_s +
         stun_s_per_framebuffer_gib(operations, rate_Bps) * framebuffer_bytes / (1024.0 * 1024 * 1024);
}

double ha_restart_s(const OperationsConfig& operations, double restore_s) {
  return operations.ha_detection_s + operations.vm_boot_s + operations.job_restart_s + restore_s;
}

std::vector<std::string> uncalibrated_operations(const OperationsConfig& operations, bool vmotion, bool failure,
                                                 bool default_storage) {
  std::vector<std::string> lines;
  if (vmotion && !operations.stun_s_per_framebuffer_gib) {
    lines.push_back(std::string("vGPU vMotion stun 1.19 s per GiB of framebuffer at 10 GbE (VMware's vSphere 7.0 "
                                "table), scaled to ") +
                    (operations.vmotion_vmknics ? "the vMotion rate (the NIC's line rate, at most the streams' peak "
                                                  "Broadcom measured for the vmknics before vSphere 7.0 U2)"
                                                : "the host NIC's line rate") +
                    ": not measured above 10 GbE (operations.stun_s_per_framebuffer_gib)");
  }
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
