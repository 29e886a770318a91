#pragma once
// vSphere operations on a running simulation (models/scenario/operations.hpp): one actor per event.
//
// - vmotion: when the event comes, the VM's guest memory is pre-copied from its host's first NIC to a spare host,
//   competing with the jobs' flows on that NIC (Platform::migration_source). When the pre-copy ends, the VM's ranks
//   are stunned for vmotion_stun_s() of the framebuffer their job uses on that host, as they start the next
//   iteration none of them has started: its step is the stun longer (a stun mid-iteration would pause whatever the
//   ranks were doing; the job loses the same time).
// - maintenance: a vmotion of every VM of the host, pre-copies at once.
// - host_failure: every job with ranks on the host stops; as its ranks start the next iteration none has started
//   they wait until the failure time plus ha_restart_s() (the iterations they run meanwhile stand for nothing: the
//   job had failed), then resume from the last checkpoint; the iterations since it are lost and run again. A second
//   failure after the job resumed loses what it ran since then (the first failure counted the rest). The restarted
//   VMs run on spare capacity of the same kind: the simulation keeps their places.
// An event that comes after its jobs have ended is reported as not reached.

#include <optional>
#include <string>
#include <vector>

#include "models/scenario/operations.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/trace.hpp"
#include "sim/training/training_job.hpp"

namespace vtsim::sim {

/// What one VM's migration did.
struct VmMigration {
  std::string job;
  int host = 0;
  double precopy_start_s = 0;
  double precopy_end_s = -1;     ///< -1: the jobs ended before the pre-copy did
  std::optional<std::size_t> stun;  ///< the stun's pause in the job (TrainingJob::pause_taken), once pre-copied
  double precopy_bytes = 0;
  double framebuffer_bytes = 0;  ///< in use by the VM's vGPUs, moved during the stun
  double stun_s = 0;
  bool over_stun_limit = false;  ///< vSphere would refuse it or time out (OperationsConfig::stun_limit_s)
};

/// What a host failure did to one job.
struct FailureImpact {
  std::string job;
  double checkpoint_end_s = 0;  ///< the checkpoint it resumed from (0: the job's start)
  /// Since when the job's work is lost: the checkpoint's end, or an earlier failure's restart when the job resumed
  /// after the checkpoint (its work since that restart is lost, what came before was counted by that failure).
  double lost_since_s = 0;
  double resumed_s = 0;         ///< the failure time plus the HA restart and the checkpoint's read-back
  int lost_iterations = 0;      ///< run since the checkpoint (or the earlier restart), run again
  std::size_t restart = 0;      ///< the restart's pause in the job (TrainingJob::pause_taken)
  /// The job was already waiting for a restart (an earlier failure): this one only moved its end, from
  /// lost_since_s (then the earlier restart's end) to resumed_s, and lost nothing more.
  bool extended = false;
};

/// One event as it happened.
struct EventOutcome {
  EventType type = EventType::vmotion;
  int host = 0;
  bool reached = false;  ///< false when the jobs ended before it came
  double at_s = 0;       ///< when it came
  std::vector<VmMigration> migrations;  ///< vmotion, maintenance
  std::vector<FailureImpact> failures;  ///< host_failure
};

/// Per scenario job, what the operations need: the running job (null for idle jobs, whose other fields are unset),
/// its name, the device memory one rank uses, the checkpoint's size and the rate its storage reads it back at.
struct OperatedJob {
  TrainingJob* job = nullptr;
  std::string name;
  double memory_per_rank_bytes = 0;
  double checkpoint_bytes = 0;
  double checkpoint_storage_Bps = 0;
};

/// The scenario's operations as the runner needs them, looked up and derived by the caller.
struct OperationsPlan {
  std::vector<OperationEvent> events;  ///< in the scenario's order
  OperationsConfig config;
  double vmotion_rate_Bps = 0;  ///< what the hosts' vMotion moves a stun's framebuffer at (vmotion_rate_Bps())
};

/// Runs the scenario's events. Create after the jobs have started, before the engine runs.
class OperationsRunner {
 public:
  /// `jobs` has one entry per scenario job; a vMotion event's job runs. `trace` (may be null) receives each event's
  /// spans on a thread of its own (the event's index) of process `trace_pid`.
  OperationsRunner(OperationsPlan plan, const Platform& platform, std::vector<OperatedJob> jobs, TraceRecorder* trace,
                   int trace_pid);

  /// Creates one (daemon) actor per event.
  void start();
  /// The events in the scenario's order.
  const std::vector<EventOutcome>& outcomes() const { return outcomes_; }

 private:
  void run_event(std::size_t index);
  void migrate(const std::vector<int>& jobs, int host, EventOutcome& outcome);
  void fail(int host, EventOutcome& outcome);

  OperationsPlan plan_;
  const Platform& platform_;
  std::vector<OperatedJob> jobs_;
  TraceRecorder* trace_;
  int trace_pid_;
  std::vector<EventOutcome> outcomes_;
};

/// The hosts whose VMs one of `events` moves (the platform's migration hosts).
std::vector<int> migrating_hosts(const std::vector<OperationEvent>& events);

}  // namespace vtsim::sim
