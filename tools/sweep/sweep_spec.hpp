#pragma once
// A sweep: one base scenario and the points to run it at, each point a list of overrides on the paths `--set`
// takes. scenarios/sweeps/README.md documents the file format:
//   {"description": "...", "scenario": "file.json" | {...}, "set": ["PATH=VALUE", ...],
//    "axes": [{"grid": {...}} | {"zip": {...}} | {"points": [...]}, ...], "derived": {"PATH": "expression"}}

#include <cstddef>
#include <span>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace vtsim::tools {

/// One point of a sweep. Its values are those of the sweep's columns: swept columns first, then derived ones.
struct SweepPoint {
  std::size_t index = 0;               ///< position in the sweep's order, from 0
  std::string id;                      ///< 16 hex digits hashing the swept values: the same point, the same id
  std::vector<nlohmann::json> values;  ///< one per column (Sweep::columns())
};

/// A sweep file, loaded and expanded into its points.
struct Sweep {
  std::string file;                          ///< the sweep file as given ("" for text)
  std::string description;
  nlohmann::json base_scenario;              ///< the scenario with the sweep's "set" (and any extra --set) applied
  std::string scenario_label;                ///< names the scenario in error messages (a path relative to the sweep)
  std::string scenario_dir;                  ///< where the scenario's own relative paths resolve
  std::vector<std::string> swept_columns;    ///< swept paths, in the order they first appear in "axes"
  std::vector<std::string> derived_columns;  ///< derived paths, in file order
  std::vector<SweepPoint> points;
  std::string fingerprint;  ///< hash of the base scenario, the columns and every point: equal fingerprints, equal sweeps

  /// Every column: the swept paths, then the derived ones.
  std::vector<std::string> columns() const;
};


/// Loads and expands a sweep file; `extra_set` ("PATH=VALUE") applies after the file's "set".
/// Throws InputError naming the file and the JSON path on any bad input.
Sweep load_sweep_file(const std::string& file, std::span<const std::string> extra_set = {});

/// Loads and expands sweep text: `file` names it in messages, a relative scenario path resolves against `base_dir`.
Sweep parse_sweep(std::string_view text, const std::string& file, const std::string& base_dir,
                  std::span<const std::string> extra_set = {});

/// The files the sweep's points read: calibration profiles and workload traces (the base scenario's, and each
/// point's where a swept path reaches one), resolved against the scenario's folder: their contents are part of the
/// fingerprint.
std::set<std::string> calibration_profiles(const Sweep& sweep);

/// The scenario JSON of `point`: the base scenario with the point's swept and derived values set.
nlohmann::json point_scenario_json(const Sweep& sweep, const SweepPoint& point);

/// The point's values as one object, path -> value (swept and derived).
nlohmann::json point_values_json(const Sweep& sweep, const SweepPoint& point);

}  // namespace vtsim::tools
