#!/usr/bin/env bash
# Usage: check_layering.sh SOURCE_DIR
# Holds the source tree's layers (docs/design.md, "Layout"): what each folder may include. CMake's targets keep a
# lower library from linking a higher one, but every target sees the whole tree's headers (the include path is the
# source root), so an inline function or a type from a higher layer would compile; this test is what refuses it.
#   models/ (its own files and chakra/)  nothing of network, resolve, sim, runner, calibrate, tools; no SimGrid
#   models/network/                      nothing of resolve, sim, runner, calibrate, tools; no scenario, no SimGrid
#   models/resolve/                      nothing of sim, runner, calibrate, tools; no SimGrid
#   sim/                                 no scenario and no catalog (it takes a ResolvedRun); nothing of runner,
#                                        calibrate, tools
#   runner/, calibrate/                  nothing of tools
# Prints each include that breaks a rule as FILE:LINE: the line, and fails if there is one.
set -u
cd "$1" || exit 2
status=0
# refuse FOLDER MAXDEPTH PATTERN WHY: the #include lines of FOLDER's sources (to MAXDEPTH) that match PATTERN.
refuse() {
  local folder=$1 depth=$2 pattern=$3 why=$4 hits
  hits=$(find "$folder" -maxdepth "$depth" -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' -o -name '*.in' \) \
           -exec grep -HnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"]($pattern)" {} + | sort)
  if [ -n "$hits" ]; then
    printf '%s\n' "$hits" | sed "s|\$|   <- $why|"
    status=1
  fi
}
refuse models 1 'models/network/|models/resolve/|sim/|runner/|calibrate/|tools/|simgrid/' \
       "models/ includes no higher layer"
refuse models/chakra 1 'models/network/|models/resolve/|sim/|runner/|calibrate/|tools/|simgrid/' \
       "models/ includes no higher layer"
refuse models/network 1 'models/resolve/|sim/|runner/|calibrate/|tools/|simgrid/|models/scenario\.hpp' \
       "the network model reads no scenario and runs no engine"
refuse models/resolve 1 'sim/|runner/|calibrate/|tools/|simgrid/' "resolve() runs no engine"
refuse sim 1 'models/scenario\.hpp|models/scenario_loader\.hpp|models/[a-z_]*catalog\.hpp|runner/|calibrate/|tools/' \
       "the engine takes a ResolvedRun: no scenario, no catalog"
refuse runner 1 'tools/' "the runner is below the command line"
refuse calibrate 2 'sim/|runner/|tools/' "calibrate/ measures and fits; it runs no engine"
[ "$status" -eq 0 ] && echo "layers hold"
exit "$status"
