#include "tools/report/result_table.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include "models/core/control_characters.hpp"
#include "tools/report/text_table.hpp"

namespace vtsim::tools {
namespace {

using nlohmann::json;

// A string of the result, from input (scenario and job names, file paths), safe to print on a terminal.
std::string text(const json& value) { return printable(value.get<std::string>()); }

std::string ms(double seconds) { return format_number(seconds * 1e3, 4); }

/// One row: a label and a cell per variant.
void add_row(TextTable& table, const std::string& label, const std::vector<Variant>& variants,
             const std::function<std::string(const json&)>& cell) {
  std::vector<std::string> cells = {label};
  for (const Variant& variant : variants) cells.push_back(cell(variant.result));
  table.add_row(std::move(cells));
}

}  // namespace

void print_result_table(std::ostream& out, const std::vector<Variant>& variants) {
  const json& first = variants.front().result;
  out << "scenario " << text(first["scenario"]) << ", fidelity " << text(first["fidelity"]) << "\n";
  std::vector<std::string> headers = {""};
  for (const Variant& variant : variants) headers.push_back(variant.label);
  // Jobs are matched by name: a variant may add tenants, drop them or rename them ("-" where a variant has none).
  std::vector<std::string> names;
  for (const Variant& variant : variants) {
    for (const json& job : variant.result["jobs"]) {
      const std::string name = job["name"].get<std::string>();
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  const auto job_named = [](const json& result, const std::string& name) -> const json* {
    for (const json& job : result["jobs"]) {
      if (job["name"] == name) return &job;
    }
    return nullptr;
  };
  // Time to train is shown where checkpoints or vSphere events make it differ from iterations x step time.
  bool operations = false;
  for (const Variant& variant : variants) {
    operations |= variant.result.contains("events") && !variant.result["events"].empty();
    for (const json& job : variant.result["jobs"]) {
      operations |= job.contains("operations") && job["operations"]["checkpoints"].get<int>() > 0;
    }
  }
  for (const std::string& name : names) {
    const json* described = nullptr;
    for (const Variant& variant : variants) {
      if (described == nullptr) described = job_named(variant.result, name);
    }
    const json& job = *described;
    const bool parallel = job.contains("parallelism") && !job["parallelism"].is_null();
    out << "\njob " << text(job["name"]) << ": " << text(job["workload"]) << ", " << text(job["precision"]) << ", "
        << job["ranks"].get<int>() << " ranks x "
        << (parallel ? "global batch " + std::to_string(job["parallelism"]["global_batch"].get<int>())
                     : "batch " + std::to_string(job["batch_per_gpu"].get<int>()))
        << " on " << text(job["device"]) << "\n";
    TextTable table(headers);
    const auto row = [&](const std::string& label, const std::function<std::string(const json&)>& cell) {
      add_row(table, label, variants, [&](const json& result) {
        const json* found = job_named(result, name);
        return found == nullptr ? std::string("-") : cell(*found);
      });
    };
    row("step time mean (ms)", [](const json& j) { return ms(j["step_time_s"]["mean"]); });
    row("step time p50 / p99 (ms)",
        [](const json& j) { return ms(j["step_time_s"]["p50"]) + " / " + ms(j["step_time_s"]["p99"]); });
    row("samples/s", [](const json& j) { return format_number(j["samples_per_s"], 5); });
    row("scaling efficiency", [](const json& j) {
      // With its sampling error where the steps' spread leaves one (the mean of a few noisy steps).
      const double error = j.value("scaling_efficiency_standard_error", 0.0);
      return format_percent(j["scaling_efficiency"]) + (error >= 5e-5 ? " +/- " + format_percent(error) : "");
    });
    row("  reference samples/s (GPUs)", [](const json& j) {
      const json& reference = j["scaling_reference"];
      return format_number(reference["samples_per_s"], 5) + " (" + std::to_string(reference["gpus"].get<int>()) +
             ")";
    });
    row("speedup over one GPU", [](const json& j) {
      return j.contains("speedup_over_one_gpu") ? format_number(j["speedup_over_one_gpu"], 4) + "x" : std::string("-");
    });
    const bool seeded = std::any_of(variants.begin(), variants.end(), [&](const Variant& variant) {
      const json* seeded_job = job_named(variant.result, name);
      return seeded_job != nullptr && seeded_job->contains("across_seeds");
    });
    if (seeded) {
      // mean [min, max] over the runs, p5-p95 from 20 runs.
      const auto spread = [](const json& j, const char* figure, const std::function<std::string(double)>& format) {
        if (!j.contains("across_seeds")) return std::string("-");
        const json& s = j["across_seeds"][figure];
        std::string cell = format(s["mean"].get<double>()) + " [" + format(s["min"].get<double>()) + ", " +
                           format(s["max"].get<double>()) + "]";
        if (s.contains("p5")) cell += " p5-p95 " + format(s["p5"].get<double>()) + "-" + format(s["p95"].get<double>());
        return cell;
      };
      row("across seeds: runs", [](const json& j) {
        return j.contains("across_seeds") ? std::to_string(j["across_seeds"]["runs"].get<int>()) : std::string("-");
      });
      row("  step time (ms) mean [min, max]",
          [&](const json& j) { return spread(j, "step_time_s", [](double v) { return ms(v); }); });
      row("  samples/s mean [min, max]",
          [&](const json& j) { return spread(j, "samples_per_s", [](double v) { return format_number(v, 5); }); });
      row("  scaling efficiency mean [min, max]", [&](const json& j) {
        return spread(j, "scaling_efficiency", [](double v) { return format_percent(v); });
      });
    }
    row("compute per step (ms)", [](const json& j) { return ms(j["breakdown_s"]["compute"]); });
    row("  of which interference (ms)", [](const json& j) { return ms(j["breakdown_s"]["of_which_interference"]); });
    row("waiting for the GPU scheduler (ms)", [](const json& j) { return ms(j["breakdown_s"]["scheduler_wait"]); });
    row("waiting for data (ms)", [](const json& j) { return ms(j["breakdown_s"]["data_wait"]); });
    row("waiting for the slowest rank (ms)", [](const json& j) { return ms(j["breakdown_s"]["straggler_wait"]); });
    row("exposed communication (ms)", [](const json& j) { return ms(j["breakdown_s"]["exposed_communication"]); });
    row("allreduce MiB / calls per step", [](const json& j) {
      return format_number(j["allreduce"]["bytes_per_step"].get<double>() / 1048576.0, 4) + " / " +
             format_number(j["allreduce"]["calls_per_step"], 3);
    });
    row("  NCCL algorithm/protocol per step", [](const json& j) {
      const json& allreduce = j["allreduce"];
      std::string cell;
      for (const auto& [choice, calls] : allreduce["nccl_choices_per_step"].items()) {
        cell += (cell.empty() ? "" : ", ") + choice + " " + format_number(calls.get<double>(), 3);
      }
      if (cell.empty()) cell = "-";
      const json& forced = allreduce.value("nccl_forced", json::object());
      std::string what;
      for (const char* key : {"algorithm", "protocol"}) {
        if (forced.contains(key) && forced[key].is_string()) {
          what += (what.empty() ? "" : ", ") + std::string(key) + " " + forced[key].get<std::string>();
        }
      }
      if (forced.contains("channels") && forced["channels"].is_number()) {
        what += (what.empty() ? "" : ", ") + std::string("channels ") + std::to_string(forced["channels"].get<int>());
      }
      if (!what.empty()) cell += " (forced: " + what + ")";
      return forced.value("collnet", false) ? cell + " (CollNet enabled)" : cell;
    });
    row("memory per GPU (GiB of capacity)", [](const json& j) {
      return format_number(j["memory_per_gpu"]["total_gib"], 3) + " of " +
             format_number(j["memory_per_gpu"]["device_capacity_gib"], 3);
    });
    if (parallel) {
      row("  weights / gradients / optimizer / activations (GiB)", [](const json& j) {
        const json& m = j["memory_per_gpu"];
        return format_number(m["weights_gib"], 3) + " / " + format_number(m["gradients_gib"], 3) + " / " +
               format_number(m["optimizer_gib"], 3) + " / " + format_number(m["activations_gib"], 3);
      });
      row("parallelism", [](const json& j) { return text(j["parallelism"]["strategy"]); });
      row("model / hardware TFLOP/s per GPU", [](const json& j) {
        return format_number(j["parallelism"]["model_tflops_per_gpu"], 4) + " / " +
               format_number(j["parallelism"]["hardware_tflops_per_gpu"], 4);
      });
      row("MFU / HFU (of the dense peak)", [](const json& j) {
        return format_percent(j["parallelism"]["model_flops_utilization"]) + " / " +
               format_percent(j["parallelism"]["hardware_flops_utilization"]);
      });
      row("pipeline bubble, closed form", [](const json& j) {
        return format_percent(j["parallelism"]["bubble_fraction_closed_form"]);
      });
      row("tensor-parallel comm. (ms)",
          [](const json& j) { return ms(j["parallelism"]["communication_s"]["tensor_parallel"]); });
      row("waiting for other stages (ms)",
          [](const json& j) { return ms(j["parallelism"]["communication_s"]["pipeline_wait"]); });
      row("waiting for data-parallel comm. (ms)",
          [](const json& j) { return ms(j["parallelism"]["communication_s"]["data_parallel_wait"]); });
    }
    if (operations) {
      row("time to train (s)", [](const json& j) { return format_number(j["operations"]["time_to_train_s"], 5); });
      row("  without the events (s)",
          [](const json& j) { return format_number(j["operations"]["time_to_train_without_events_s"], 5); });
      row("checkpoints (s each) / lost iterations", [](const json& j) {
        const json& o = j["operations"];
        return std::to_string(o["checkpoints"].get<int>()) + " (" + format_number(o["checkpoint_write_s"], 3) +
               ") / " + std::to_string(o["lost_iterations"].get<int>());
      });
    }
    table.print(out);
    // What scaling efficiency compared with, under the table (a sentence would widen every column): once when the
    // variants share it, else per variant.
    std::vector<std::pair<std::string, std::string>> references;
    for (const Variant& variant : variants) {
      const json* compared = job_named(variant.result, name);
      if (compared == nullptr) continue;
      references.emplace_back(variant.label, text((*compared)["scaling_reference"]["description"]));
    }
    const bool shared = std::all_of(references.begin(), references.end(),
                                    [&](const auto& r) { return r.second == references.front().second; });
    for (const auto& [label, reference] : references) {
      out << "scaling efficiency against" << (shared ? "" : " (" + printable(label) + ")") << ": " << reference
          << "\n";
      if (shared) break;
    }
  }
  std::set<std::string> classes;
  for (const Variant& variant : variants) {
    for (const json& link : variant.result["link_classes"]) classes.insert(link["class"].get<std::string>());
  }
  if (!classes.empty()) {
    out << "\nlink classes: busiest link's utilisation, GB/s carried in all\n";
    TextTable table(headers);
    for (const std::string& name : classes) {
      add_row(table, name, variants, [&](const json& r) -> std::string {
        for (const json& link : r["link_classes"]) {
          if (link["class"] == name) {
            return format_percent(link["busiest_utilisation"]) + ", " +
                   format_number(link["bytes_per_s"].get<double>() / 1e9, 4);
          }
        }
        return "-";
      });
    }
    table.print(out);
  }
  // Time-sliced GPUs by index and tenants by name, over every variant: a variant may have more or fewer of either.
  std::size_t gpu_rows = 0;
  for (const Variant& variant : variants) gpu_rows = std::max(gpu_rows, variant.result["time_sliced_gpus"].size());
  if (gpu_rows > 0) {
    out << "\ntime-sliced GPUs: busy fraction, time lost to context switches (ms)\n";
    TextTable table(headers);
    for (std::size_t g = 0; g < gpu_rows; ++g) {
      const json* described = nullptr;
      for (const Variant& variant : variants) {
        if (described == nullptr && g < variant.result["time_sliced_gpus"].size()) {
          described = &variant.result["time_sliced_gpus"][g];
        }
      }
      const json& gpu = *described;
      std::string label = "GPU " + std::to_string(gpu["gpu"].get<int>()) + " (";
      for (std::size_t v = 0; v < gpu["vgpus"].size(); ++v) label += (v ? ", " : "") + text(gpu["vgpus"][v]);
      add_row(table, label + ")", variants, [&](const json& r) -> std::string {
        if (g >= r["time_sliced_gpus"].size()) return "-";
        const json& other = r["time_sliced_gpus"][g];
        return format_percent(other["busy_fraction"]) + ", " + ms(other["switch_time_s"]);
      });
    }
    table.print(out);
  }
  std::vector<std::string> tenants;
  for (const Variant& variant : variants) {
    if (!variant.result.contains("tenants")) continue;
    for (const json& tenant : variant.result["tenants"]) {
      const std::string name = tenant["name"].get<std::string>();
      if (std::find(tenants.begin(), tenants.end(), name) == tenants.end()) tenants.push_back(name);
    }
  }
  if (!tenants.empty()) {
    out << "\ntenants: samples/s, slowdown against running alone; Jain's fairness over alone/shared throughput\n";
    TextTable table(headers);
    for (const std::string& name : tenants) {
      add_row(table, printable(name), variants, [&](const json& r) -> std::string {
        if (!r.contains("tenants")) return "-";
        for (const json& tenant : r["tenants"]) {
          if (tenant["name"] == name) {
            return format_number(tenant["samples_per_s"], 5) + ", " + format_number(tenant["slowdown"], 4) + "x";
          }
        }
        return "-";
      });
    }
    add_row(table, "Jain's fairness", variants, [&](const json& r) -> std::string {
      return r.contains("fairness") ? format_number(r["fairness"]["jain"], 4) : "-";
    });
    table.print(out);
  }
  std::size_t event_rows = 0;
  for (const Variant& variant : variants) {
    if (variant.result.contains("events")) event_rows = std::max(event_rows, variant.result["events"].size());
  }
  if (event_rows > 0) {
    out << "\nevents: what each cost each job (s); a vMotion's stun and pre-copy, a failure's lost work and restart\n";
    TextTable table(headers);
    for (std::size_t e = 0; e < event_rows; ++e) {
      const json* described = nullptr;
      for (const Variant& variant : variants) {
        if (described == nullptr && e < variant.result["events"].size()) described = &variant.result["events"][e];
      }
      const std::string label = "events[" + std::to_string(e) + "] " + text((*described)["type"]) + " host " +
                                std::to_string((*described)["host"].get<int>());
      add_row(table, label, variants, [&](const json& r) -> std::string {
        if (!r.contains("events") || e >= r["events"].size()) return "-";
        const json& event = r["events"][e];
        if (!event["reached"].get<bool>()) return "not reached";
        std::string cell;
        for (const json& cost : event["jobs"]) {
          cell += (cell.empty() ? "" : "; ") + text(cost["job"]) + " " + format_number(cost["cost_s"], 4);
          if (cost.contains("stun_s")) {
            const std::string limit = cost["over_stun_limit"].get<bool>() ? " over limit" : "";
            cell += " (stun " + format_number(cost["stun_s"], 4) + limit + ", pre-copy " +
                    format_number(cost["precopy_s"], 3) + ")";
          } else {
            const int lost = cost["lost_iterations"].get<int>();
            cell += " (" + std::to_string(lost) + (lost == 1 ? " iteration lost)" : " iterations lost)");
          }
        }
        return cell;
      });
    }
    table.print(out);
  }
  std::set<std::string> draws;
  for (const Variant& variant : variants) {
    const json& result = variant.result;
    if (result.contains("seeds") && result["seeds"].contains("note") && result["seeds"]["runs"] == 1) {
      draws.insert(result["seeds"]["note"].get<std::string>());
    }
  }
  for (const std::string& note : draws) out << "\n" << printable(note) << "\n";
  if (!first["calibration"]["values"].empty()) {
    out << "\ncalibrated from " << text(first["calibration"]["profile"]) << ":\n";
    for (const json& value : first["calibration"]["values"]) out << "  - " << text(value) << "\n";
  }
  std::set<std::string> notes;
  for (const Variant& variant : variants) {
    for (const json& note : variant.result["uncalibrated_defaults"]) notes.insert(note.get<std::string>());
  }
  if (!notes.empty()) {
    out << "\nuncalibrated defaults used (no measurement behind them):\n";
    for (const std::string& note : notes) out << "  - " << printable(note) << "\n";
  }
}

}  // namespace vtsim::tools
