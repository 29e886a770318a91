#include "calibrate/perftest_importer.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "calibrate/log_text.hpp"
#include "calibrate/rdma_probe.hpp"
#include "models/core/units.hpp"

namespace vtsim::calibrate {
namespace {

constexpr double kBytesPerPerftestMB = 1048576.0;  // perftest_parameters.c: format_factor 0x100000 for "MB/sec"
constexpr double kBytesPerPerftestGb = 125000000.0;  // and 125000000 (1e9 bit) for "Gb/sec"

// Column names of the header: tokens joined until one ends a name ("BW peak[MB/sec]", "99% percentile[usec]").
std::vector<std::string> column_names(std::string_view line) {
  std::vector<std::string> names;
  std::string current;
  for (std::string_view token : split_tokens(line)) {
    current += current.empty() ? std::string(token) : " " + std::string(token);
    if (token.front() == '#' || token.find(']') != std::string_view::npos) {
      names.push_back(current);
      current.clear();
    }
  }
  if (!current.empty()) names.push_back(current);
  return names;
}

std::optional<std::size_t> column(const std::vector<std::string>& names, std::string_view prefix) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].rfind(prefix, 0) == 0) return i;
  }
  return std::nullopt;
}

// The value of the first "KEY : VALUE" in the log whose key starts the line or follows a blank ("Device : mlx5_0").
std::string setting(const LogText& log, std::string_view key) {
  for (std::size_t i = 0; i < log.size(); ++i) {
    const std::string_view line = log.line(i);
    for (std::size_t at = line.find(key); at != std::string_view::npos; at = line.find(key, at + 1)) {
      if (at > 0 && !std::isspace(static_cast<unsigned char>(line[at - 1]))) continue;
      LineCursor c(line.substr(at + key.size()));
      c.skip_spaces();
      if (!c.take(":")) continue;
      c.skip_spaces();
      if (const std::string_view value = c.take_token(); !value.empty()) return std::string(value);
    }
  }
  return "";
}

// What a perftest title says: "RDMA_Write BW Test", "Send Latency Test", "RDMA_Read Bidirectional BW Test" ...
struct PerftestTitle {
  std::string_view verb;  // RDMA_Write, RDMA_Read, Send or Atomic
  bool bidirectional = false;
  bool bandwidth = false;  // BW; else Latency
};

// The first title in `line`: a verb, blanks, optionally "Bidirectional" and blanks, BW or Latency, blanks, "Test".
std::optional<PerftestTitle> perftest_title(std::string_view line) {
  static constexpr std::array<std::string_view, 4> kVerbs = {"RDMA_Write", "RDMA_Read", "Send", "Atomic"};
  for (std::size_t at = 0; at < line.size(); ++at) {
    for (std::string_view verb : kVerbs) {
      LineCursor c(line.substr(at));
      if (!c.take(verb) || c.skip_spaces() == 0) continue;
      PerftestTitle title{verb};
      LineCursor after = c;
      if (after.take("Bidirectional") && after.skip_spaces() > 0) {
        title.bidirectional = true;
        c = after;
      }
      title.bandwidth = c.take("BW");
      if ((title.bandwidth || c.take("Latency")) && c.skip_spaces() > 0 && c.take("Test")) return title;
    }
  }
  return std::nullopt;
}

std::string transport_from_log(const LogText& log, const std::string& device, const std::string& link_type) {
  const std::string transport = rdma_transport(device, link_type);
  if (transport.empty()) log.fail("cannot tell the transport (no 'Link type : Ethernet|IB' line): pass --transport");
  return transport;
}

}  // namespace

RdmaSeries import_perftest(std::string_view text, const std::string& file, const PerftestOptions& options) {
  const LogText log(file, text);
  RdmaSeries series;
  std::optional<std::size_t> title;
  std::optional<std::size_t> header;
  for (std::size_t i = 0; i < log.size(); ++i) {
    const std::string& line = log.line(i);
    const std::optional<PerftestTitle> found = title ? std::nullopt : perftest_title(line);
    if (found) {
      title = i;
      if (found->verb == "Atomic") log.fail(i, "atomic tests are not imported: use ib_write_* or ib_send_*");
      if (found->bidirectional) log.fail(i, "bidirectional runs are not imported: run without -b");
      series.op = found->verb == "RDMA_Write" ? "write" : found->verb == "RDMA_Read" ? "read" : "send";
      series.test = found->bandwidth ? "bandwidth" : "latency";
    }
    const std::vector<std::string_view> tokens = split_tokens(line);
    if (!header && !tokens.empty() && tokens[0] == "#bytes") header = i;
  }
  if (!title) log.fail("no perftest title line ('RDMA_Write BW Test', 'Send Latency Test', ...)");
  if (!header) log.fail("no perftest result table (no ' #bytes  #iterations ...' header line)");

  const std::vector<std::string> names = column_names(log.line(*header));
  std::optional<std::size_t> value_column;
  double scale = 1;  // value x scale = bytes/s (bandwidth) or us (latency)
  if (series.test == "bandwidth") {
    value_column = column(names, "BW average[");
    if (!value_column) log.fail(*header, "expected a 'BW average[MB/sec]' or 'BW average[Gb/sec]' column");
    const std::string& name = names[*value_column];
    if (name.find("[MB/sec]") != std::string::npos) {
      scale = kBytesPerPerftestMB;
    } else if (name.find("[Gb/sec]") != std::string::npos) {
      scale = kBytesPerPerftestGb;
    } else {
      log.fail(*header, "unknown bandwidth unit in '" + name + "': expected [MB/sec] or [Gb/sec]");
    }
  } else {
    value_column = column(names, "t_typical[usec]");
    if (!value_column) value_column = column(names, "t_avg[usec]");  // --duration runs print the average only
    if (!value_column) log.fail(*header, "expected a 't_typical[usec]' column");
  }
  if (names.front() != "#bytes") log.fail(*header, "expected '#bytes' first");

  for (std::size_t i = *header + 1; i < log.size(); ++i) {
    const std::vector<std::string_view> tokens = split_tokens(log.line(i));
    if (tokens.empty()) continue;
    if (tokens[0].find("---") == 0) break;  // the closing rule of the table
    if (!is_unsigned_integer(tokens[0])) {
      log.fail(i, "expected a result row ('#bytes' first), got '" + std::string(tokens[0]) + "'");
    }
    if (tokens.size() < names.size()) {
      log.fail(i, "expected " + std::to_string(names.size()) + " columns as the header says, got " +
                      std::to_string(tokens.size()));
    }
    RdmaPoint point;
    point.bytes = log.integer(i, tokens[0], "#bytes", 1);
    log.integer(i, tokens[1], "#iterations", 1);
    for (std::size_t c = 2; c < names.size(); ++c) log.number(i, tokens[c], names[c], 0);
    const std::string& name = names[*value_column];
    const double value = log.number(i, tokens[*value_column], name, 0);
    if (value <= 0) log.fail(i, name + ": expected a number > 0, got '" + std::string(tokens[*value_column]) + "'");
    if (series.test == "bandwidth") {
      point.bandwidth_gBps = value * scale / units::kBytesPerSecondPerGBps;
    } else {
      point.latency_us = value;
    }
    series.points.push_back(point);
  }
  if (series.points.empty()) log.fail(*header, "the perftest result table has no rows");

  const std::string device = setting(log, "Device");
  const std::string link_type = setting(log, "Link type");
  series.transport = options.transport.empty() ? transport_from_log(log, device, link_type) : options.transport;
  const std::string program = "ib_" + series.op + (series.test == "bandwidth" ? "_bw" : "_lat");
  series.provenance.tool = "perftest " + program;
  series.provenance.device = device;
  const std::string connection = setting(log, "Connection type");
  std::string notes = "link type " + (link_type.empty() ? std::string("unknown") : link_type);
  if (!connection.empty()) notes += ", connection " + connection;
  notes += series.test == "bandwidth" ? ", BW average" : (series.op == "read" ? ", t_typical (a whole read)"
                                                                              : ", t_typical (half a round trip)");
  series.provenance.notes = notes;
  return series;
}

}  // namespace vtsim::calibrate
