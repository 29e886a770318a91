#include "calibrate/horovod_timeline_importer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/core/error.hpp"
#include "models/core/json_reader.hpp"
#include "models/core/number_text.hpp"

namespace vtsim::calibrate {
namespace {

/// Bytes per element of Horovod's data types (horovod/common/message.h DataType), as DataType_Name prints them.
const std::vector<std::pair<std::string, int>>& dtype_bytes() {
  static const std::vector<std::pair<std::string, int>> sizes = {
      {"HOROVOD_UINT8", 1},   {"HOROVOD_INT8", 1},    {"HOROVOD_UINT16", 2},  {"HOROVOD_INT16", 2},
      {"HOROVOD_INT32", 4},   {"HOROVOD_INT64", 8},   {"HOROVOD_FLOAT16", 2}, {"HOROVOD_FLOAT32", 4},
      {"HOROVOD_FLOAT64", 8}, {"HOROVOD_BOOL", 1},    {"HOROVOD_BFLOAT16", 2}};
  return sizes;
}

/// The elements of a TensorShape::DebugString, "[1024, 1024]" ("[]" is a scalar); nullopt for another text.
std::optional<double> shape_elements(const std::string& shape) {
  if (shape.size() < 2 || shape.front() != '[' || shape.back() != ']') return std::nullopt;
  double elements = 1;
  std::size_t at = 1;
  while (at < shape.size() - 1) {
    while (at < shape.size() - 1 && (shape[at] == ',' || shape[at] == ' ')) ++at;
    std::size_t end = at;
    while (end < shape.size() - 1 && std::isdigit(static_cast<unsigned char>(shape[end]))) ++end;
    if (end == at) {
      if (at == shape.size() - 1) break;
      return std::nullopt;
    }
    if (end - at > 15) return std::nullopt;  // beyond any tensor
    elements *= std::stod(shape.substr(at, end - at));
    at = end;
  }
  return elements;
}

/// One open "B" of a tensor.
struct Open {
  std::string name;
  double ts_us = 0;
};

/// A tensor's state while its events are read.
struct TensorEvents {
  std::vector<Open> open;
  std::optional<double> last_ready_us;  // in its negotiation: the last rank's report
  std::optional<double> first_activity_us;  // in its operation: its first activity's start
};

/// One operation on one tensor: when its collective started and its bytes.
struct Operation {
  double start_us = 0;
  double bytes = 0;
};

}  // namespace

HorovodTimelineSeries import_horovod_timeline(std::string_view text, const std::string& file) {
  const nlohmann::json document = parse_json_text(text, file);
  if (!document.is_array()) {
    throw InputError(file + ": expected a JSON array of events: not a Horovod timeline (HOROVOD_TIMELINE)");
  }
  HorovodTimelineSeries series;
  series.provenance.tool = "Horovod timeline (HOROVOD_TIMELINE)";
  std::map<std::int64_t, TensorEvents> tensors;
  std::vector<double> cycle_starts_us;
  std::vector<Operation> operations;
  std::set<int> reporting_ranks;
  for (std::size_t i = 0; i < document.size(); ++i) {
    const JsonValue value(document[i], file, "[" + std::to_string(i) + "]");
    JsonObject event = value.as_object();
    const std::string phase = event.require("ph").as_string();
    if (phase == "M") continue;  // process names and sort indices
    const std::optional<JsonValue> name = event.get("name");
    const double ts = event.require("ts").as_number(0);
    if (phase == "i") {
      if (name && name->as_string() == "CYCLE_START") cycle_starts_us.push_back(ts);
      continue;
    }
    if (phase != "B" && phase != "E" && phase != "X") continue;
    const std::int64_t pid = event.require("pid").as_int(0);
    TensorEvents& tensor = tensors[pid];
    const auto fail = [&](const std::string& message) {
      throw InputError(file + ": " + value.path() + " (pid " + std::to_string(pid) + "): " + message);
    };
    if (phase == "B") {
      if (!name) fail("a 'B' event without a name");
      const std::string opened = name->as_string();
      // The first activity inside an operation (not a negotiation) is when its response was dispatched.
      if (tensor.open.size() == 1 && !tensor.open.front().name.starts_with("NEGOTIATE_") &&
          !tensor.first_activity_us) {
        tensor.first_activity_us = ts;
      }
      if (opened.starts_with("NEGOTIATE_")) tensor.last_ready_us.reset();
      tensor.open.push_back({opened, ts});
    } else if (phase == "X") {
      if (tensor.open.empty() || !tensor.open.back().name.starts_with("NEGOTIATE_")) {
        fail("a rank's ready report outside a negotiation");
      }
      const std::string rank = name ? name->as_string() : "";
      if (rank.empty() || rank.size() > 7 ||
          !std::all_of(rank.begin(), rank.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
        fail("expected a rank number as the ready report's name, got '" + rank.substr(0, 40) + "'");
      }
      reporting_ranks.insert(std::stoi(rank));
      tensor.last_ready_us = std::max(tensor.last_ready_us.value_or(ts), ts);
    } else {
      if (tensor.open.empty()) fail("an 'E' without its 'B'");
      const Open closed = tensor.open.back();
      tensor.open.pop_back();
      if (closed.name.starts_with("NEGOTIATE_")) {
        if (tensor.last_ready_us && *tensor.last_ready_us > ts) {
          fail("a rank's ready report at " + format_number(*tensor.last_ready_us, "%.15g") +
               " us, after its negotiation ended at " + format_number(ts, "%.15g") +
               " us: the coordinator decides once every rank has reported");
        }
        if (tensor.last_ready_us) series.negotiation_us.push_back(ts - *tensor.last_ready_us);
        tensor.last_ready_us.reset();
      } else if (tensor.open.empty()) {
        double bytes = 0;
        if (const std::optional<JsonValue> args = event.get("args")) {
          JsonObject fields = args->as_object();
          const std::optional<JsonValue> dtype = fields.get("dtype");
          const std::optional<JsonValue> shape = fields.get("shape");
          if (dtype && shape) {
            const std::optional<double> elements = shape_elements(shape->as_string());
            if (!elements) shape->fail("expected a shape such as [1024, 1024]");
            bytes = *elements * dtype->as_enum<int>(dtype_bytes());
          }
        }
        operations.push_back({tensor.first_activity_us.value_or(closed.ts_us), bytes});
        tensor.first_activity_us.reset();
      }
    }
  }
  if (series.negotiation_us.empty()) {
    throw InputError(file + ": no negotiation with ranks' ready reports: nothing measures Horovod's negotiation "
                     "(with the response cache, tensors negotiated once are not again: keep the first iterations)");
  }
  // Ranks are numbered 0 to N-1 and every one reports: counted by the highest, checked for the ones below it.
  const int ranks = reporting_ranks.empty() ? 0 : *reporting_ranks.rbegin() + 1;
  for (int rank = 0; rank < ranks; ++rank) {
    if (!reporting_ranks.contains(rank)) {
      throw InputError(file + ": rank " + std::to_string(rank) + " never reported a tensor ready, though rank " +
                       std::to_string(ranks - 1) + " did: a timeline's ranks are numbered from 0 and every one "
                       "negotiates");
    }
  }
  if (ranks < 2) {
    throw InputError(file + ": only rank 0 reported tensors ready: a one-rank run negotiates with no one");
  }
  series.ranks = ranks;
  std::sort(cycle_starts_us.begin(), cycle_starts_us.end());
  for (std::size_t k = 1; k < cycle_starts_us.size(); ++k) {
    const double interval_ms = (cycle_starts_us[k] - cycle_starts_us[k - 1]) / 1000;
    if (interval_ms > 0) series.cycle_ms.push_back(interval_ms);
  }
  std::stable_sort(operations.begin(), operations.end(),
                   [](const Operation& a, const Operation& b) { return a.start_us < b.start_us; });
  for (std::size_t k = 0; k < operations.size();) {
    std::size_t end = k;
    double bytes = 0;
    while (end < operations.size() && operations[end].start_us - operations[k].start_us <= kFusionWindowUs) {
      bytes += operations[end].bytes;
      ++end;
    }
    series.response_tensors.push_back(static_cast<int>(end - k));
    series.response_bytes.push_back(bytes);
    k = end;
  }
  return series;
}

}  // namespace vtsim::calibrate
