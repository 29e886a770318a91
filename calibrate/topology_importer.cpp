#include "calibrate/topology_importer.hpp"

#include <algorithm>
#include <map>
#include <regex>

#include "calibrate/log_text.hpp"

namespace vtsim::calibrate {
namespace {

bool ends_device_columns(std::string_view token) {
  // "CPU Affinity", "NUMA Affinity", "GPU NUMA ID": the first word of each is not a device name.
  return token == "CPU" || token == "NUMA" || token == "GPU";
}

}  // namespace

TopologySection import_topology(std::string_view text, const std::string& file) {
  const LogText log(file, text);
  static const std::regex kGpu(R"(GPU\d+)");
  static const std::regex kNicLegend(R"(^\s*(NIC\d+)\s*:\s*(\S+)\s*$)");

  // The header: the first line whose first cell is a GPU and whose second is not "X" (that would be a row).
  std::optional<std::size_t> header;
  std::vector<std::string> names;
  std::size_t affinity_columns = 0;
  for (std::size_t i = 0; i < log.size() && !header; ++i) {
    const std::string line = strip_terminal_escapes(log.line(i));
    const std::vector<std::string_view> tokens = split_tokens(line);
    if (tokens.size() < 2 || !std::regex_match(tokens[0].begin(), tokens[0].end(), kGpu) || tokens[1] == "X") continue;
    header = i;
    std::size_t t = 0;
    for (; t < tokens.size() && !ends_device_columns(tokens[t]); ++t) names.emplace_back(tokens[t]);
    for (; t < tokens.size(); ++t) affinity_columns += tokens[t] == "Affinity" || tokens[t] == "ID";
  }
  if (!header) log.fail("no `nvidia-smi topo -m` matrix (no header line starting with GPU0)");

  TopologySection topology;
  topology.provenance.tool = "nvidia-smi topo -m";
  std::map<std::string, std::vector<std::string>> rows;  // device -> its cells
  std::map<std::string, std::size_t> row_line;
  std::size_t i = *header + 1;
  for (; i < log.size() && rows.size() < names.size(); ++i) {
    const std::string line = strip_terminal_escapes(log.line(i));
    const std::vector<std::string_view> tokens = split_tokens(line);
    if (tokens.empty()) break;
    const std::string name(tokens[0]);
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      log.fail(i, "expected a row of one of the header's devices, got '" + name + "'");
    }
    if (rows.count(name)) log.fail(i, "second row for " + name);
    if (tokens.size() < names.size() + 1) {
      log.fail(i, name + ": expected " + std::to_string(names.size()) + " connections, got " +
                      std::to_string(tokens.size() - 1));
    }
    std::vector<std::string> cells;
    for (std::size_t c = 1; c <= names.size(); ++c) {
      const std::string cell(tokens[c]);
      if (!is_topology_connection(cell)) {
        log.fail(i, name + " to " + names[c - 1] + ": unknown connection '" + cell +
                        "'; expected X, NV#, PIX, PXB, PHB, NODE or SYS");
      }
      if ((cell == "X") != (names[c - 1] == name)) {
        log.fail(i, name + " to " + names[c - 1] + ": expected " + (cell == "X" ? "a connection" : "X") +
                        (cell == "X" ? " between two devices" : " on the diagonal") + ", got '" + cell + "'");
      }
      cells.push_back(cell);
    }
    TopologyDevice device;
    device.name = name;
    // Affinity cells follow; NIC rows leave them empty. "GPU NUMA ID" comes last and is not kept.
    if (affinity_columns >= 1 && tokens.size() > names.size() + 1) device.cpu_affinity = tokens[names.size() + 1];
    if (affinity_columns >= 2 && tokens.size() > names.size() + 2) device.numa_affinity = tokens[names.size() + 2];
    topology.devices.push_back(device);
    rows[name] = std::move(cells);
    row_line[name] = i;
  }
  if (rows.size() < names.size()) {
    for (const std::string& name : names) {
      if (!rows.count(name)) log.fail(i == 0 ? 0 : i - 1, "the matrix has no row for " + name);
    }
  }
  // Devices in header order, then every unordered pair once; the matrix must be symmetric.
  std::sort(topology.devices.begin(), topology.devices.end(), [&](const auto& a, const auto& b) {
    return std::find(names.begin(), names.end(), a.name) < std::find(names.begin(), names.end(), b.name);
  });
  for (std::size_t a = 0; a < names.size(); ++a) {
    for (std::size_t b = a + 1; b < names.size(); ++b) {
      const std::string& forward = rows[names[a]][b];
      const std::string& backward = rows[names[b]][a];
      if (forward != backward) {
        log.fail(row_line[names[b]], names[b] + " to " + names[a] + " is '" + backward + "' but " + names[a] +
                                         " to " + names[b] + " is '" + forward + "'");
      }
      topology.links.push_back({names[a], names[b], forward});
    }
  }
  for (; i < log.size(); ++i) {
    std::smatch match;
    const std::string line = strip_terminal_escapes(log.line(i));
    if (!std::regex_match(line, match, kNicLegend)) continue;
    for (TopologyDevice& device : topology.devices) {
      if (device.name == match[1].str()) device.nic_name = match[2].str();
    }
  }
  return topology;
}

}  // namespace vtsim::calibrate
