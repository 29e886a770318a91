#pragma once
// The device a rank's kernels run on: the training loop's device policy. The loop (sim/training/training_job_state.hpp)
// hands it stretches of kernels and says when the rank goes idle; what the device is stays here:
// - a dedicated device, a whole GPU or a MIG slice (its own SMs and memory; sim/README.md, "Sharing a GPU"):
//   the rank's kernels have it to themselves and share it only with the rank's own collectives, whose kernels take
//   SMs and memory bandwidth from them (the loop's run_shared re-rates them as collectives come and go);
// - a time-sliced vGPU: its GPU's scheduler (sim/sharing/vgpu_scheduler.hpp) gives the rank's kernels their turns among
// the
//   other vGPUs, at the rate a collective beside them leaves, read at each turn.

#include <functional>

namespace vtsim::sim {

class TimeSliceScheduler;

/// Consecutive kernels run as one sleep: their time in all, the part of it the GPU is busy, and the bytes they move
/// in device memory.
struct Stretch {
  double total_s = 0;
  double gpu_s = 0;
  double bytes = 0;

  void add(double layer_total_s, double layer_gpu_s, double layer_bytes) {
    total_s += layer_total_s;
    gpu_s += layer_gpu_s;
    bytes += layer_bytes;
  }
  /// The stretch with its times scaled by `factor` (a rank's draw for the iteration); it moves the same bytes.
  Stretch scaled(double factor) const { return {total_s * factor, gpu_s * factor, bytes}; }
};

/// What running a stretch took: the device busy with its kernels, and the time they waited for their turns.
struct DeviceRun {
  double busy_s = 0;
  double waited_s = 0;
};

class RankDevice {
 public:
  virtual ~RankDevice() = default;
  /// Waits `stall_s` with nothing to run (the host is behind), then runs `stretch`'s kernels (gpu_s, their time
  /// alone). Called from the rank's compute actor.
  virtual DeviceRun run(double stall_s, const Stretch& stretch) = 0;
  /// The rank will run nothing until its next run().
  virtual void idle() = 0;
};

/// A whole GPU or a MIG slice.
class DedicatedDevice final : public RankDevice {
 public:
  /// `run_shared` runs a stretch's kernels beside the rank's collectives and returns the time they took.
  explicit DedicatedDevice(std::function<double(const Stretch&)> run_shared);
  DeviceRun run(double stall_s, const Stretch& stretch) override;
  void idle() override {}

 private:
  std::function<double(const Stretch&)> run_shared_;
};

/// vGPU `vgpu` of a GPU that `scheduler` time-slices; its kernels progress at `*rate` of their speed alone.
/// REQUIRES: scheduler and *rate outlive the device.
class TimeSlicedDevice final : public RankDevice {
 public:
  TimeSlicedDevice(TimeSliceScheduler& scheduler, int vgpu, const double* rate);
  /// The stall goes to the other vGPUs: the scheduler may give them the GPU meanwhile.
  DeviceRun run(double stall_s, const Stretch& stretch) override;
  void idle() override;

 private:
  TimeSliceScheduler& scheduler_;
  int vgpu_;
  const double* rate_;
};

}  // namespace vtsim::sim
