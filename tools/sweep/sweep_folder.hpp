#pragma once
// A sweep output folder: DIR/sweep.json (the manifest: which sweep, which shard), DIR/records.jsonl (the finished
// points, sweep_records.hpp), and the outputs regenerated from them, DIR/results.csv and DIR/results.jsonl.

#include <cstddef>
#include <string>
#include <vector>

#include "tools/sweep/sweep_shard.hpp"

namespace vtsim::tools {

/// The manifest of a sweep output folder.
struct SweepManifest {
  std::string fingerprint;           ///< Sweep::fingerprint
  std::size_t points = 0;            ///< points in the whole sweep
  Shard shard;                       ///< which of them this folder runs; 0/1 = all (also for a merged folder)
  std::vector<std::string> columns;  ///< the parameter columns, swept then derived
  std::string sweep_file;            ///< the sweep file it was run from (for people; not checked)
};

/// DIR/sweep.json, DIR/records.jsonl, ...
std::string manifest_file(const std::string& dir);
/// DIR/records.jsonl.
std::string records_file(const std::string& dir);

/// Reads DIR/sweep.json. Throws InputError when DIR is not a sweep folder.
SweepManifest read_manifest(const std::string& dir);

/// Makes DIR a folder for `manifest`: creates it and writes the manifest, or, when it holds one, checks that it is
/// the same sweep and shard (to resume). Throws InputError when DIR holds another sweep, another shard, or is a
/// non-empty folder that is not a sweep folder.
void prepare_sweep_folder(const std::string& dir, const SweepManifest& manifest);

}  // namespace vtsim::tools
