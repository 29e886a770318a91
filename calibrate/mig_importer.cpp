#include "calibrate/mig_importer.hpp"

#include <limits>

#include "calibrate/log_text.hpp"

namespace vtsim::calibrate {
namespace {

constexpr std::int64_t kMaxCount = std::numeric_limits<std::int32_t>::max();

// The cells of a boxed line "| a b c |" (without the borders); empty for rules and lines outside the box.
std::vector<std::string_view> box_cells(std::string_view line) {
  const std::size_t open = line.find('|');
  const std::size_t close = line.rfind('|');
  if (open == std::string_view::npos || close == open) return {};
  return split_tokens(line.substr(open + 1, close - open - 1));
}

int count(const LogText& log, std::size_t line, std::string_view token, std::string_view what) {
  return static_cast<int>(log.integer(line, token, what, 0, kMaxCount));
}

}  // namespace

MigSection import_mig_profiles(std::string_view text, const std::string& file) {
  const LogText log(file, text);
  std::optional<std::size_t> table;  // the "|====|" rule under the column headers
  for (std::size_t i = 0; i < log.size(); ++i) {
    if (log.line(i).find("No MIG-supported devices found") != std::string::npos) {
      log.fail(i, "no MIG profiles: nvidia-smi found no MIG-capable GPU");
    }
    if (log.line(i).find("GPU instance profiles") != std::string::npos) {
      for (std::size_t j = i + 1; j < log.size() && !table; ++j) {
        if (log.line(j).find("|===") != std::string::npos) table = j;
      }
      break;
    }
  }
  if (!table) log.fail("not `nvidia-smi mig -lgip` output (no 'GPU instance profiles:' table)");

  MigSection mig;
  mig.provenance.tool = "nvidia-smi mig -lgip";
  for (std::size_t i = *table + 1; i < log.size(); ++i) {
    const std::vector<std::string_view> cells = box_cells(log.line(i));
    if (cells.empty()) continue;  // rules between profiles, the closing rule, lines after the table
    // GPU, "MIG", name, ID, free/total, memory GiB, P2P, SM, DEC, ENC
    if (cells.size() != 10 || cells[1] != "MIG") {
      log.fail(i, "expected a profile line 'GPU MIG NAME ID FREE/TOTAL MEMORY P2P SM DEC ENC', got " +
                      std::to_string(cells.size()) + " cells");
    }
    MigProfileRow row;
    row.gpu = count(log, i, cells[0], "GPU");
    row.name = std::string(cells[2]);
    row.id = count(log, i, cells[3], "ID");
    const std::size_t slash = cells[4].find('/');
    if (slash == std::string_view::npos) {
      log.fail(i, "Instances: expected FREE/TOTAL, got '" + std::string(cells[4]) + "'");
    }
    row.instances_free = count(log, i, cells[4].substr(0, slash), "Instances Free");
    row.instances_total = count(log, i, cells[4].substr(slash + 1), "Instances Total");
    row.memory_gib = log.number(i, cells[5], "Memory GiB", 0);
    if (row.memory_gib <= 0) log.fail(i, "Memory GiB: expected a number > 0, got '" + std::string(cells[5]) + "'");
    if (cells[6] != "Yes" && cells[6] != "No") {
      log.fail(i, "P2P: expected Yes or No, got '" + std::string(cells[6]) + "'");
    }
    row.p2p = cells[6] == "Yes";
    row.sms = count(log, i, cells[7], "SM");
    if (row.sms < 1) log.fail(i, "SM: expected an integer >= 1, got '" + std::string(cells[7]) + "'");
    row.dec = count(log, i, cells[8], "DEC");
    row.enc = count(log, i, cells[9], "ENC");
    // The profile's second line: CE, JPEG, OFA.
    const std::size_t next = i + 1;
    const std::vector<std::string_view> engines = next < log.size() ? box_cells(log.line(next)) : cells;
    if (next >= log.size() || engines.size() != 3) {
      log.fail(next < log.size() ? next : i, "expected the profile's second line 'CE JPEG OFA' after " + row.name);
    }
    row.ce = count(log, next, engines[0], "CE");
    row.jpeg = count(log, next, engines[1], "JPEG");
    row.ofa = count(log, next, engines[2], "OFA");
    mig.profiles.push_back(row);
    i = next;
  }
  if (mig.profiles.empty()) log.fail(*table, "the MIG profile table has no profiles");
  return mig;
}

}  // namespace vtsim::calibrate
