#!/usr/bin/env bash
# Usage: check_layering.sh SOURCE_DIR
# Holds the source tree's layers (docs/design.md, "Layout"): what each folder may include. CMake's targets keep a
# lower library from linking a higher one, but every target sees the whole tree's headers (the include path is the
# source root), so an inline function or a type from a higher layer would compile; this test is what refuses it.
#   models/ (its idea folders)  nothing of network, resolve, sim, runner, calibrate, tools; no SimGrid
#   models/network/             nothing of resolve, sim, runner, calibrate, tools; no scenario, no catalog, no SimGrid
#   models/resolve/             nothing of sim, runner, calibrate, tools; no SimGrid
#   sim/                        no scenario, its loader or writer, and no catalog; of models/resolve/ only the
#                               ResolvedRun (resolved_run.hpp); nothing of runner, calibrate, tools
# "The scenario" is the Scenario and what reads or writes one (models/scenario/ also holds the job's and the
# simulation's settings, which the engine may read); "a catalog" is a catalog header, the link defaults or the compute
# fit, which reads the GPU catalog (the types a catalog lists, gpu_spec.hpp and the like, are allowed).
#   runner/, calibrate/         nothing of tools; calibrate/ nothing of sim or runner either
# Each folder is scanned with its subfolders (those with rules of their own apart). A quoted include that names a
# file beside the including one is read as that file's path from the source root, so "../sim/x.hpp" or
# "network/topology.hpp" cannot slip past. What a header brings in with it is not followed here: sim/ and
# models/network/ are compiled with VTSIM_NO_SCENARIO and VTSIM_NO_CATALOG, under which models/scenario/scenario.hpp
# and every catalog header (models/catalog/catalog_guard.hpp) refuse to compile, so neither can reach them through
# another header.
# Prints each include that breaks a rule as FILE:LINE: PATH <- the rule, and fails (1) if there is one; a folder it
# should scan that is missing, or a tool that fails, is an error (2), not a pass. Patterns are POSIX extended regular
# expressions as awk reads them (mawk and gawk alike: a literal dot is written [.]).
set -u -o pipefail
cd "$1" || exit 2
status=0
simgrid='simgrid/|xbt[/.]|smpi/'

# includes FOLDER [PRUNED...]: "FILE:LINE:PATH" for every #include of FOLDER's sources, not under PRUNED.
includes() {
  local folder=$1 prune=() pruned file line text path
  shift
  for pruned in "$folder" "$@"; do
    [ -d "$pruned" ] || { echo "check_layering.sh: no folder $pruned in $(pwd)" >&2; exit 2; }
  done
  for pruned in "$@"; do prune+=(-path "$pruned" -prune -o); done
  find "$folder" "${prune[@]}" -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.h' -o -name '*.in' \) -print |
    sort | while read -r file; do
      { grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "$file" || [ $? -eq 1 ]; } |
        while IFS=: read -r line text; do
          [[ $text =~ [\<\"]([^\>\"]*)[\>\"] ]] || continue
          path=${BASH_REMATCH[1]}
          if [[ $text =~ \" ]] && [ -f "${file%/*}/$path" ]; then
            path=$(realpath -m --relative-to=. "${file%/*}/$path") || exit 2
          fi
          printf '%s:%s:%s\n' "$file" "$line" "$path"
        done || exit 2
    done
}

# refuse WHY PATTERN FOLDER [PRUNED...]: the includes of FOLDER whose path matches the extended regex ^(PATTERN).
refuse() {
  local why=$1 pattern=$2 hits
  shift 2
  hits=$(includes "$@" | PATTERN="^($pattern)" WHY=$why awk -F: \
           '$3 ~ ENVIRON["PATTERN"] { print $1 ":" $2 ": " $3 "   <- " ENVIRON["WHY"] }') || exit 2
  if [ -n "$hits" ]; then
    printf '%s\n' "$hits"
    status=1
  fi
}

refuse "models/ includes no higher layer" "models/network/|models/resolve/|sim/|runner/|calibrate/|tools/|$simgrid" \
       models models/network models/resolve
scenario='models/scenario/(scenario|scenario_loader|scenario_writer|scenario_checks|overrides|operations_loader)[.]'
catalog='models/catalog/([a-z_]*_catalog|catalog_lookup|catalog_guard|link_defaults|gpu_name_match|mig_placement)[.]'
catalog="$catalog|models/workload/workload_catalog[.]|models/compute/compute_fit[.]"  # the fit reads the GPU catalog
refuse "the network model reads no scenario and no catalog, and runs no engine" \
       "models/resolve/|sim/|runner/|calibrate/|tools/|$scenario|$catalog|$simgrid" models/network
refuse "resolve() runs no engine" "sim/|runner/|calibrate/|tools/|$simgrid" models/resolve
refuse "the engine takes a ResolvedRun: no scenario, no catalog, nothing of resolve() but its result" \
       "$scenario|$catalog|models/resolve/(resolve[.]hpp|job_compute_plan|scenario_calibration)|runner/|calibrate/|tools/" \
       sim
refuse "the runner is below the command line" "tools/" runner
refuse "calibrate/ measures and fits; it runs no engine" "sim/|runner/|tools/" calibrate
[ "$status" -eq 0 ] && echo "layers hold"
exit "$status"
