#pragma once
// The progress line of a sweep on a terminal: "sweep: 120/400 points, 3 failed, 5.2 points/s, ETA 0:54, 0:23
// elapsed". Redrawn in place at most ten times a second, and each second by tick() while no point ends (a point of
// thousands of GPUs may take minutes); silent when disabled (stdout is not a terminal).

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace vtsim::tools {

/// A sweep's progress, drawn on one terminal line.
class ProgressLine {
 public:
  /// `total` points, of which `already_done` (`already_failed` of them failed) were recorded before this run; the line
  /// starts with `label` ("sweep", "plan").
  ProgressLine(std::ostream& out, bool enabled, std::size_t total, std::size_t already_done, std::size_t already_failed,
               std::string label = "sweep");

  /// Counts one more finished point and redraws when due.
  void point_done(bool failed);
  /// Redraws if a second has passed since the last drawing (the elapsed time moves).
  void tick();
  /// Draws the final state and ends the line.
  void finish();
  /// The line as it would be drawn now (for tests).
  std::string text() const;

 private:
  void draw();
  std::ostream& out_;
  bool enabled_;
  std::size_t total_;
  std::size_t done_;
  std::size_t failed_;
  std::size_t done_this_run_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
  std::size_t last_width_ = 0;
  std::string label_;
};

/// "1:05:07", "4:02" or "0:09" for a duration in seconds.
std::string format_duration(double seconds);

}  // namespace vtsim::tools
