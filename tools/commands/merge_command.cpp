#include "tools/commands/merge_command.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "models/core/atomic_file.hpp"
#include "models/core/error.hpp"
#include "tools/commands/command.hpp"
#include "tools/sweep/sweep_folder.hpp"
#include "tools/sweep/sweep_output.hpp"
#include "tools/sweep/sweep_records.hpp"

namespace vtsim::tools {
namespace {

// One input folder's records file, open for reading.
struct MergeInput {
  std::string dir;
  int fd = -1;
  RecordScan scan;
};

// "4, 10, 16" for the first few, then "and N more".
std::string list_points(const std::vector<std::size_t>& points) {
  constexpr std::size_t kShown = 20;
  std::string text;
  for (std::size_t i = 0; i < points.size() && i < kShown; ++i) text += (i > 0 ? ", " : "") + std::to_string(points[i]);
  if (points.size() > kShown) text += " and " + std::to_string(points.size() - kShown) + " more";
  return text;
}

// Opens the records of the sweep folder `dir` for reading; a folder without records (a shard that never started a
// point) has none.
std::unique_ptr<MergeInput> open_input(const std::string& dir, std::size_t points) {
  auto folder = std::make_unique<MergeInput>();
  folder->dir = dir;
  const std::string file = records_file(dir);
  folder->fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (folder->fd >= 0) {
    folder->scan = scan_records(folder->fd, file, points, {});
  } else {
    folder->scan.records.resize(points);
  }
  return folder;
}

bool same_folder(const std::string& a, const std::string& b) {
  std::error_code error;
  return std::filesystem::exists(b) && std::filesystem::equivalent(a, b, error);
}

}  // namespace

MergeReport merge_command(const std::vector<std::string>& inputs, const std::string& out_dir, std::ostream& out) {
  if (inputs.empty()) throw InputError("merge: name at least one sweep folder");
  const SweepManifest first = read_manifest(inputs[0]);
  std::vector<std::unique_ptr<MergeInput>> folders;
  const auto close_all = [&folders] {
    for (const auto& folder : folders) {
      if (folder->fd >= 0) ::close(folder->fd);
      folder->fd = -1;
    }
  };
  try {
    for (const std::string& dir : inputs) {
      if (same_folder(dir, out_dir)) throw InputError(dir + ": is also the --out folder; merge into another folder");
      const SweepManifest manifest = read_manifest(dir);
      if (manifest.fingerprint != first.fingerprint || manifest.points != first.points ||
          manifest.columns != first.columns) {
        throw InputError(dir + ": holds another sweep (fingerprint " + manifest.fingerprint + ") than " + inputs[0] +
                         " (" + first.fingerprint + ")");
      }
      folders.push_back(open_input(dir, first.points));
    }

    MergeReport report;
    report.points = first.points;
    std::vector<const MergeInput*> source(first.points, nullptr);
    for (std::size_t point = 0; point < first.points; ++point) {
      for (const auto& folder : folders) {
        if (!folder->scan.records[point].present()) continue;
        if (source[point] == nullptr) {
          source[point] = folder.get();
          continue;
        }
        if (report.duplicated.empty() || report.duplicated.back() != point) {
          report.duplicated.push_back(point);
        }
        const std::string kept = read_record(source[point]->fd, source[point]->scan.records[point]);
        if (read_record(folder->fd, folder->scan.records[point]) != kept &&
            (report.conflicting.empty() || report.conflicting.back() != point)) {
          report.conflicting.push_back(point);
        }
      }
    }

    // The output is a whole-sweep folder: a later `vtsim sweep SWEEP --out OUT` resumes it, running what is missing.
    // A former merge there keeps the points no input holds (those such a rerun filled in).
    SweepManifest merged = first;
    merged.shard = Shard{};
    if (std::filesystem::is_regular_file(manifest_file(out_dir))) {
      const SweepManifest existing = read_manifest(out_dir);
      if (existing.fingerprint != merged.fingerprint || existing.shard.count != 1) {
        throw InputError(out_dir + ": holds other results (fingerprint " + existing.fingerprint + ", shard " +
                         existing.shard.to_string() + "); merge into a new folder");
      }
      folders.push_back(open_input(out_dir, first.points));
      for (std::size_t point = 0; point < first.points; ++point) {
        if (source[point] == nullptr && folders.back()->scan.records[point].present()) source[point] = folders.back().get();
      }
    } else {
      prepare_sweep_folder(out_dir, merged);
    }
    for (std::size_t point = 0; point < first.points; ++point) {
      if (source[point] == nullptr) report.missing.push_back(point);
    }
    const auto record_of = [&](std::size_t point) {
      return source[point] == nullptr ? std::string() : read_record(source[point]->fd, source[point]->scan.records[point]);
    };
    AtomicOutput records(records_file(out_dir));
    std::vector<std::size_t> all(first.points);
    for (std::size_t point = 0; point < first.points; ++point) {
      all[point] = point;
      const std::string line = record_of(point);
      if (!line.empty()) {
        records.write(line + "\n");
        ++report.merged;
      }
    }
    records.commit();
    write_sweep_outputs(out_dir, first.columns, all, record_of);
    close_all();

    out << "merge: " << report.merged << " of " << report.points << " points from " << inputs.size()
        << " folders -> " << (std::filesystem::path(out_dir) / "results.csv").string() << '\n';
    if (!report.duplicated.empty()) {
      out << "merge: " << report.duplicated.size() << " points in more than one folder (kept the first): "
          << list_points(report.duplicated) << '\n';
    }
    if (!report.conflicting.empty()) {
      out << "merge: of which " << report.conflicting.size() << " with different records: "
          << list_points(report.conflicting) << '\n';
    }
    if (!report.missing.empty()) {
      throw InputError("merge: " + std::to_string(report.missing.size()) + " of " + std::to_string(report.points) +
                       " points missing: " + list_points(report.missing) + "; `vtsim sweep SWEEP.json --out " +
                       out_dir + "` runs just those");
    }
    return report;
  } catch (...) {
    close_all();
    throw;
  }
}

Command add_merge_command(CLI::App& parent) {
  struct Options {
    std::vector<std::string> inputs;
    std::string out_dir;
  };
  auto options = std::make_shared<Options>();
  CLI::App* app = parent.add_subcommand("merge", "Join the output folders of a sweep's shards into one");
  app->add_option("folders", options->inputs, "Sweep output folders (e.g. DIR/shard-*)")->required();
  app->add_option("--out", options->out_dir, "Output folder (new, or a former merge of the same sweep)")->required();
  return {app, [options] { merge_command(options->inputs, options->out_dir, std::cout); }};
}

}  // namespace vtsim::tools
