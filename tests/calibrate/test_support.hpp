#pragma once
// Fixture logs of tests/calibrate/fixtures, written following each tool's documented output format.

#include <fstream>
#include <sstream>
#include <string>

namespace vtsim::calibrate::testing {

/// The full path of fixture `name`.
inline std::string fixture_path(const std::string& name) {
  return std::string(VTSIM_SOURCE_DIR) + "/tests/calibrate/fixtures/" + name;
}

/// The text of fixture `name`.
inline std::string read_fixture(const std::string& name) {
  std::ifstream in(fixture_path(name), std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The message of the InputError `action` throws, or "no error".
template <typename Action>
std::string error_of(Action action) {
  try {
    action();
  } catch (const std::exception& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace vtsim::calibrate::testing
