#include "sim/training/rank_device.hpp"

#include <utility>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/sharing/vgpu_scheduler.hpp"

namespace vtsim::sim {

namespace sg4 = simgrid::s4u;

DedicatedDevice::DedicatedDevice(std::function<double(const Stretch&)> run_shared)
    : run_shared_(std::move(run_shared)) {}

DeviceRun DedicatedDevice::run(double stall_s, const Stretch& stretch) {
  if (stall_s > 0) sg4::this_actor::sleep_for(stall_s);
  return {run_shared_(stretch), 0.0};
}

TimeSlicedDevice::TimeSlicedDevice(TimeSliceScheduler& scheduler, int vgpu, const double* rate)
    : scheduler_(scheduler), vgpu_(vgpu), rate_(rate) {}

DeviceRun TimeSlicedDevice::run(double stall_s, const Stretch& stretch) {
  if (stall_s > 0) {
    scheduler_.idle(vgpu_);  // nothing queued: the scheduler may give the GPU to another vGPU meanwhile
    sg4::this_actor::sleep_for(stall_s);
  }
  const double start = sg4::Engine::get_clock();
  const double busy = scheduler_.run(vgpu_, stretch.gpu_s, rate_);
  return {busy, sg4::Engine::get_clock() - start - busy};
}

void TimeSlicedDevice::idle() { scheduler_.idle(vgpu_); }

}  // namespace vtsim::sim
