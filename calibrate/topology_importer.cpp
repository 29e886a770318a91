#include "calibrate/topology_importer.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <utility>

#include "calibrate/log_text.hpp"

namespace vtsim::calibrate {
namespace {

// Matched by hand, not with std::regex: libstdc++'s matcher recurses once per character, and a token of a few
// thousand digits overflowed the stack (found by the topology fuzzer, 2026-12-04).

/// `text` is PREFIX followed by one or more digits ("GPU3", "NIC12").
bool is_numbered(std::string_view text, std::string_view prefix) {
  if (text.size() <= prefix.size() || text.substr(0, prefix.size()) != prefix) return false;
  return std::all_of(text.begin() + static_cast<std::ptrdiff_t>(prefix.size()), text.end(),
                     [](unsigned char c) { return std::isdigit(c) != 0; });
}

/// A NIC legend line, "  NIC0: mlx5_0": the NIC's name and its device, one token each around the colon.
std::optional<std::pair<std::string, std::string>> nic_legend(std::string_view line) {
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::vector<std::string_view> before = split_tokens(line.substr(0, colon));
  const std::vector<std::string_view> after = split_tokens(line.substr(colon + 1));
  if (before.size() != 1 || after.size() != 1 || !is_numbered(before[0], "NIC")) return std::nullopt;
  return std::pair{std::string(before[0]), std::string(after[0])};
}

bool ends_device_columns(std::string_view token) {
  // "CPU Affinity", "NUMA Affinity", "GPU NUMA ID": the first word of each is not a device name.
  return token == "CPU" || token == "NUMA" || token == "GPU";
}

}  // namespace

TopologySection import_topology(std::string_view text, const std::string& file) {
  const LogText log(file, text);

  // The header: the first line whose first cell is a GPU and whose second is not "X" (that would be a row).
  std::optional<std::size_t> header;
  std::vector<std::string> names;
  std::size_t affinity_columns = 0;
  for (std::size_t i = 0; i < log.size() && !header; ++i) {
    const std::string line = strip_terminal_escapes(log.line(i));
    const std::vector<std::string_view> tokens = split_tokens(line);
    if (tokens.size() < 2 || !is_numbered(tokens[0], "GPU") || tokens[1] == "X") continue;
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
    const std::optional<std::pair<std::string, std::string>> legend = nic_legend(strip_terminal_escapes(log.line(i)));
    if (!legend) continue;
    for (TopologyDevice& device : topology.devices) {
      if (device.name == legend->first) device.nic_name = legend->second;
    }
  }
  return topology;
}

}  // namespace vtsim::calibrate
