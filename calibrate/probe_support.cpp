#include "calibrate/probe_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <ctime>

namespace vtsim::calibrate {
namespace {

std::string iso8601(std::time_t time) {
  std::tm utc{};
  gmtime_r(&time, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

double median(std::vector<double> values) {
  assert(!values.empty());
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

std::vector<std::int64_t> powers_of_two(std::int64_t first, std::int64_t last) {
  assert(first > 0 && first <= last);
  std::vector<std::int64_t> sizes;
  for (std::int64_t size = first; size <= last; size *= 2) sizes.push_back(size);
  return sizes;
}

std::string utc_now_iso8601() { return iso8601(std::time(nullptr)); }

std::string file_date_iso8601(const std::string& file) {
  struct stat status {};
  if (stat(file.c_str(), &status) != 0) return "";
  return iso8601(status.st_mtime);
}

std::string local_host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

std::string command_output(const char* command) {
  std::FILE* pipe = popen(command, "r");
  if (pipe == nullptr) return "";
  std::string output;
  char buffer[4096];
  std::size_t count = 0;
  while ((count = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, count);
  return pclose(pipe) == 0 ? output : "";
}

Provenance probe_provenance(const std::string& tool, const std::string& device, const std::string& driver) {
  Provenance provenance;
  provenance.tool = tool;
  provenance.device = device;
  provenance.driver = driver;
  provenance.date = utc_now_iso8601();
  provenance.host = local_host_name();
  return provenance;
}

}  // namespace vtsim::calibrate
