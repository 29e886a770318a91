#include "sim/sharing/vgpu_scheduler.hpp"

#include <algorithm>
#include <cassert>
#include <mutex>
#include <string>
#include <vector>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <simgrid/s4u/Semaphore.hpp>

namespace vtsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

/// Below this much left, a kernel is done: simulated time is a double and slices cut kernels into pieces.
constexpr double kNegligible_s = 1e-12;

}  // namespace

/// What a vGPU is doing, for the scheduler. Outside the anonymous namespace: TimeSliceScheduler::State, which has
/// external linkage, holds it (GCC's -Wsubobject-linkage, which a unity build raises for a type of a .cpp).
enum class VgpuState {
  idle,      ///< no GPU work until its rank calls run()
  deciding,  ///< a kernel just ended; its rank is about to call run() or idle() at this very instant
  pending,   ///< has a kernel (or the rest of one) to run
};

struct TimeSliceScheduler::State {
  SchedulerSetup setup;
  TraceRecorder* trace = nullptr;
  int trace_pid = 0;
  int trace_tid = 0;
  std::vector<VgpuState> vgpu_state;
  std::vector<double> remaining_s;         ///< per vGPU, its kernels' time alone still to run
  std::vector<const double*> rate;         ///< per vGPU, the speed its kernels run at now (null: 1)
  std::vector<double> ran_s;               ///< per vGPU, GPU time its current run() took so far
  std::vector<sg4::SemaphorePtr> kernel_done;
  sg4::MutexPtr mutex;
  sg4::ConditionVariablePtr changed;
  SchedulerStatistics statistics;
  /// What the GPU did, in order: runs of kernels and context switches (for figures over a window).
  struct Interval {
    double start_s;
    double duration_s;
    bool context_switch;
  };
  std::vector<Interval> intervals;

  int vgpu_count() const { return static_cast<int>(setup.vgpu_names.size()); }
  bool any(VgpuState wanted) const {
    return std::find(vgpu_state.begin(), vgpu_state.end(), wanted) != vgpu_state.end();
  }

  /// The next slot after `cursor` to give the GPU to, or -1 when best effort finds no vGPU with work.
  int next_slot(int cursor) const {
    if (setup.policy != SchedulerPolicy::best_effort) return (cursor + 1) % setup.slots;
    for (int step = 1; step <= vgpu_count(); ++step) {
      const int candidate = (cursor + step) % vgpu_count();
      if (vgpu_state[static_cast<std::size_t>(candidate)] == VgpuState::pending) return candidate;
    }
    return -1;
  }

  void scheduler_actor() {
    std::unique_lock lock(*mutex);
    int cursor = -1;
    int last_running = -1;
    while (true) {
      // Let every vGPU whose kernel just ended decide, then wait for work if there is none anywhere.
      changed->wait(lock, [this] { return !any(VgpuState::deciding) && any(VgpuState::pending); });
      const int slot = next_slot(cursor);
      if (slot < 0) continue;
      cursor = slot;
      const int vgpu = slot < vgpu_count() ? slot : -1;  // fixed share: slots beyond the vGPUs stay empty
      const double slice_end = sg4::Engine::get_clock() + setup.time_slice_s;
      while (sg4::Engine::get_clock() < slice_end - kNegligible_s) {
        const VgpuState state = vgpu < 0 ? VgpuState::idle : vgpu_state[static_cast<std::size_t>(vgpu)];
        if (state == VgpuState::deciding) {
          changed->wait(lock, [this, vgpu] { return vgpu_state[static_cast<std::size_t>(vgpu)] != VgpuState::deciding; });
          continue;
        }
        if (state == VgpuState::idle) {
          if (setup.policy == SchedulerPolicy::best_effort) break;  // give the rest of the slice away
          // Equal and fixed share: the slot is this vGPU's even if it has nothing to run now.
          if (changed->wait_until(lock, slice_end) == std::cv_status::timeout) break;
          continue;
        }
        if (vgpu != last_running && last_running < 0) {  // the GPU's first context: nothing to switch from
          last_running = vgpu;
        }
        if (vgpu != last_running) {  // turning to another vGPU costs a context switch, paid out of this slot
          const double cost = std::min(setup.context_switch_s, slice_end - sg4::Engine::get_clock());
          const double start = sg4::Engine::get_clock();
          lock.unlock();
          sg4::this_actor::sleep_for(cost);
          lock.lock();
          statistics.switch_s += cost;
          ++statistics.switches;
          intervals.push_back({start, cost, true});
          last_running = vgpu;
          if (trace != nullptr && cost > 0) trace->span(trace_pid, trace_tid, "context switch", start, start + cost);
          continue;
        }
        double& remaining = remaining_s[static_cast<std::size_t>(vgpu)];
        const double* speed = rate[static_cast<std::size_t>(vgpu)];
        const double r = speed != nullptr ? *speed : 1.0;
        const double run_s = std::min(remaining / r, slice_end - sg4::Engine::get_clock());
        const double start = sg4::Engine::get_clock();
        lock.unlock();
        sg4::this_actor::sleep_for(run_s);
        lock.lock();
        statistics.busy_s += run_s;
        intervals.push_back({start, run_s, false});
        ran_s[static_cast<std::size_t>(vgpu)] += run_s;
        if (trace != nullptr) trace->span(trace_pid, trace_tid, setup.vgpu_names[static_cast<std::size_t>(vgpu)], start, start + run_s);
        remaining -= run_s * r;
        if (remaining <= kNegligible_s * r) {
          vgpu_state[static_cast<std::size_t>(vgpu)] = VgpuState::deciding;
          kernel_done[static_cast<std::size_t>(vgpu)]->release();
        }
      }
    }
  }
};

TimeSliceScheduler::TimeSliceScheduler(SchedulerSetup setup, TraceRecorder* trace, int trace_pid, int trace_tid)
    : state_(std::make_unique<State>()) {
  assert(setup.slots >= static_cast<int>(setup.vgpu_names.size()));
  state_->setup = std::move(setup);
  state_->trace = trace;
  state_->trace_pid = trace_pid;
  state_->trace_tid = trace_tid;
}

TimeSliceScheduler::~TimeSliceScheduler() = default;

void TimeSliceScheduler::start(sg4::Host* host) {
  State& s = *state_;
  s.mutex = sg4::Mutex::create();
  s.changed = sg4::ConditionVariable::create();
  s.vgpu_state.assign(static_cast<std::size_t>(s.vgpu_count()), VgpuState::idle);
  s.remaining_s.assign(static_cast<std::size_t>(s.vgpu_count()), 0.0);
  s.rate.assign(static_cast<std::size_t>(s.vgpu_count()), nullptr);
  s.ran_s.assign(static_cast<std::size_t>(s.vgpu_count()), 0.0);
  for (int v = 0; v < s.vgpu_count(); ++v) s.kernel_done.push_back(sg4::Semaphore::create(0));
  sg4::Actor::create(host->get_name() + ".scheduler", host, [&s] { s.scheduler_actor(); })->daemonize();
}

double TimeSliceScheduler::run(int vgpu, double seconds, const double* rate) {
  if (seconds <= 0) return 0.0;
  assert(rate == nullptr || *rate > 0);
  State& s = *state_;
  const auto v = static_cast<std::size_t>(vgpu);
  {
    std::unique_lock lock(*s.mutex);
    s.vgpu_state[v] = VgpuState::pending;
    s.remaining_s[v] = seconds;
    s.rate[v] = rate;
    s.ran_s[v] = 0;
    s.changed->notify_all();
  }
  s.kernel_done[v]->acquire();
  return s.ran_s[v];
}

void TimeSliceScheduler::idle(int vgpu) {
  State& s = *state_;
  std::unique_lock lock(*s.mutex);
  s.vgpu_state[static_cast<std::size_t>(vgpu)] = VgpuState::idle;
  s.changed->notify_all();
}

SchedulerStatistics TimeSliceScheduler::statistics() const { return state_->statistics; }

SchedulerStatistics TimeSliceScheduler::statistics_until(double end_s) const {
  SchedulerStatistics statistics;
  for (const State::Interval& interval : state_->intervals) {
    if (interval.start_s >= end_s) continue;
    const double part = std::min(interval.duration_s, end_s - interval.start_s);
    if (interval.context_switch) {
      statistics.switch_s += part;
      ++statistics.switches;
    } else {
      statistics.busy_s += part;
    }
  }
  return statistics;
}

}  // namespace vtsim::sim
