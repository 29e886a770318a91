// The Chrome trace-event writer (sim/engine/trace.hpp): the document a viewer opens, written out by hand.

#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/engine/trace.hpp"

namespace vtsim::sim {
namespace {

nlohmann::json written(const TraceRecorder& trace) {
  std::ostringstream out;
  trace.write(out);
  return nlohmann::json::parse(out.str());
}

TEST(TraceRecorder, WritesNamesThenSpansByStartInMicroseconds) {
  TraceRecorder trace;
  trace.name_process(1, "job 0");
  trace.name_thread(1, 2, "rank 0 compute");
  // Recorded out of order: the document lists spans by start, then process, then track.
  trace.span(1, 2, "backward", 0.25, 0.75, {{"kernels", 3}});
  trace.span(1, 3, "allreduce", 0.125, 0.25);
  trace.span(0, 9, "link", 0.25, 0.5);
  EXPECT_EQ(trace.size(), 3U);
  const nlohmann::json expected = {
      {"displayTimeUnit", "ms"},
      {"traceEvents",
       {{{"ph", "M"}, {"pid", 1}, {"name", "process_name"}, {"args", {{"name", "job 0"}}}},
        {{"ph", "M"}, {"pid", 1}, {"tid", 2}, {"name", "thread_name"}, {"args", {{"name", "rank 0 compute"}}}},
        {{"ph", "X"}, {"name", "allreduce"}, {"pid", 1}, {"tid", 3}, {"ts", 125000.0}, {"dur", 125000.0}},
        {{"ph", "X"}, {"name", "link"}, {"pid", 0}, {"tid", 9}, {"ts", 250000.0}, {"dur", 250000.0}},
        {{"ph", "X"},
         {"name", "backward"},
         {"pid", 1},
         {"tid", 2},
         {"ts", 250000.0},
         {"dur", 500000.0},
         {"args", {{"kernels", 3}}}}}}};
  EXPECT_EQ(written(trace), expected);
}

TEST(TraceRecorder, AnEmptyTraceIsAValidDocument) {
  const nlohmann::json document = written(TraceRecorder{});
  EXPECT_EQ(document, (nlohmann::json{{"displayTimeUnit", "ms"}, {"traceEvents", nlohmann::json::array()}}));
}

}  // namespace
}  // namespace vtsim::sim
