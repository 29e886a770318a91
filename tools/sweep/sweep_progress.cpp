#include "tools/sweep/sweep_progress.hpp"

#include <utility>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace vtsim::tools {

std::string format_duration(double seconds) {
  const auto total = static_cast<long long>(std::llround(std::max(0.0, seconds)));
  char text[48];
  if (total >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", total / 60, total % 60);
  }
  return text;
}

ProgressLine::ProgressLine(std::ostream& out, bool enabled, std::size_t total, std::size_t already_done,
                           std::size_t already_failed, std::string label)
    : out_(out),
      enabled_(enabled),
      total_(total),
      done_(already_done),
      failed_(already_failed),
      label_(std::move(label)) {
  if (enabled_) draw();
}

void ProgressLine::point_done(bool failed) {
  ++done_;
  ++done_this_run_;
  if (failed) ++failed_;
  if (!enabled_) return;
  if (std::chrono::steady_clock::now() - last_draw_ >= std::chrono::milliseconds(100)) draw();
}

void ProgressLine::tick() {
  if (!enabled_) return;
  if (std::chrono::steady_clock::now() - last_draw_ >= std::chrono::seconds(1)) draw();
}

void ProgressLine::finish() {
  if (!enabled_) return;
  draw();
  out_ << '\n' << std::flush;
}

std::string ProgressLine::text() const {
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string line = label_ + ": " + std::to_string(done_) + "/" + std::to_string(total_) + " points, " +
                     std::to_string(failed_) + " failed";
  if (done_this_run_ > 0 && elapsed_s > 0) {
    const double rate = static_cast<double>(done_this_run_) / elapsed_s;
    char rate_text[32];
    std::snprintf(rate_text, sizeof rate_text, rate < 10 ? "%.2f" : "%.0f", rate);
    line += std::string(", ") + rate_text + " points/s";
    if (done_ < total_) line += ", ETA " + format_duration(static_cast<double>(total_ - done_) / rate);
  }
  if (elapsed_s >= 1) line += ", " + format_duration(elapsed_s) + " elapsed";
  return line;
}

void ProgressLine::draw() {
  last_draw_ = std::chrono::steady_clock::now();
  std::string line = text();
  const std::size_t width = line.size();
  if (width < last_width_) line += std::string(last_width_ - width, ' ');  // erase what the last line had more
  last_width_ = width;
  out_ << '\r' << line << std::flush;
}

}  // namespace vtsim::tools
