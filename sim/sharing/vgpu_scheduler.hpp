#pragma once
// The time-sliced scheduler of one physical GPU shared by several vGPUs (NVIDIA vGPU, scheduler chapter of the user
// guide): round-robin over time slices, with a context-switch cost each time the GPU turns to another vGPU.
//
// Policies. best effort: the round-robin visits only vGPUs with work; an idle vGPU gives its time away. equal share:
// each powered-on vGPU owns one slot of the round whether or not it has work; a slot whose vGPU has nothing to run
// leaves the GPU idle until the slot ends. fixed share: the round has as many slots as the profile allows vGPUs per
// GPU (T4-4C: 4), so a vGPU gets its fixed fraction however many others run. A kernel longer than what is left of the
// slice is preempted at the slice's end and resumes in the vGPU's next slot.
//
// Protocol for the vGPU's rank actor: run(vgpu, seconds) for each kernel, idle(vgpu) before blocking on anything else
// (waiting for an allreduce, or finishing). After a kernel ends the scheduler waits, at the same instant, for the rank
// to say which; no simulated time passes.

#include <memory>

#include <simgrid/s4u/Host.hpp>

#include "models/scenario/scheduler_policy.hpp"
#include "sim/engine/trace.hpp"

namespace vtsim::sim {

/// What a scheduler did over the whole run.
struct SchedulerStatistics {
  double busy_s = 0;    ///< the GPU running some vGPU's kernels
  double switch_s = 0;  ///< lost to context switches
  long switches = 0;
};

/// One GPU's round-robin scheduler. Create before the engine runs; start() creates its actor.
class TimeSliceScheduler {
 public:
  /// `trace` may be null; spans go to track (trace_pid, trace_tid).
  TimeSliceScheduler(SchedulerSetup setup, TraceRecorder* trace, int trace_pid, int trace_tid);
  ~TimeSliceScheduler();
  TimeSliceScheduler(const TimeSliceScheduler&) = delete;
  TimeSliceScheduler& operator=(const TimeSliceScheduler&) = delete;

  /// Creates the scheduler's actor on `host` (a daemon: it ends with the simulation).
  void start(simgrid::s4u::Host* host);
  /// Runs `seconds` of vGPU `vgpu`'s kernels (their time alone), waiting for its turns. They progress at `*rate` of
  /// their speed alone (1 when null), read at the start of each turn's run, so that a change (a collective starting or
  /// ending beside them) takes effect within one time slice. Returns the GPU time they took, waits excluded. Called
  /// from that vGPU's rank actor. REQUIRES: *rate > 0.
  double run(int vgpu, double seconds, const double* rate = nullptr);
  /// Says vGPU `vgpu` has no GPU work until its next run().
  void idle(int vgpu);
  /// What the scheduler did so far.
  SchedulerStatistics statistics() const;
  /// The same, counting only what happened before `end_s` (a switch or a run that straddles it, in part; a switch
  /// counts when it started before `end_s`).
  SchedulerStatistics statistics_until(double end_s) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace vtsim::sim
