#pragma once
// The files vtsim ships beside its executable (scenarios/, data/): found where a user runs it from, wherever that is.

#include <string>
#include <string_view>
#include <vector>

namespace vtsim::tools {

/// Where a shipped file `relative` (to the repository's root, e.g. "scenarios/validation/table.json") may be, in the
/// order vtsim looks: the current folder (a clone's root), the installed share folder beside the executable
/// (<prefix>/bin/vtsim -> <prefix>/share/vtsim, as `cmake --install` lays it out), and the source tree this
/// executable was built from.
std::vector<std::string> shipped_file_candidates(std::string_view relative);

/// The first of shipped_file_candidates() that exists; `relative` itself when none does (opening it then fails with
/// the usual message).
std::string find_shipped_file(std::string_view relative);

/// "here, in /usr/local/share/vtsim or in /src/vtsim": where find_shipped_file() looked, for an error message.
std::string shipped_file_places(std::string_view relative);

}  // namespace vtsim::tools
