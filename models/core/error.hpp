#pragma once
// Errors of bad input: scenarios, profiles and imported logs.
//
// Bad input throws one InputError at the loading boundary. Its message names the file and the JSON path (or line) and
// says what was expected, e.g. "a.json: jobs[0].batch_per_gpu: expected an integer >= 1, got 0". Programming errors are
// assertions; only tools/ turns an InputError into an exit status.

#include <stdexcept>
#include <string>

namespace vtsim {

/// Bad user input; what() is the complete one-line message shown to the user.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace vtsim
