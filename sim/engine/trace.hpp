#pragma once
// A timeline in Chrome trace-event format (opens in Perfetto and chrome://tracing): one process per job with a track
// per rank (compute) and per rank (communication), and one process "links" with a track per link class.

#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vtsim::sim {

/// Collects complete ("X") events and writes them as a Chrome trace JSON document.
class TraceRecorder {
 public:
  /// Names a process (pid) and its threads (tids) for the viewer.
  void name_process(int pid, const std::string& name);
  void name_thread(int pid, int tid, const std::string& name);
  /// Records a span [start_s, end_s) of simulated time on track (pid, tid), with `args` (an object, or null for none)
  /// shown beside it in the viewer: what it moved, over which links, how.
  void span(int pid, int tid, const std::string& name, double start_s, double end_s,
            nlohmann::json args = nullptr);
  /// Writes the whole trace. Events are sorted by start time, so the output does not depend on recording order.
  void write(std::ostream& out) const;
  /// Number of spans recorded.
  std::size_t size() const { return spans_.size(); }

 private:
  struct Span {
    int pid;
    int tid;
    std::string name;
    double start_s;
    double end_s;
    nlohmann::json args;
  };
  struct Name {
    int pid;
    int tid;  ///< -1 for a process name
    std::string name;
  };
  std::vector<Span> spans_;
  std::vector<Name> names_;
};

}  // namespace vtsim::sim
