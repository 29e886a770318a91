#include "models/traces/kineto_trace.hpp"

#include <algorithm>
#include <cstdint>
#include <cassert>
#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "models/core/error.hpp"
#include "models/core/json_reader.hpp"
#include "models/core/units.hpp"

namespace vtsim {
namespace {

using nlohmann::json;

/// The autograd node that stores a parameter's gradient (torch/csrc/autograd/functions/accumulate_grad.h).
constexpr const char* kAccumulateGrad = "torch::autograd::AccumulateGrad";

/// PyTorch's collective names (the "Collective name" its record_param_comms gives NCCL kernels), including the
/// older and internal spellings of the same operations.
const std::vector<std::pair<std::string, TracedCollectiveKind>>& collective_names() {
  static const std::vector<std::pair<std::string, TracedCollectiveKind>> names = {
      {"allreduce", TracedCollectiveKind::allreduce},
      {"allreduce_coalesced", TracedCollectiveKind::allreduce},
      {"all_reduce", TracedCollectiveKind::allreduce},
      {"allgather", TracedCollectiveKind::allgather},
      {"all_gather", TracedCollectiveKind::allgather},
      {"_allgather_base", TracedCollectiveKind::allgather},
      {"allgather_into_tensor_coalesced", TracedCollectiveKind::allgather},
      {"reduce_scatter", TracedCollectiveKind::reduce_scatter},
      {"_reduce_scatter_base", TracedCollectiveKind::reduce_scatter},
      {"reduce_scatter_tensor_coalesced", TracedCollectiveKind::reduce_scatter},
      {"broadcast", TracedCollectiveKind::broadcast},
      {"reduce", TracedCollectiveKind::reduce},
      {"all_to_all", TracedCollectiveKind::all_to_all},
      {"all_to_allv", TracedCollectiveKind::all_to_all},
      {"alltoall_base", TracedCollectiveKind::all_to_all},
      {"send", TracedCollectiveKind::send},
      {"recv", TracedCollectiveKind::recv},
      {"gather", TracedCollectiveKind::gather},
      {"scatter", TracedCollectiveKind::scatter},
      {"barrier", TracedCollectiveKind::barrier},
  };
  return names;
}

/// Bytes per element of PyTorch's dtypes, by their c10::ScalarType names as traces print them.
const std::vector<std::pair<std::string, int>>& dtype_bytes() {
  static const std::vector<std::pair<std::string, int>> sizes = {
      {"Float", 4},        {"Half", 2},          {"BFloat16", 2},       {"Double", 8},  {"Int", 4},
      {"Long", 8},         {"Short", 2},         {"Char", 1},           {"Byte", 1},    {"Bool", 1},
      {"ComplexFloat", 8}, {"ComplexHalf", 4},   {"ComplexDouble", 16}, {"UInt16", 2},
      {"Float8_e4m3fn", 1}, {"Float8_e5m2", 1},
  };
  return sizes;
}

/// "traceEvents[i] (CAT 'NAME')", what messages about an event as a whole name (a long name cut).
std::string event_origin(const std::string& path, const std::string& cat, std::string name) {
  if (name.size() > 60) name = name.substr(0, 57) + "...";
  return path + " (" + cat + (name.empty() ? "" : " '" + name + "'") + ")";
}

/// `key` of `object` when it is a finite number.
std::optional<double> finite_number(const json& object, const char* key) {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_number()) return std::nullopt;
  const double value = found->get<double>();
  if (!std::isfinite(value)) return std::nullopt;
  return value;
}

/// `key` of `object` when it is an integer from `min` to `max`.
std::optional<std::int64_t> plain_integer(const json& object, const char* key, std::int64_t min, std::int64_t max) {
  const auto found = object.find(key);
  if (found == object.end() || !found->is_number_integer()) return std::nullopt;
  if (found->is_number_unsigned() && found->get<std::uint64_t>() > static_cast<std::uint64_t>(max)) return std::nullopt;
  const auto value = found->get<std::int64_t>();
  if (value < min || value > max) return std::nullopt;
  return value;
}

/// One event of traceEvents being read. Its fields are read with models/core/json_reader.hpp ("FILE:
/// traceEvents[12].dur: expected ..."); what is wrong with the event as a whole names its kind and name too.
class Event {
 public:
  Event(const json& event, std::size_t index, const std::string& file)
      : value_(event, file, "traceEvents[" + std::to_string(index) + "]") {}

  /// Its fields, read leniently: a trace's events carry many keys this reader has no use for.
  JsonObject fields() const { return value_.as_object(); }

  /// "traceEvents[i] (CAT 'NAME')", what messages about the event as a whole name.
  std::string origin() const {
    const json& event = value_.json();
    const std::string name =
        event.contains("name") && event["name"].is_string() ? event["name"].get<std::string>() : "";
    const std::string cat =
        event.contains("cat") && event["cat"].is_string() ? event["cat"].get<std::string>() : "event";
    return event_origin(value_.path(), cat, name);
  }

  /// Throws InputError "FILE: traceEvents[i] (CAT 'NAME'): message".
  [[noreturn]] void fail(const std::string& message) const {
    throw InputError(value_.file() + ": " + origin() + ": " + message);
  }

 private:
  JsonValue value_;
};

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool is_nccl_kernel(std::string_view name) {
  return starts_with(name, "ncclKernel") || starts_with(name, "ncclDevKernel");
}

TracedCollective read_collective(const Event& event, JsonObject& args) {
  const auto arg = [&](const char* key) {
    std::optional<JsonValue> value = args.get(key);
    if (!value) {
      event.fail(std::string("an NCCL kernel without '") + key +
                 "' in its args: PyTorch 2.1 and later record the collective on NCCL kernels");
    }
    return *value;
  };
  TracedCollective collective;
  collective.kind = arg("Collective name").as_enum<TracedCollectiveKind>(collective_names());
  const int element_bytes = arg("dtype").as_enum<int>(dtype_bytes());
  collective.bytes = static_cast<double>(arg("In msg nelems").as_int(0)) * element_bytes;
  collective.group_size = static_cast<int>(arg("Group size").as_int(1, 1 << 24));
  if (std::optional<JsonValue> group = args.get("Process Group Name")) collective.process_group = group->as_string();
  return collective;
}

/// N of "ProfilerStep#N", or nullopt for another name.
std::optional<int> step_number(std::string_view name, const Event& event) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (!starts_with(name, kPrefix)) return std::nullopt;
  const std::string_view digits = name.substr(kPrefix.size());
  int number = -1;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  if (error != std::errc() || end != digits.data() + digits.size() || number < 0) {
    event.fail("expected ProfilerStep#N with N a whole number");
  }
  return number;
}

/// GPU work read from its event, before its times are made relative and its step found.
struct PendingWork {
  TracedWork work;
  std::int64_t correlation = 0;
  double start_us = 0;
};

/// A gradient read from its event, before its time is made relative and its step found.
struct PendingGradient {
  TracedGradient gradient;
  double cpu_us = 0;
};

/// Bytes per element of the C++ type names "Input type" gives (caffe2::TypeMeta names), and PyTorch's own names.
const std::vector<std::pair<std::string, int>>& input_type_bytes() {
  static const std::vector<std::pair<std::string, int>> sizes = [] {
    std::vector<std::pair<std::string, int>> names = {{"float", 4}, {"double", 8}, {"c10::Half", 2},
                                                      {"c10::BFloat16", 2}};
    for (const auto& entry : dtype_bytes()) names.push_back(entry);
    return names;
  }();
  return sizes;
}

/// The bytes of the gradient an AccumulateGrad op stores: its first input's dims x its type's size; nullopt when the
/// op has no shapes.
std::optional<double> gradient_bytes(JsonObject& fields) {
  const std::optional<JsonValue> args_value = fields.get("args");
  if (!args_value) return std::nullopt;
  JsonObject args = args_value->as_object();
  const std::optional<JsonValue> dims = args.get("Input Dims");
  const std::optional<JsonValue> types = args.get("Input type");
  if (!dims || !types) return std::nullopt;
  double elements = 1;
  for (const JsonValue& extent : dims->as_array(1)[0].as_array()) elements *= static_cast<double>(extent.as_int(0));
  return elements * types->as_array(1)[0].as_enum<int>(input_type_bytes());
}

TracedWorkKind work_kind(std::string_view cat) {
  if (cat == "gpu_memcpy") return TracedWorkKind::memcpy;
  if (cat == "gpu_memset") return TracedWorkKind::memset;
  return TracedWorkKind::kernel;
}

}  // namespace

ProfiledRun read_kineto_trace(std::string_view text, const std::string& file) {
  ProfiledRun trace;
  trace.file = file;
  std::vector<std::pair<double, double>> step_spans_us;  // per step, start and end
  std::map<int, std::size_t> step_events;                // step number -> its event, to find duplicates
  // Correlation -> its runtime call's start and end.
  std::unordered_map<std::int64_t, std::pair<double, double>> launches_us;
  std::deque<PendingWork> pending;  // a deque: a million grow it without moving them
  std::vector<PendingGradient> gradients;
  std::optional<std::int64_t> device;
  // GPU work as its event gives it, before its launch is found.
  const auto add_work = [&](const std::string& name, TracedWorkKind kind, std::int64_t stream, double dur_us,
                            std::string origin, std::int64_t correlation, double ts_us) -> TracedWork& {
    PendingWork& work = pending.emplace_back();
    work.work.name = name;
    work.work.kind = kind;
    work.work.stream = static_cast<int>(stream);
    work.work.duration_s = dur_us * units::kSecondsPerUs;
    work.work.origin = std::move(origin);
    work.correlation = correlation;
    work.start_us = ts_us;
    return work.work;
  };
  // Each event as the parser reads it, none kept: a trace has millions (models/core/json_reader.hpp).
  const auto read_event = [&](std::size_t i, const json& raw) {
    if (!raw.is_object()) throw InputError(file + ": traceEvents[" + std::to_string(i) + "]: not a JSON object");
    const auto ph = raw.find("ph");
    const auto cat_field = raw.find("cat");
    if (ph == raw.end() || *ph != "X" || cat_field == raw.end() || !cat_field->is_string()) return;
    const std::string cat = cat_field->get<std::string>();
    const bool gpu = cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
    const bool launch = cat == "cuda_runtime" || cat == "cuda_driver";
    const bool accumulate = cat == "cpu_op" && raw.contains("name") && raw["name"] == kAccumulateGrad;
    if (!gpu && !launch && !accumulate && cat != "user_annotation") return;
    // The millions of launches and kernels, well formed, read directly; anything else (a missing or odd field, an
    // NCCL kernel, a second device) by the checked reading below, which accepts the same and names what is wrong.
    if (gpu || launch) {
      const auto name_field = raw.find("name");
      const auto args_field = raw.find("args");
      const std::optional<double> ts = finite_number(raw, "ts");
      const std::optional<double> dur = finite_number(raw, "dur");
      if (name_field != raw.end() && name_field->is_string() && !name_field->get_ref<const std::string&>().empty() &&
          ts && dur && *dur >= 0 && args_field != raw.end() && args_field->is_object()) {
        const std::optional<std::int64_t> correlation =
            plain_integer(*args_field, "correlation", 0, std::numeric_limits<std::int64_t>::max());
        if (correlation && launch) {
          launches_us.emplace(*correlation, std::pair{*ts, *ts + *dur});
          return;
        }
        const std::string& name = name_field->get_ref<const std::string&>();
        const std::optional<std::int64_t> on = plain_integer(*args_field, "device", 0, 1 << 16);
        const std::optional<std::int64_t> stream =
            plain_integer(*args_field, "stream", 0, std::numeric_limits<int>::max());
        const TracedWorkKind kind = work_kind(cat);
        if (correlation && on && stream && (!device || *device == *on) &&
            !(kind == TracedWorkKind::kernel && is_nccl_kernel(name))) {
          device = on;
          add_work(name, kind, *stream, *dur, event_origin("traceEvents[" + std::to_string(i) + "]", cat, name),
                   *correlation, *ts);
          return;
        }
      }
    }
    const Event event(raw, i, file);
    JsonObject fields = event.fields();
    const std::string name = fields.require("name").as_string();
    const double ts = fields.require("ts").as_number(-std::numeric_limits<double>::max());
    const double dur = fields.require("dur").as_number(0);
    if (accumulate) {
      gradients.push_back({{.cpu_s = 0, .bytes = gradient_bytes(fields), .step = 0, .origin = event.origin()}, ts});
      return;
    }
    if (cat == "user_annotation") {
      const std::optional<int> number = step_number(name, event);
      if (!number) return;
      if (const auto [at, added] = step_events.emplace(*number, i); !added) {
        event.fail("a second ProfilerStep#" + std::to_string(*number) + " (the first is traceEvents[" +
                   std::to_string(at->second) + "]): a trace holds one rank's steps");
      }
      trace.steps.push_back({*number, 0, 0});
      step_spans_us.emplace_back(ts, ts + dur);
      return;
    }
    JsonObject args = fields.require("args").as_object();
    const std::int64_t correlation = args.require("correlation").as_int(0);
    if (launch) {
      launches_us.emplace(correlation, std::pair{ts, ts + dur});
      return;
    }
    const std::int64_t on = args.require("device").as_int(0, 1 << 16);
    if (device && *device != on) {
      event.fail("GPU work on device " + std::to_string(on) + " after device " + std::to_string(*device) +
                 ": a trace holds one rank, on one GPU");
    }
    device = on;
    TracedWork& work = add_work(name, work_kind(cat), args.require("stream").as_int(0, std::numeric_limits<int>::max()),
                                dur, event.origin(), correlation, ts);
    if (work.kind == TracedWorkKind::kernel && is_nccl_kernel(name)) work.collective = read_collective(event, args);
  };
  const json document = parse_json_streaming(text, file, "traceEvents", read_event);
  if (!document.is_object()) throw InputError(file + ": expected a JSON object with 'traceEvents'");
  const auto events = document.find("traceEvents");
  if (events == document.end() || !events->is_array()) {
    throw InputError(file + ": no 'traceEvents' array: not a PyTorch profiler (Kineto) trace");
  }
  if (trace.steps.empty()) {
    throw InputError(file + ": no ProfilerStep#N annotation: profile with torch.profiler.profile(schedule=...) and "
                     "call prof.step() after each iteration");
  }

  // Steps in time order; times from the first one's start.
  std::vector<std::size_t> order(trace.steps.size());
  for (std::size_t s = 0; s < order.size(); ++s) order[s] = s;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return step_spans_us[a] < step_spans_us[b]; });
  const double origin_us = step_spans_us[order.front()].first;
  std::vector<TracedStep> steps;
  std::vector<std::pair<double, double>> spans;
  for (std::size_t s : order) {
    steps.push_back(trace.steps[s]);
    spans.push_back(step_spans_us[s]);
    steps.back().cpu_start_s = (spans.back().first - origin_us) * units::kSecondsPerUs;
    steps.back().cpu_end_s = (spans.back().second - origin_us) * units::kSecondsPerUs;
  }
  trace.steps = std::move(steps);

  // The step whose span holds a CPU time: the last to start at or before it; nullopt before the first step, between
  // two and after the last.
  const auto step_at = [&spans](double at_us) -> std::optional<std::size_t> {
    const auto starts_after = [](double at, const std::pair<double, double>& span) { return at < span.first; };
    const auto after = std::upper_bound(spans.begin(), spans.end(), at_us, starts_after);
    if (after == spans.begin()) return std::nullopt;
    const auto step = static_cast<std::size_t>(after - spans.begin()) - 1;
    if (at_us > spans[step].second) return std::nullopt;
    return step;
  };
  trace.work.reserve(pending.size());
  for (PendingWork& work : pending) {
    const auto launched = launches_us.find(work.correlation);
    if (launched == launches_us.end()) {
      throw InputError(file + ": " + work.work.origin + ": correlation " + std::to_string(work.correlation) +
                       " matches no CUDA runtime call: the call that launched it is missing from the trace");
    }
    const std::optional<std::size_t> step = step_at(launched->second.first);
    if (!step) continue;
    work.work.step = *step;
    work.work.launch_s = (launched->second.first - origin_us) * units::kSecondsPerUs;
    work.work.launch_end_s = (launched->second.second - origin_us) * units::kSecondsPerUs;
    work.work.start_s = (work.start_us - origin_us) * units::kSecondsPerUs;
    trace.work.push_back(std::move(work.work));
  }
  std::stable_sort(trace.work.begin(), trace.work.end(),
                   [](const TracedWork& a, const TracedWork& b) { return a.start_s < b.start_s; });
  for (PendingGradient& gradient : gradients) {
    const std::optional<std::size_t> step = step_at(gradient.cpu_us);
    if (!step) continue;
    gradient.gradient.step = *step;
    gradient.gradient.cpu_s = (gradient.cpu_us - origin_us) * units::kSecondsPerUs;
    trace.gradients.push_back(gradient.gradient);
  }
  std::stable_sort(trace.gradients.begin(), trace.gradients.end(),
                   [](const TracedGradient& a, const TracedGradient& b) { return a.cpu_s < b.cpu_s; });

  trace.device = static_cast<int>(device.value_or(0));
  const auto properties = document.find("deviceProperties");
  if (properties != document.end() && properties->is_array()) {
    for (const json& gpu : *properties) {
      if (!gpu.is_object()) continue;
      const auto id = gpu.find("id");
      const auto name = gpu.find("name");
      if (id != gpu.end() && id->is_number_integer() && *id == trace.device && name != gpu.end() && name->is_string()) {
        trace.device_name = name->get<std::string>();
      }
    }
  }
  if (document.contains("distributedInfo")) {
    JsonObject info = JsonValue(document["distributedInfo"], file, "distributedInfo").as_object();
    if (const std::optional<JsonValue> rank = info.get("rank")) trace.rank = static_cast<int>(rank->as_int(0, 1 << 24));
    if (const std::optional<JsonValue> world = info.get("world_size")) {
      trace.world_size = static_cast<int>(world->as_int(1, 1 << 24));
    }
    if (trace.rank && trace.world_size && *trace.rank >= *trace.world_size) {
      info.value().fail("rank " + std::to_string(*trace.rank) + " is not below world_size " +
                        std::to_string(*trace.world_size));
    }
  }
  return trace;
}

}  // namespace vtsim
