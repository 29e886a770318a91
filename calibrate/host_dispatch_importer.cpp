#include "calibrate/host_dispatch_importer.hpp"

#include <optional>

#include <nlohmann/json.hpp>

#include "calibrate/probe_support.hpp"
#include "models/core/error.hpp"
#include "models/core/json_reader.hpp"

namespace vtsim::calibrate {
namespace {

// A phase counts as the host's when the GPU was busy at most this share of its wall time.
constexpr double kHostBoundBusyShare = 0.5;

// A string field of a record, "" when absent or null.
std::string optional_text(JsonObject& object, std::string_view key) {
  const std::optional<JsonValue> value = object.get(key);
  return value ? value->as_string() : std::string();
}

// A machine field must agree across logs: pooled figures are of one host and one framework version.
void agree(std::string& kept, const std::string& seen, const JsonValue& where, std::string_view what) {
  if (seen.empty()) return;
  if (kept.empty()) {
    kept = seen;
  } else if (kept != seen) {
    where.fail("this log's " + std::string(what) + " is '" + seen + "', another's '" + kept +
               "': import one host's logs at a time");
  }
}

}  // namespace

HostSection import_host_dispatch(const std::vector<HostDispatchLog>& logs) {
  HostSection host;
  host.provenance.tool = "calibrate/gpu_harness/host_dispatch.py";
  double eager_wall_us = 0;
  int eager_phases = 0;
  double graph_gap_sum_us = 0;
  int graph_records = 0;
  std::vector<double> launch_calls_us;
  std::string files;
  for (const HostDispatchLog& log : logs) {
    const nlohmann::json document = parse_json_text(log.text, log.file);
    JsonObject root = JsonValue(document, log.file, "").as_object();
    const JsonValue machine_value = root.require("machine");
    JsonObject machine = machine_value.as_object();
    agree(host.cpu_model, optional_text(machine, "cpu_model"), machine_value, "cpu_model");
    agree(host.framework_version, optional_text(machine, "torch"), machine_value, "torch version");
    agree(host.provenance.device, optional_text(machine, "gpu"), machine_value, "gpu");
    const std::optional<JsonValue> steps = root.get("steps");
    if (!steps) continue;
    for (const JsonValue& record_value : steps->as_array()) {
      JsonObject record = record_value.as_object();
      const std::string mode = record.require("mode").as_string();
      JsonObject phases = record.require("phases").as_object();
      if (mode == "eager") {
        for (const std::string_view name : {"forward", "backward", "optimizer"}) {  // every phase's launch calls
          const std::optional<JsonValue> phase_value = phases.get(name);
          if (!phase_value) continue;
          JsonObject phase = phase_value->as_object();
          if (const std::optional<JsonValue> calls = phase.get("launch_call_us")) {
            // As the profile bounds the median: a launch call takes at least 10 ns.
            for (const JsonValue& call : calls->as_array()) launch_calls_us.push_back(call.as_number(0.01, 1e6));
          }
        }
        for (const std::string_view name : {"forward", "backward"}) {
          const std::optional<JsonValue> phase_value = phases.get(name);
          if (!phase_value) continue;
          JsonObject phase = phase_value->as_object();
          const double wall_us = phase.require("wall_us").as_positive_number();
          const std::optional<JsonValue> launches = phase.get("launches");
          const std::optional<JsonValue> busy = phase.get("gpu_busy_us");
          if (!launches || !busy) continue;  // the profiled step did not record this phase
          const std::int64_t count = launches->as_int(0, 1 << 24);
          if (count == 0 || busy->as_number(0) > kHostBoundBusyShare * wall_us) continue;
          eager_wall_us += wall_us;
          host.eager_launches += static_cast<int>(count);
          ++eager_phases;
        }
      } else if (mode == "cuda graph") {
        if (const std::optional<JsonValue> gap = record.get("gap_us_per_node")) {
          graph_gap_sum_us += gap->as_number(0, 1e6);
          ++graph_records;
        }
      }
    }
    files += (files.empty() ? "" : ", ") + log.file;
  }
  if (host.eager_launches == 0) {
    throw InputError((logs.empty() ? std::string("host-dispatch") : logs.front().file) +
                     ": no eager forward or backward phase with the GPU idle at least half its wall time: nothing "
                     "here measures the host (run calibrate/gpu_harness/host_dispatch.py)");
  }
  host.eager_us_per_launch = eager_wall_us / host.eager_launches;
  if (graph_records > 0) host.graph_us_per_node = graph_gap_sum_us / graph_records;
  if (!launch_calls_us.empty()) {
    host.launch_call_us = median(launch_calls_us);
    host.launch_calls = static_cast<int>(launch_calls_us.size());
  }
  host.provenance.notes = std::to_string(eager_phases) + " host-bound eager phases, " +
                          std::to_string(graph_records) + " replayed graphs, from " + files;
  return host;
}

}  // namespace vtsim::calibrate
