#include "tools/sweep/sweep_folder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "models/core/atomic_file.hpp"
#include "models/core/error.hpp"
#include "models/core/json_reader.hpp"

namespace vtsim::tools {
namespace {

constexpr char kFormat[] = "vtsim-sweep-folder-1";

nlohmann::json manifest_json(const SweepManifest& manifest) {
  return {{"format", kFormat},
          {"fingerprint", manifest.fingerprint},
          {"points", manifest.points},
          {"shard", manifest.shard.to_string()},
          {"columns", manifest.columns},
          {"sweep_file", manifest.sweep_file}};
}

}  // namespace

std::string manifest_file(const std::string& dir) { return (std::filesystem::path(dir) / "sweep.json").string(); }

std::string records_file(const std::string& dir) { return (std::filesystem::path(dir) / "records.jsonl").string(); }

SweepManifest read_manifest(const std::string& dir) {
  const std::string file = manifest_file(dir);
  if (!std::filesystem::is_regular_file(file)) throw InputError(dir + ": not a vtsim sweep folder (no sweep.json)");
  const nlohmann::json json = read_json_file(file);
  JsonObject root = JsonValue(json, file, "").as_object();
  const std::string format = root.require("format").as_string();
  if (format != kFormat) root.value().fail("format \"" + format + "\" is not " + kFormat);
  SweepManifest manifest;
  manifest.fingerprint = root.require("fingerprint").as_string();
  manifest.points = static_cast<std::size_t>(root.require("points").as_int(0));
  manifest.shard = parse_shard(root.require("shard").as_string(), file + ": shard");
  for (const JsonValue& column : root.require("columns").as_array()) manifest.columns.push_back(column.as_string());
  if (const auto sweep_file = root.get("sweep_file")) manifest.sweep_file = sweep_file->json().get<std::string>();
  root.finish();
  return manifest;
}

void prepare_sweep_folder(const std::string& dir, const SweepManifest& manifest) {
  namespace fs = std::filesystem;
  if (fs::exists(dir) && !fs::is_directory(dir)) throw InputError(dir + ": exists and is not a folder");
  // Two sweeps started into one new folder at once: each looks while the other writes its manifest, and the loser
  // saw a folder neither empty nor a sweep's (issue 31). The folder is locked while it is looked at and prepared,
  // so the second sees the first's whole manifest: the same sweep goes on to its records (which say another vtsim
  // is writing them), another sweep is told so.
  fs::create_directories(dir);
  const int folder = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder < 0 || ::flock(folder, LOCK_EX) != 0) {
    if (folder >= 0) ::close(folder);
    throw InputError(dir + ": cannot open and lock the folder: " + std::strerror(errno));
  }
  struct Unlock {
    int fd;
    ~Unlock() { ::close(fd); }
  } unlock{folder};
  if (fs::is_regular_file(manifest_file(dir))) {
    const SweepManifest existing = read_manifest(dir);
    if (existing.fingerprint != manifest.fingerprint || existing.points != manifest.points ||
        existing.columns != manifest.columns) {
      throw InputError(dir + ": holds the results of another sweep (fingerprint " + existing.fingerprint +
                       ", from " + existing.sweep_file + "; this sweep's is " + manifest.fingerprint +
                       ": its scenario, \"set\", axes, derived fields or --set differ); choose another --out");
    }
    if (existing.shard.index != manifest.shard.index || existing.shard.count != manifest.shard.count) {
      throw InputError(dir + ": holds shard " + existing.shard.to_string() + " of this sweep, not " +
                       manifest.shard.to_string() + "; choose another --out");
    }
    return;
  }
  if (!fs::is_empty(dir)) {
    throw InputError(dir + ": is not empty and not a vtsim sweep folder (no sweep.json); choose a new or empty --out");
  }
  write_file_atomically(manifest_file(dir), manifest_json(manifest).dump(2) + "\n");
}

}  // namespace vtsim::tools
