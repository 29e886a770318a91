#include "sim/engine/trace.hpp"

#include <algorithm>
#include <tuple>

#include <nlohmann/json.hpp>

namespace vtsim::sim {

void TraceRecorder::name_process(int pid, const std::string& name) { names_.push_back({pid, -1, name}); }

void TraceRecorder::name_thread(int pid, int tid, const std::string& name) { names_.push_back({pid, tid, name}); }

void TraceRecorder::span(int pid, int tid, const std::string& name, double start_s, double end_s,
                         nlohmann::json args) {
  spans_.push_back({pid, tid, name, start_s, end_s, std::move(args)});
}

void TraceRecorder::write(std::ostream& out) const {
  constexpr double kMicrosecondsPerSecond = 1e6;  // the trace-event format counts in microseconds
  std::vector<const Span*> ordered;
  ordered.reserve(spans_.size());
  for (const Span& span : spans_) ordered.push_back(&span);
  std::stable_sort(ordered.begin(), ordered.end(), [](const Span* a, const Span* b) {
    return std::tie(a->start_s, a->pid, a->tid) < std::tie(b->start_s, b->pid, b->tid);
  });
  nlohmann::json events = nlohmann::json::array();
  for (const Name& name : names_) {
    nlohmann::json event = {{"ph", "M"}, {"pid", name.pid}, {"args", {{"name", name.name}}}};
    event["name"] = name.tid < 0 ? "process_name" : "thread_name";
    if (name.tid >= 0) event["tid"] = name.tid;
    events.push_back(std::move(event));
  }
  for (const Span* span : ordered) {
    nlohmann::json event = {{"ph", "X"},
                            {"name", span->name},
                            {"pid", span->pid},
                            {"tid", span->tid},
                            {"ts", span->start_s * kMicrosecondsPerSecond},
                            {"dur", (span->end_s - span->start_s) * kMicrosecondsPerSecond}};
    if (!span->args.is_null()) event["args"] = span->args;
    events.push_back(std::move(event));
  }
  out << nlohmann::json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}}.dump() << '\n';
}

}  // namespace vtsim::sim
