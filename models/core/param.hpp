#pragma once
// A resolved value with where it came from. resolve() gives the values a run uses as Params, so that what was
// measured, fitted, published or stated, and what is an uncalibrated default, follows from the values themselves
// (`vtsim check --sources` lists them; a result's "calibrated" and "uncalibrated_defaults" lists are made from them).

#include <string>
#include <string_view>

namespace vtsim {

/// Where a resolved value came from.
enum class Source {
  published,     ///< a catalog entry, or a datasheet, paper or vendor figure cited next to it
  scenario,      ///< stated in the scenario (or by --set)
  measured,      ///< the scenario's calibration profile measured it
  fitted,        ///< fitted to published single-device measurements (models/compute/: compute_fit.json and
                 ///< kernel_parameters.json)
  uncalibrated,  ///< a default without a measurement behind it (the note says what it rests on)
};

/// The spelling used in outputs: "published", "scenario", "measured", "fitted", "uncalibrated".
std::string_view to_string(Source source);

/// A value and its source, with the citation, the profile's provenance or what an uncalibrated default rests on.
template <typename T>
struct Param {
  T value{};
  Source source = Source::uncalibrated;
  std::string note;
};

/// A note on a resolved value (its value and where it came from, in words), with its source.
struct SourcedNote {
  Source source = Source::uncalibrated;
  std::string text;

  bool operator==(const SourcedNote&) const = default;
};

/// One line of what a run resolved, for display: what it is, its value as text (with units), where it came from.
struct SourcedValue {
  std::string what;
  std::string value;
  Source source = Source::uncalibrated;
  std::string note;
};

}  // namespace vtsim
