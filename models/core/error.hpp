#pragma once
// Errors of bad input: scenarios, profiles and imported logs.
//
// Bad input throws one InputError at the loading boundary. Its message names the file and the JSON path (or line) and
// says what was expected, e.g. "a.json: jobs[0].batch_per_gpu: expected an integer >= 1, got 0". Programming errors are
// assertions; only tools/ turns an InputError into an exit status. The message's control characters are escaped
// (control_characters.hpp), whatever input text it quotes: a NUL would cut it short where it is printed, a newline
// split it, an ESC drive the user's terminal.

#include <stdexcept>
#include <string>

#include "models/core/control_characters.hpp"

namespace vtsim {

/// Bad user input; what() is the complete one-line message shown to the user, its control characters escaped.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& message) : std::runtime_error(printable(message)) {}
};

}  // namespace vtsim
