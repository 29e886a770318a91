#include "sim/operations/operations.hpp"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <set>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace vtsim::sim {
namespace {

namespace sg4 = simgrid::s4u;

/// Per rank of `job`, whether it runs on `host`.
std::vector<char> ranks_on(const TrainingJob& job, int host) {
  std::vector<char> on;
  for (int h : job.rank_host_indices()) on.push_back(h == host ? 1 : 0);
  return on;
}

/// The scenario's running jobs with ranks on `host`.
std::vector<int> jobs_on(const std::vector<OperatedJob>& jobs, int host) {
  std::vector<int> found;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (jobs[j].job == nullptr) continue;
    const std::vector<int>& hosts = jobs[j].job->rank_host_indices();
    if (std::find(hosts.begin(), hosts.end(), host) != hosts.end()) found.push_back(static_cast<int>(j));
  }
  return found;
}

}  // namespace

std::vector<int> migrating_hosts(const std::vector<OperationEvent>& events) {
  std::set<int> hosts;
  for (const OperationEvent& event : events) {
    if (event.type != EventType::host_failure) hosts.insert(event.host);
  }
  return {hosts.begin(), hosts.end()};
}

OperationsRunner::OperationsRunner(OperationsPlan plan, const Platform& platform, std::vector<OperatedJob> jobs,
                                   TraceRecorder* trace, int trace_pid)
    : plan_(std::move(plan)), platform_(platform), jobs_(std::move(jobs)), trace_(trace), trace_pid_(trace_pid) {
  for (const OperationEvent& event : plan_.events) {
    assert(event.type != EventType::vmotion ||
           (static_cast<std::size_t>(event.job) < jobs_.size() && jobs_[static_cast<std::size_t>(event.job)].job));
    outcomes_.push_back({event.type, event.host, false, 0, {}, {}});
  }
}

void OperationsRunner::start() {
  if (trace_ != nullptr && !outcomes_.empty()) trace_->name_process(trace_pid_, "vSphere operations");
  for (std::size_t e = 0; e < plan_.events.size(); ++e) {
    if (trace_ != nullptr) {
      trace_->name_thread(trace_pid_, static_cast<int>(e), plan_.events[e].json_path + " " +
                                                               std::string(to_string(plan_.events[e].type)));
    }
    // A daemon: an event still waiting when every job has ended must not keep the simulation going.
    sg4::Actor::create("event" + std::to_string(e), platform_.gpu_host(0), [this, e] { run_event(e); })->daemonize();
  }
}

void OperationsRunner::run_event(std::size_t index) {
  const OperationEvent& event = plan_.events[index];
  EventOutcome& outcome = outcomes_[index];
  const std::vector<int> touched = event.type == EventType::vmotion ? std::vector<int>{event.job}
                                                                     : jobs_on(jobs_, event.host);
  assert(!touched.empty() && "the loader refuses events that touch no job");
  if (event.at_s) {
    sg4::this_actor::sleep_until(*event.at_s);
  } else {
    jobs_[static_cast<std::size_t>(touched.front())].job->rank0_iteration_starts().wait_for(*event.at_iteration + 1);
  }
  outcome.reached = true;
  outcome.at_s = sg4::Engine::get_clock();
  if (event.type == EventType::host_failure) {
    fail(event.host, outcome);
  } else {
    migrate(touched, event.host, outcome);
  }
}

void OperationsRunner::migrate(const std::vector<int>& jobs, int host, EventOutcome& outcome) {
  const OperationsConfig& operations = plan_.config;
  const auto tid = static_cast<int>(&outcome - outcomes_.data());
  // The VMs' guest memories leave through the host's NIC at once, beside the jobs' flows. Recorded before they end:
  // the jobs may end first (the actor is then killed mid-wait).
  std::vector<sg4::CommPtr> precopies;
  for (int j : jobs) {
    const OperatedJob& operated = jobs_[static_cast<std::size_t>(j)];
    const std::vector<char> ranks = ranks_on(*operated.job, host);
    VmMigration migration;
    migration.job = operated.name;
    migration.host = host;
    migration.precopy_start_s = outcome.at_s;
    migration.precopy_bytes = operations.vm_memory_bytes;
    migration.framebuffer_bytes =
        static_cast<double>(std::count(ranks.begin(), ranks.end(), 1)) * operated.memory_per_rank_bytes;
    migration.stun_s = vmotion_stun_s(operations, migration.framebuffer_bytes, plan_.vmotion_rate_Bps);
    migration.over_stun_limit = migration.stun_s > operations.stun_limit_s;
    outcome.migrations.push_back(migration);
    precopies.push_back(sg4::Comm::sendto_async(platform_.migration_source(host), platform_.migration_destination(host),
                                                static_cast<std::uint64_t>(operations.vm_memory_bytes)));
  }
  for (const sg4::CommPtr& precopy : precopies) precopy->wait();
  const double end = sg4::Engine::get_clock();
  for (std::size_t v = 0; v < jobs.size(); ++v) {
    TrainingJob& job = *jobs_[static_cast<std::size_t>(jobs[v])].job;
    VmMigration& migration = outcome.migrations[v];
    migration.precopy_end_s = end;
    migration.stun = job.add_pause({.iteration = job.next_unstarted_iteration(),
                                    .ranks = ranks_on(job, host),
                                    .seconds = migration.stun_s,
                                    .until_s = -1,
                                    .restart = false,
                                    .resume_progress = 0,
                                    .lost_from = 0,
                                    .label = "vMotion stun"});
    if (trace_ != nullptr) {
      trace_->span(trace_pid_, tid, "pre-copy " + migration.job + " (host " + std::to_string(host) + ")",
                   outcome.at_s, end);
    }
  }
}

void OperationsRunner::fail(int host, EventOutcome& outcome) {
  const auto tid = static_cast<int>(&outcome - outcomes_.data());
  for (int j : jobs_on(jobs_, host)) {
    const OperatedJob& operated = jobs_[static_cast<std::size_t>(j)];
    TrainingJob& job = *operated.job;
    const CheckpointMark checkpoint = job.last_checkpoint();
    const double restore_s =
        checkpoint.progress > 0 ? operated.checkpoint_bytes / operated.checkpoint_storage_Bps : 0.0;
    FailureImpact impact;
    impact.job = operated.name;
    impact.resumed_s = outcome.at_s + ha_restart_s(plan_.config, restore_s);
    if (const std::optional<std::size_t> waiting = job.restart_in_progress(outcome.at_s)) {
      // Down already: this failure can only keep the job down longer.
      impact.extended = true;
      impact.restart = *waiting;
      impact.checkpoint_end_s = checkpoint.end_s;
      impact.lost_since_s = job.restart_end_s(*waiting);
      impact.resumed_s = std::max(impact.resumed_s, impact.lost_since_s);
      job.extend_restart(*waiting, impact.resumed_s);
    } else {
      const int restart_iteration = job.next_unstarted_iteration();
      impact.checkpoint_end_s = checkpoint.end_s;
      // The work lost runs from the checkpoint or, when the job resumed after it from an earlier failure, from that
      // resumption: the earlier failure counted the work before it.
      int lost_from = checkpoint.first_iteration_after;
      impact.lost_since_s = checkpoint.end_s;
      if (const std::optional<std::size_t> previous = job.last_restart()) {
        if (job.pause_iteration(*previous) > lost_from) {
          lost_from = job.pause_iteration(*previous);
          impact.lost_since_s = job.restart_end_s(*previous);
        }
      }
      impact.lost_iterations = restart_iteration - lost_from;
      impact.restart = job.add_pause({.iteration = restart_iteration,
                                      .ranks = std::vector<char>(job.rank_host_indices().size(), 1),
                                      .seconds = 0,
                                      .until_s = impact.resumed_s,
                                      .restart = true,
                                      .resume_progress = checkpoint.progress,
                                      .lost_from = checkpoint.first_iteration_after,
                                      .label = "HA restart"});
    }
    if (trace_ != nullptr) {
      trace_->span(trace_pid_, tid, "host " + std::to_string(host) + " down: " + operated.name + " restarts",
                   outcome.at_s, impact.resumed_s);
    }
    outcome.failures.push_back(impact);
  }
}

}  // namespace vtsim::sim
