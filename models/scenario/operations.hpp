#pragma once
// vSphere operations during training: vMotion of a VM with vGPUs, a host failure that vSphere HA recovers from,
// planned maintenance (every VM of a host moved), and the checkpoints that bound what a failure loses
// (docs/vsphere-model.md, "Operations").
//
// These are the scenario's settings and the closed forms the engine uses; sim/operations/operations.cpp runs them on
// the simulated cluster. A VM is a job's group of ranks on one host.
//
// Sources. [P] primary, [S] secondary.
//   VGPU VMOTION  [P] VMware vSphere 6.7 documentation, "vMotion of vGPU VMs": stun time against the vGPU framebuffer
//                 in use, measured on 10 GbE with a Tesla P40: 1 GB 9.0 s, 2 GB 16.5 s, 4 GB 31.4 s, 8 GB 61.3 s,
//                 10 GB 76.3 s, 12 GB 91.2 s, 16 and 24 GB over the 100 s vMotion stun timeout; the worst case, all
//                 of the framebuffer in use. [S] D. Epping (yellow-bricks.com): the framebuffer is neither pre-copied
//                 nor dirty-tracked; it moves while the VM is stunned.
//   VGPU VMOTION 7.0  [P] VMware vSphere 7.0 documentation, the same page: 10 GbE, V100 PCIe 32 GB, expected stun
//                 1 GB 2 s, 2 GB 4 s, 4 GB 6 s, 8 GB 12 s, 16 GB 22 s, 32 GB 39 s. [P] vSphere 8.0 U2, "set a stun
//                 time limit": the maximum stun is computed from the vMotion NIC's bandwidth (the slower host's). [P]
//                 vSphere 7.0 networking best practices: since 7.0 U2 one vMotion vmknic saturates 25, 40 and 100 GbE.
//   VMOTION STREAMS [P] Broadcom KB 323379, "Improving performance for vMotion when using 40GbE NICs": vMotion "creates
//                 TCP/IP connections (or stream channels) ... based on the configured vMotion vmknics, and then
//                 instantiates one vMotion worker thread per TCP/IP connection"; on one 40 GbE NIC 1, 2 and 3 vmknics
//                 reached 18, 28 and 36 Gb/s ("the vMotion worker thread becomes CPU saturated"). [P] vSphere 7.0
//                 networking best practices: "In vSphere 7.0 Update 1 or earlier, vMotion saturates 1 GbE and 10 GbE
//                 physical NICs with a single vMotion VMkernel NIC. Starting with vSphere 7.0 Update 2, vMotion
//                 saturates high speed links such as 25 GbE, 40 GbE and 100 GbE with a single vMotion VMkernel NIC."
//   SWITCHOVER    [P] Broadcom KB 436882: pre-copy ends when the remaining dirty pages fit the 500 ms switchover
//                 goal.
//   HA            [P] VMware vSphere HA documentation, "Failure Detection and Host Network Isolation": a host without
//                 heartbeats for 15 s is declared failed; [P] Broadcom KB 322784: the restart of its VMs begins at the
//                 15th second.

#include <optional>
#include <string>
#include <vector>

namespace vtsim {

/// What happens to the cluster during training.
enum class EventType {
  vmotion,       ///< a live migration of one VM to a spare host
  host_failure,  ///< a host fails; vSphere HA restarts its VMs on spare capacity; jobs resume from their checkpoints
  maintenance,   ///< a planned evacuation: every VM of the host is moved by vMotion, at once
};

/// The scenario spelling: "vmotion", "host_failure", "maintenance".
std::string_view to_string(EventType type);

/// One event of the scenario's `events` list.
struct OperationEvent {
  EventType type = EventType::vmotion;
  /// When: a simulated time, or the start of an iteration (counting from 0, warm-up included, and the iterations a
  /// host failure makes the job run again) of the event's job (vmotion) or of the first job with ranks on the host
  /// (host_failure, maintenance), as its rank 0 begins it after any pause. Exactly one is set.
  std::optional<double> at_s;
  std::optional<int> at_iteration;
  /// The host: the VM's host for a vmotion, the failing or evacuated host otherwise.
  int host = 0;
  /// vmotion: the job whose VM on `host` moves (index into Scenario::jobs). -1 for the other types.
  int job = -1;
  /// Where the event came from in the file ("events[1]"), for error messages.
  std::string json_path;
};

/// The vSphere figures the events use. Each default states its source or that it is uncalibrated.
struct OperationsConfig {
  /// Guest memory of each VM, pre-copied by vMotion while the VM runs. Default 64 GiB, uncalibrated (the seed
  /// study does not state its VM's memory).
  double vm_memory_bytes = 64.0 * 1024 * 1024 * 1024;
  /// Stun time of a vGPU VM: a fixed part plus a part per GiB of framebuffer in use, summed over the VM's vGPUs (the
  /// framebuffer moves while the VM is stunned). Default: the least-squares line through VMware's vSphere 7.0 table
  /// (VGPU VMOTION 7.0: 10 GbE, V100 PCIe 32GB; GB read as GiB, the unit vGPU profiles are sized in), 1.6667 s +
  /// 1.19048 s per GiB at 10 Gb/s, the per-GiB part scaled by 10 Gb/s over the vMotion rate (vmotion_rate_Bps();
  /// vSphere 8.0 U2 computes its stun estimate from the vMotion NIC's bandwidth; since 7.0 U2 one vMotion vmknic fills
  /// 25-100 GbE). Not measured above 10 GbE: stated, the per-GiB figure is used as given at every rate.
  double stun_fixed_s = 1.6667;
  std::optional<double> stun_s_per_framebuffer_gib;
  /// vMotion VMkernel NICs per host under vSphere 7.0 U1 or earlier, which runs a vMotion stream per vmknic on one
  /// CPU core each: 1 to 3, the counts Broadcom measured (VMOTION STREAMS: 18, 28 and 36 Gb/s). Absent: vSphere 7.0 U2
  /// or later, where one vmknic fills the NIC.
  std::optional<int> vmotion_vmknics;
  /// vMotion's stun limit: a migration whose stun would exceed it is reported as one vSphere would refuse or time
  /// out. Default 100 s (VGPU VMOTION).
  double stun_limit_s = 100;
  /// Time for vSphere HA to declare a host failed. Default 15 s (HA).
  double ha_detection_s = 15;
  /// Time for a restarted VM's guest to boot. Default 60 s, uncalibrated.
  double vm_boot_s = 60;
  /// Time for the training job to start again in the restarted VMs (framework start, NCCL communicator set-up, the
  /// loader's first batch), before it reads its checkpoint. Default 30 s, uncalibrated.
  double job_restart_s = 30;
  /// Which of the uncalibrated defaults above the scenario stated (not part of the format).
  bool vm_memory_stated = false;
  bool vm_boot_stated = false;
  bool job_restart_stated = false;
};

/// A job's checkpoints.
struct CheckpointConfig {
  /// Iterations between checkpoints (counted in iterations that count towards training, warm-up included); 0 for
  /// none, the default: a failure then loses everything since the job started.
  int interval_iterations = 0;
  /// Bytes one checkpoint writes. Default: the model's weights and optimizer state (models/compute/memory_model.hpp).
  std::optional<double> size_bytes;
  /// Bandwidth of the storage the checkpoint goes to and is read back from. Default 1 GB/s, uncalibrated (a shared
  /// NFS or vSAN datastore; measure yours).
  double storage_Bps = 1e9;
  bool storage_stated = false;  ///< whether the scenario stated storage_Bps (not part of the format)
};

/// VMware's vSphere 7.0 vGPU vMotion table, 10 GbE: seconds of stun per GiB of framebuffer in use (least squares over
/// 1, 2, 4, 8, 16 and 32 GB: 2, 4, 6, 12, 22 and 39 s), and the line rate it was measured at.
inline constexpr double kStunSPerGibAt10Gbe = 1.19048;
inline constexpr double kStunTableLineRateBps = 10e9 / 8;

/// The most vMotion moves through `vmknics` VMkernel NICs under vSphere 7.0 U1 or earlier, whatever the NIC (VMOTION
/// STREAMS, measured on 40 GbE): 18, 28 or 36 Gb/s, in bytes/s. REQUIRES: 1 <= vmknics <= 3.
double pre_7u2_vmotion_peak_Bps(int vmknics);

/// The rate a host's vMotion moves memory at over a NIC of `line_rate_Bps`: the line rate, or less under vSphere 7.0
/// U1 or earlier (OperationsConfig::vmotion_vmknics), where its streams' peak is lower. REQUIRES: line_rate_Bps > 0.
double vmotion_rate_Bps(const OperationsConfig& operations, double line_rate_Bps);

/// Seconds of stun per GiB of framebuffer at a vMotion rate of `rate_Bps` (vmotion_rate_Bps()): the stated figure,
/// else the 10 GbE table's scaled by 10 Gb/s over the rate. REQUIRES: rate_Bps > 0.
double stun_s_per_framebuffer_gib(const OperationsConfig& operations, double rate_Bps);

/// The stun of a vMotion of a VM whose vGPUs hold `framebuffer_bytes` in use, in all, at a vMotion rate of `rate_Bps`.
double vmotion_stun_s(const OperationsConfig& operations, double framebuffer_bytes, double rate_Bps);

/// From a host failure to the job running again: detection, boot, job restart, then reading the checkpoint back
/// (`restore_s`).
double ha_restart_s(const OperationsConfig& operations, double restore_s);

/// Which of the configuration's uncalibrated defaults the scenario left in place, one line each, for a scenario
/// whose events (vMotion or maintenance; host failures) or checkpoints (`default_storage`: some job's at the default
/// storage bandwidth) use them.
std::vector<std::string> uncalibrated_operations(const OperationsConfig& operations, bool vmotion, bool failure,
                                                 bool default_storage);

}  // namespace vtsim
