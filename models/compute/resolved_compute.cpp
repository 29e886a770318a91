#include "models/compute/resolved_compute.hpp"

#include <algorithm>
#include <initializer_list>

namespace vtsim {

namespace {

std::vector<std::string> texts_of(const std::vector<SourcedNote>& notes, std::initializer_list<Source> sources) {
  std::vector<std::string> texts;
  for (const SourcedNote& note : notes) {
    if (std::find(sources.begin(), sources.end(), note.source) != sources.end()) texts.push_back(note.text);
  }
  return texts;
}

}  // namespace

std::vector<std::string> ResolvedCompute::sources() const {
  return texts_of(notes, {Source::fitted, Source::published, Source::scenario});
}

std::vector<std::string> ResolvedCompute::uncalibrated() const { return texts_of(notes, {Source::uncalibrated}); }

std::vector<std::string> ResolvedCompute::calibrated() const { return texts_of(notes, {Source::measured}); }

}  // namespace vtsim
