#include "models/scenario/operations_loader.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>

#include "models/core/units.hpp"

namespace vtsim {
namespace {

std::span<const std::pair<std::string, EventType>> event_type_names() {
  static const std::array<std::pair<std::string, EventType>, 3> names = {
      {{"vmotion", EventType::vmotion}, {"host_failure", EventType::host_failure},
       {"maintenance", EventType::maintenance}}};
  return names;
}

bool has_ranks_on(const Scenario& scenario, const JobConfig& job, int host) {
  return !job.idle && ranks_per_host(job, scenario.cluster.host.gpus).contains(host);
}

}  // namespace

CheckpointConfig read_checkpoint(JsonObject checkpoint) {
  CheckpointConfig config;
  config.interval_iterations = static_cast<int>(checkpoint.require("interval_iterations").as_int(1, 1 << 30));
  if (auto size = checkpoint.get("size_gb")) config.size_bytes = size->as_positive_number(1e6) * 1e9;
  if (auto bandwidth = checkpoint.get("storage_bandwidth_gbps")) {
    config.storage_Bps = units::gbps_to_Bps(bandwidth->as_positive_number(1e6));
    config.storage_stated = true;
  }
  checkpoint.finish();
  return config;
}

OperationsConfig read_operations(const std::optional<JsonValue>& operations) {
  OperationsConfig config;
  if (!operations) return config;
  JsonObject object = operations->as_object();
  if (auto memory = object.get("vm_memory_gib")) {
    config.vm_memory_bytes = memory->as_number(0.0, 1e5) * units::kBytesPerGiB;
    config.vm_memory_stated = true;
  }
  if (auto fixed = object.get("stun_fixed_s")) config.stun_fixed_s = fixed->as_number(0.0, 1e5);
  if (auto per_gib = object.get("stun_s_per_framebuffer_gib")) {
    config.stun_s_per_framebuffer_gib = per_gib->as_number(0.0, 1e5);
  }
  if (auto limit = object.get("stun_limit_s")) config.stun_limit_s = limit->as_positive_number(1e6);
  if (auto vmknics = object.get("vmotion_vmknics")) config.vmotion_vmknics = static_cast<int>(vmknics->as_int(1, 3));
  if (auto detection = object.get("ha_detection_s")) config.ha_detection_s = detection->as_number(0.0, 1e5);
  if (auto boot = object.get("vm_boot_s")) {
    config.vm_boot_s = boot->as_number(0.0, 1e5);
    config.vm_boot_stated = true;
  }
  if (auto restart = object.get("job_restart_s")) {
    config.job_restart_s = restart->as_number(0.0, 1e5);
    config.job_restart_stated = true;
  }
  object.finish();
  return config;
}

std::vector<OperationEvent> read_events(const JsonValue& events, const Scenario& scenario) {
  std::vector<OperationEvent> all;
  const VirtualizationMode mode = scenario.virtualization.mode;
  // Each host failure can send a job back to its start, so it may start its iterations once more per failure: an
  // event may come at any of those (an iteration the job never starts leaves the event not reached, which the
  // result says).
  int failures = 0;
  for (const JsonValue& entry : events.as_array()) {
    if (entry.is_object()) {
      const std::optional<JsonValue> type = entry.as_object().get("type");
      if (type && type->is_string() && type->as_string() == "host_failure") ++failures;
    }
  }
  for (const JsonValue& entry : events.as_array()) {
    JsonObject object = entry.as_object();
    const JsonValue type = object.require("type");
    const std::optional<JsonValue> at_s = object.get("at_s");
    const std::optional<JsonValue> at_iteration = object.get("at_iteration");
    const JsonValue host = object.require("host");
    const std::optional<JsonValue> job = object.get("job");
    object.finish();

    OperationEvent event;
    event.json_path = entry.path();
    event.type = type.as_enum(event_type_names());
    event.host = static_cast<int>(host.as_int(0, scenario.cluster.total_hosts() - 1));
    if (at_s.has_value() == at_iteration.has_value()) entry.fail("give exactly one of 'at_s' and 'at_iteration'");
    if (at_s) event.at_s = at_s->as_number(0.0, 1e9);
    if (mode == VirtualizationMode::bare_metal) {
      type.fail("events are vSphere operations on VMs: virtualization.mode is 'bare_metal'");
    }
    const bool moves = event.type != EventType::host_failure;
    if (moves && mode == VirtualizationMode::passthrough) {
      type.fail("a VM with a passed-through GPU (DirectPath I/O) cannot be moved by vMotion: use 'vgpu' or 'mig'");
    }
    if (moves && scenario.cluster.host.nics == 0) type.fail("vMotion needs a network: cluster.host.nics is 0");

    // The jobs the event touches: a vMotion's named job, else every job with ranks on the host.
    std::vector<int> touched;
    if (event.type == EventType::vmotion) {
      if (job) {
        const std::string name = job->as_string();
        const auto found = std::find_if(scenario.jobs.begin(), scenario.jobs.end(),
                                        [&](const JobConfig& j) { return j.name == name; });
        if (found == scenario.jobs.end()) job->fail("no job is named '" + name + "'");
        event.job = static_cast<int>(found - scenario.jobs.begin());
        if (!has_ranks_on(scenario, *found, event.host)) {
          job->fail("job '" + name + "' runs no ranks on host " + std::to_string(event.host));
        }
      } else {
        for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
          if (!has_ranks_on(scenario, scenario.jobs[j], event.host)) continue;
          if (event.job >= 0) host.fail("several jobs run on this host: name the VM's job with 'job'");
          event.job = static_cast<int>(j);
        }
      }
      if (event.job >= 0) touched.push_back(event.job);
    } else {
      if (job) job->fail("a " + std::string(to_string(event.type)) + " concerns every VM of the host: remove 'job'");
      for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
        if (has_ranks_on(scenario, scenario.jobs[j], event.host)) touched.push_back(static_cast<int>(j));
      }
    }
    if (touched.empty()) host.fail("no job runs on host " + std::to_string(event.host) + ": the event changes nothing");
    if (at_iteration) {
      // Counted on the event's job, or the first job on the host.
      const JobConfig& reference = scenario.jobs[static_cast<std::size_t>(touched.front())];
      const std::int64_t started = std::int64_t{reference.warmup_iterations} + reference.iterations;
      event.at_iteration = static_cast<int>(at_iteration->as_int(0, started * (1 + failures) - 1));
    }
    // One event per host at a time: a second at the same moment was costed as if the first had not happened (issue
    // 31: two vMotions of one host at one iteration, the second's 30 s stun costed 0.15 s).
    for (const OperationEvent& earlier : all) {
      if (earlier.host == event.host && earlier.at_s == event.at_s && earlier.at_iteration == event.at_iteration) {
        entry.fail("host " + std::to_string(event.host) + " already has an event at this " +
                   (event.at_s ? "time" : "iteration") + " (" + earlier.json_path +
                   "): vtsim costs one event of a host at a time; give them different moments");
      }
    }
    all.push_back(event);
  }
  return all;
}

}  // namespace vtsim
