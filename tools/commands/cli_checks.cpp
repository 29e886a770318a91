#include "tools/commands/cli_checks.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

#include "models/core/error.hpp"
#include "models/scenario/overrides.hpp"
#include "tools/sweep/sweep_shard.hpp"

namespace vtsim::tools {

CLI::Validator assignment_check() {
  return CLI::Validator(
      [](const std::string& assignment) -> std::string {
        const std::size_t equals = assignment.find('=');
        if (equals == std::string::npos) return "expected PATH=VALUE, e.g. jobs[0].batch_per_gpu=32";
        try {
          parse_override_path(std::string_view(assignment).substr(0, equals));
        } catch (const InputError& error) {
          const std::string message = error.what();  // "--set PATH: why": the option is named by the caller
          return message.rfind("--set ", 0) == 0 ? message.substr(6) : message;
        }
        return "";
      },
      "PATH=VALUE");
}

CLI::Validator assignments_check() {
  const CLI::Validator one = assignment_check();
  return CLI::Validator(
      [one](const std::string& text) -> std::string {
        for (std::string assignment : split_assignments(text)) {
          if (std::string why = one(assignment); !why.empty()) return why;
        }
        return "";
      },
      "PATH=VALUE[,PATH=VALUE...]");
}

CLI::Validator shard_check() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        try {
          parse_shard(text);
        } catch (const InputError&) {
          return "expected i/N with 0 <= i < N, e.g. 0/4";
        }
        return "";
      },
      "i/N");
}

CLI::Validator at_least_one_check() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        long value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error != std::errc() || end != text.data() + text.size() || value < 1) {
          return "expected a whole number >= 1, got '" + text + "'";
        }
        return "";
      },
      "N");
}

CLI::Validator finite_number_check() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0') return "not a number: " + text;
        return std::isfinite(value) ? "" : "not a finite number: " + text;
      },
      "NUMBER");
}

}  // namespace vtsim::tools
