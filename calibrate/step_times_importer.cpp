#include "calibrate/step_times_importer.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>

#include <nlohmann/json.hpp>

#include "calibrate/log_text.hpp"

namespace vtsim::calibrate {
namespace {

/// A field of a log: its name, and whether it is a time (seconds) or a throughput (samples/s).
struct Field {
  std::string_view name;
  bool throughput;
};

/// In order of preference: whole-step measures first, compute-only ones after.
constexpr std::array<Field, 11> kFields = {{{"iteration_time", false},
                                            {"step_time", false},
                                            {"train.iteration_time", false},
                                            {"train.step_time", false},
                                            {"train.total_time", false},
                                            {"train.total_ips", true},
                                            {"throughput_train", true},
                                            {"ips", true},
                                            {"train.compute_time", false},
                                            {"train.compute_ips", true},
                                            {"time", false}}};

bool is_time_field(std::string_view name) {
  for (const Field& field : kFields) {
    if (field.name == name) return !field.throughput;
  }
  return true;  // a plain column of numbers
}

/// The first known field of `record`, or "".
std::string known_field(const nlohmann::json& record) {
  for (const Field& field : kFields) {
    if (record.contains(field.name)) return std::string(field.name);
  }
  return "";
}

std::string trim(std::string_view text) {
  const auto begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return "";
  return std::string(text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1));
}

/// Adds record[field] of line `index` as a time: seconds, or 1 / samples per second.
void add_value(const LogText& log, std::size_t index, const nlohmann::json& record, const std::string& field,
               std::vector<double>& times) {
  const nlohmann::json& value = record.at(field);
  if (!value.is_number()) log.fail(index, "'" + field + "' is not a number");
  const double number = value.get<double>();
  if (!(number > 0) || !std::isfinite(number)) log.fail(index, "'" + field + "' must be a positive number");
  times.push_back(is_time_field(field) ? number : 1.0 / number);
}

void read_json_lines(const LogText& log, bool dllogger, StepTimeSeries& series) {
  for (std::size_t i = 0; i < log.size(); ++i) {
    std::string text = trim(log.line(i));
    if (text.empty()) continue;
    if (dllogger) {
      if (text.rfind("DLLL ", 0) != 0) continue;  // other output between the records
      text = text.substr(5);
    }
    nlohmann::json record;
    try {
      record = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
      log.fail(i, "not a JSON object");
    }
    if (!record.is_object()) log.fail(i, "not a JSON object");
    if (dllogger) {
      // Per-iteration records have a non-empty "step" list; PARAMETER and summary records do not.
      const auto step = record.find("step");
      if (step == record.end() || !step->is_array() || step->empty()) continue;
      const auto data = record.find("data");
      if (data == record.end() || !data->is_object()) continue;
      record = *data;
    }
    const std::string field = series.field.empty() ? known_field(record) : series.field;
    if (field.empty() || !record.contains(field)) continue;
    series.field = field;
    add_value(log, i, record, field, series.times_s);
  }
}

void read_csv(const LogText& log, StepTimeSeries& series) {
  std::optional<std::size_t> column;
  for (std::size_t i = 0; i < log.size(); ++i) {
    const std::string text = trim(log.line(i));
    if (text.empty() || text[0] == '#') continue;
    std::vector<std::string> cells;
    for (std::size_t start = 0;;) {
      const std::size_t comma = text.find(',', start);
      cells.push_back(trim(std::string_view(text).substr(start, comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (!column) {
      const bool numeric = !cells.front().empty() && (std::isdigit(static_cast<unsigned char>(cells.front()[0])) ||
                                                      cells.front()[0] == '.');
      if (numeric) {
        if (cells.size() != 1) log.fail(i, "several columns and no header naming a time or throughput column");
        column = 0;
        series.field = "column 1";
      } else {
        nlohmann::json names = nlohmann::json::object();
        for (std::size_t c = 0; c < cells.size(); ++c) names[cells[c]] = c;
        const std::string field = known_field(names);
        if (field.empty()) log.fail(i, "no time or throughput column (e.g. step_time, train.total_ips)");
        column = names[field].get<std::size_t>();
        series.field = field;
        continue;
      }
    }
    if (*column >= cells.size()) log.fail(i, "missing column '" + series.field + "'");
    const double value = log.number(i, cells[*column], series.field, 0.0);
    if (!(value > 0)) log.fail(i, "'" + series.field + "' must be positive");
    series.times_s.push_back(is_time_field(series.field) ? value : 1.0 / value);
  }
}

}  // namespace

StepTimeSeries import_step_times(std::string_view text, const std::string& file, int skip_first) {
  const LogText log(file, text);
  StepTimeSeries series;
  series.provenance.tool = "training step-time log";
  bool dllogger = false;
  bool json = false;
  for (std::size_t i = 0; i < log.size(); ++i) {
    const std::string line = trim(log.line(i));
    if (line.empty()) continue;
    dllogger = line.rfind("DLLL ", 0) == 0 || text.find("\nDLLL ") != std::string_view::npos;
    json = !dllogger && line[0] == '{';
    break;
  }
  series.log_format = dllogger ? "dllogger" : json ? "json-lines" : "csv";
  if (dllogger || json) {
    read_json_lines(log, dllogger, series);
  } else {
    read_csv(log, series);
  }
  if (series.times_s.empty()) log.fail("no step times found (fields looked for: step_time, train.total_ips, ...)");
  const auto skip = static_cast<std::size_t>(std::max(0, skip_first));
  if (series.times_s.size() < skip + 2) {
    log.fail("fewer than two step times after skipping the first " + std::to_string(skip));
  }
  series.times_s.erase(series.times_s.begin(), series.times_s.begin() + static_cast<std::ptrdiff_t>(skip));
  series.provenance.tool = "training step-time log (" + series.log_format + ", " + series.field + ")";
  return series;
}

}  // namespace vtsim::calibrate
