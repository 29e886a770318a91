#include "tools/sweep/sweep_shard.hpp"

#include <charconv>

#include "models/core/error.hpp"

namespace vtsim::tools {
namespace {

bool parse_count(std::string_view text, std::size_t& value) {
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

Shard parse_shard(const std::string& text, const std::string& option) {
  const std::size_t slash = text.find('/');
  Shard shard;
  const std::string_view view(text);
  if (slash == std::string::npos || !parse_count(view.substr(0, slash), shard.index) ||
      !parse_count(view.substr(slash + 1), shard.count) || shard.count == 0 || shard.index >= shard.count) {
    throw InputError(option + " " + text + ": expected i/N with 0 <= i < N, e.g. 0/4");
  }
  return shard;
}

}  // namespace vtsim::tools
