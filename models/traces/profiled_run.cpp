#include "models/traces/profiled_run.hpp"

#include <algorithm>
#include <cassert>
#include <limits>

namespace vtsim {

double traced_gpu_span_s(const ProfiledRun& trace, std::size_t step) {
  assert(step < trace.steps.size());
  double first = std::numeric_limits<double>::infinity();
  double last = -std::numeric_limits<double>::infinity();
  for (const TracedWork& work : trace.work) {
    if (work.step != step) continue;
    first = std::min(first, work.start_s);
    last = std::max(last, work.start_s + work.duration_s);
  }
  return last >= first ? last - first : 0.0;
}

std::string_view to_string(TracedCollectiveKind kind) {
  switch (kind) {
    case TracedCollectiveKind::allreduce: return "allreduce";
    case TracedCollectiveKind::allgather: return "allgather";
    case TracedCollectiveKind::reduce_scatter: return "reduce_scatter";
    case TracedCollectiveKind::broadcast: return "broadcast";
    case TracedCollectiveKind::reduce: return "reduce";
    case TracedCollectiveKind::all_to_all: return "all_to_all";
    case TracedCollectiveKind::send: return "send";
    case TracedCollectiveKind::recv: return "recv";
    case TracedCollectiveKind::gather: return "gather";
    case TracedCollectiveKind::scatter: return "scatter";
    case TracedCollectiveKind::barrier: return "barrier";
  }
  return "allreduce";
}

}  // namespace vtsim
