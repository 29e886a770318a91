#include "tools/result_table.hpp"

#include <set>

#include "models/control_characters.hpp"
#include "tools/text_table.hpp"

namespace vtsim::tools {
namespace {

using nlohmann::json;

// A string of the result, from input (scenario and job names, file paths), safe to print on a terminal.
std::string text(const json& value) { return printable(value.get<std::string>()); }

std::string ms(double seconds) { return format_number(seconds * 1e3, 4); }

std::string percent(double fraction) { return format_number(fraction * 100.0, 3) + "%"; }

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
  for (std::size_t j = 0; j < first["jobs"].size(); ++j) {
    const json& job = first["jobs"][j];
    out << "\njob " << text(job["name"]) << ": " << text(job["workload"]) << ", " << text(job["precision"]) << ", "
        << job["ranks"].get<int>() << " ranks x batch " << job["batch_per_gpu"].get<int>() << " on "
        << text(job["device"]) << "\n";
    TextTable table(headers);
    const auto at = [j](const json& result) -> const json& { return result["jobs"][j]; };
    add_row(table, "step time mean (ms)", variants, [&](const json& r) { return ms(at(r)["step_time_s"]["mean"]); });
    add_row(table, "step time p50 / p99 (ms)", variants, [&](const json& r) {
      return ms(at(r)["step_time_s"]["p50"]) + " / " + ms(at(r)["step_time_s"]["p99"]);
    });
    add_row(table, "samples/s", variants, [&](const json& r) { return format_number(at(r)["samples_per_s"], 5); });
    add_row(table, "1-GPU samples/s", variants,
            [&](const json& r) { return format_number(at(r)["single_gpu"]["samples_per_s"], 5); });
    add_row(table, "scaling efficiency", variants, [&](const json& r) { return percent(at(r)["scaling_efficiency"]); });
    add_row(table, "compute per step (ms)", variants, [&](const json& r) { return ms(at(r)["breakdown_s"]["compute"]); });
    add_row(table, "  of which interference (ms)", variants,
            [&](const json& r) { return ms(at(r)["breakdown_s"]["of_which_interference"]); });
    add_row(table, "waiting for the GPU scheduler (ms)", variants,
            [&](const json& r) { return ms(at(r)["breakdown_s"]["scheduler_wait"]); });
    add_row(table, "waiting for data (ms)", variants,
            [&](const json& r) { return ms(at(r)["breakdown_s"]["data_wait"]); });
    add_row(table, "exposed communication (ms)", variants,
            [&](const json& r) { return ms(at(r)["breakdown_s"]["exposed_communication"]); });
    add_row(table, "allreduce MiB / calls per step", variants, [&](const json& r) {
      return format_number(at(r)["allreduce"]["bytes_per_step"].get<double>() / 1048576.0, 4) + " / " +
             format_number(at(r)["allreduce"]["calls_per_step"], 3);
    });
    add_row(table, "memory per GPU (GiB of capacity)", variants, [&](const json& r) {
      return format_number(at(r)["memory_per_gpu"]["total_gib"], 3) + " of " +
             format_number(at(r)["memory_per_gpu"]["device_capacity_gib"], 3);
    });
    table.print(out);
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
            return percent(link["busiest_utilisation"]) + ", " +
                   format_number(link["bytes_per_s"].get<double>() / 1e9, 4);
          }
        }
        return "-";
      });
    }
    table.print(out);
  }
  if (!first["time_sliced_gpus"].empty()) {
    out << "\ntime-sliced GPUs: busy fraction, time lost to context switches (ms)\n";
    TextTable table(headers);
    for (std::size_t g = 0; g < first["time_sliced_gpus"].size(); ++g) {
      const json& gpu = first["time_sliced_gpus"][g];
      std::string label = "GPU " + std::to_string(gpu["gpu"].get<int>()) + " (";
      for (std::size_t v = 0; v < gpu["vgpus"].size(); ++v) label += (v ? ", " : "") + gpu["vgpus"][v].get<std::string>();
      add_row(table, label + ")", variants, [&](const json& r) -> std::string {
        if (g >= r["time_sliced_gpus"].size()) return "-";
        const json& other = r["time_sliced_gpus"][g];
        return percent(other["busy_fraction"]) + ", " + ms(other["switch_time_s"]);
      });
    }
    table.print(out);
  }
  if (first.contains("tenants")) {
    out << "\ntenants: samples/s, slowdown against running alone; Jain's fairness over alone/shared throughput\n";
    TextTable table(headers);
    for (std::size_t t = 0; t < first["tenants"].size(); ++t) {
      add_row(table, first["tenants"][t]["name"].get<std::string>(), variants, [&](const json& r) -> std::string {
        const json& tenant = r["tenants"][t];
        return format_number(tenant["samples_per_s"], 5) + ", " + format_number(tenant["slowdown"], 4) + "x";
      });
    }
    add_row(table, "Jain's fairness", variants,
            [&](const json& r) { return format_number(r["fairness"]["jain"], 4); });
    table.print(out);
  }
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
