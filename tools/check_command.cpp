#include "tools/check_command.hpp"

#include "models/json_reader.hpp"
#include "models/overrides.hpp"
#include "models/scenario_loader.hpp"
#include "models/scenario_writer.hpp"
#include "tools/default_scenario.hpp"

namespace vtsim::tools {

Scenario load_scenario_or_default(const std::string& file, const std::vector<std::string>& overrides) {
  if (!file.empty()) return load_scenario_file(file, overrides);
  const std::string name(kDefaultScenarioName);
  nlohmann::json json = parse_json_text(default_scenario_json(), name);
  for (const std::string& assignment : overrides) apply_override(json, assignment);
  Scenario scenario = load_scenario(json, name, ".");
  return scenario;
}

void print_resolved_scenario(std::ostream& out, const Scenario& scenario) {
  out << scenario_to_json(scenario).dump(2) << '\n';
}

}  // namespace vtsim::tools
