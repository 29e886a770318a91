#include "calibrate/nccl_tests_importer.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "calibrate/collective_bandwidth.hpp"
#include "calibrate/log_text.hpp"
#include "models/collectives/collective_model.hpp"

namespace vtsim::calibrate {
namespace {

// Where each field sits in a data row, from the header line.
struct Columns {
  std::size_t size = 0;
  std::size_t type = 0;
  std::size_t redop = 0;
  std::optional<std::size_t> root;         // rooted collectives print their root; the others -1
  std::size_t time = 0;                    // out-of-place time; algbw, busbw, #wrong follow
  std::optional<std::size_t> in_place;     // in-place time
  std::size_t needed = 0;                  // tokens a row must have
  std::size_t header = 0;                  // the header's columns: a row has no more
};

struct RankLine {
  std::string host;
  int device = 0;
  std::string name;
};

std::optional<std::size_t> find_token(const std::vector<std::string_view>& tokens, std::size_t from,
                                      std::initializer_list<std::string_view> names) {
  for (std::size_t i = from; i < tokens.size(); ++i) {
    if (std::find(names.begin(), names.end(), tokens[i]) != names.end()) return i;
  }
  return std::nullopt;
}

std::optional<Columns> header_columns(const LogText& log, std::size_t index) {
  std::string_view line = log.line(index);
  line.remove_prefix(line.find('#') + 1);
  const std::vector<std::string_view> tokens = split_tokens(line);
  const auto size = find_token(tokens, 0, {"size", "bytes"});
  const auto time = find_token(tokens, 0, {"time", "cputime"});
  if (!size || !time || !find_token(tokens, 0, {"busbw"})) return std::nullopt;
  if (*time + 3 >= tokens.size() || tokens[*time + 1] != "algbw" || tokens[*time + 2] != "busbw") {
    log.fail(index, "expected 'time algbw busbw #wrong' in the column header");
  }
  Columns columns;
  columns.size = *size;
  const auto type = find_token(tokens, 0, {"type"});
  const auto redop = find_token(tokens, 0, {"redop", "op"});
  if (!type || !redop) log.fail(index, "expected 'type' and 'redop' in the column header");
  columns.type = *type;
  columns.redop = *redop;
  // nccl-tests prints the root before the times; a "root" anywhere else is not that column (a row need not reach it).
  if (const auto root = find_token(tokens, 0, {"root"}); root && *root < *time) columns.root = root;
  columns.time = *time;
  columns.needed = *time + 4;
  const auto in_place = find_token(tokens, *time + 4, {"time", "cputime"});
  if (in_place && *in_place + 3 < tokens.size()) {
    columns.in_place = *in_place;
    columns.needed = *in_place + 4;
  }
  // A row must reach every column read from it, wherever an odd header put them.
  columns.needed = std::max({columns.needed, columns.size + 1, columns.type + 1, columns.redop + 1});
  columns.header = tokens.size();
  return columns;
}

std::string nccl_version_from_code(std::int64_t code) {
  // NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z since 2.9, X*1000 + Y*100 + Z before (nccl.h).
  const std::int64_t major = code >= 20900 ? code / 10000 : code / 1000;
  const std::int64_t rest = code >= 20900 ? code % 10000 : code % 1000;
  return "NCCL " + std::to_string(major) + "." + std::to_string(rest / 100) + "." + std::to_string(rest % 100);
}

std::string join(const std::set<std::string>& names, std::string_view separator) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : std::string(separator)) + name;
  return text;
}

// nccl-tests' data type names (-d): a line whose type column holds one is a data row, however malformed its size.
bool is_nccl_tests_type(std::string_view token) {
  static const std::set<std::string_view> kTypes = {"int8",   "uint8",  "int32", "uint32",   "int64",  "uint64",
                                                    "half",   "float",  "double", "bfloat16", "f8e4m3", "f8e5m2",
                                                    "fp8_e4m3", "fp8_e5m2"};
  return kTypes.contains(token);
}

// The length of the rank prefix a launcher put before `line`: `srun -l`'s blanks, rank and colon ("  0: "), or
// `mpirun --tag-output`'s "[1,0]<stdout>:" (or <stderr>), each with one blank after it; 0 when there is none.
std::size_t launcher_prefix_length(std::string_view line) {
  LineCursor srun(line);
  srun.skip_spaces();
  if (!srun.take_digits().empty() && srun.take(":")) {
    srun.skip_one_space();
    return line.size() - srun.rest().size();
  }
  LineCursor mpirun(line);
  if (mpirun.take("[") && !mpirun.take_digits().empty() && mpirun.take(",") && !mpirun.take_digits().empty() &&
      mpirun.take("]<std") && (mpirun.take("out>:") || mpirun.take("err>:"))) {
    mpirun.skip_one_space();
    return line.size() - mpirun.rest().size();
  }
  return 0;
}

// The fields of a rank line, "#  Rank  0 Group  0 Pid  1234 on HOST device  0 [0000:07:00] NAME" (Group and Pid are
// absent in older versions): rank, host, device and the GPU's name (to the end of the line, trailing blanks off).
struct RankFields {
  std::string_view rank;
  std::string_view host;
  std::string_view device;
  std::string_view name;
};

std::optional<RankFields> rank_fields(std::string_view line) {
  LineCursor c(line);
  c.skip_spaces();
  if (!c.take("#")) return std::nullopt;
  c.skip_spaces();
  RankFields fields;
  if (!c.take("Rank") || c.skip_spaces() == 0) return std::nullopt;
  fields.rank = c.take_digits();
  if (fields.rank.empty() || c.skip_spaces() == 0) return std::nullopt;
  for (std::string_view optional : {"Group", "Pid"}) {
    LineCursor after = c;
    if (after.take(optional) && after.skip_spaces() > 0 && !after.take_digits().empty() && after.skip_spaces() > 0) {
      c = after;
    }
  }
  if (!c.take("on") || c.skip_spaces() == 0) return std::nullopt;
  fields.host = c.take_token();
  if (fields.host.empty() || c.skip_spaces() == 0 || !c.take("device") || c.skip_spaces() == 0) return std::nullopt;
  fields.device = c.take_digits();
  if (fields.device.empty() || c.skip_spaces() == 0 || !c.take("[") || !c.take_through(']') || c.skip_spaces() == 0) {
    return std::nullopt;
  }
  fields.name = c.rest();
  while (!fields.name.empty() && std::isspace(static_cast<unsigned char>(fields.name.back()))) {
    fields.name.remove_suffix(1);
  }
  if (fields.name.empty()) return std::nullopt;
  return fields;
}

// The first non-blank word after the first `marker` in `line` that has one ("Collective test starting: NAME").
std::optional<std::string_view> word_after(std::string_view line, std::string_view marker) {
  for (std::size_t at = line.find(marker); at != std::string_view::npos; at = line.find(marker, at + 1)) {
    LineCursor c(line.substr(at + marker.size()));
    c.skip_spaces();
    if (const std::string_view word = c.take_token(); !word.empty()) return word;
  }
  return std::nullopt;
}

// The digits after the first `marker` in `line` followed by one ("nccl-library=21805").
std::optional<std::string_view> digits_after(std::string_view line, std::string_view marker) {
  for (std::size_t at = line.find(marker); at != std::string_view::npos; at = line.find(marker, at + 1)) {
    LineCursor c(line.substr(at + marker.size()));
    if (const std::string_view digits = c.take_digits(); !digits.empty()) return digits;
  }
  return std::nullopt;
}

// The version of a line that starts (after blanks) "NCCL version 2.18.5+cuda12.2".
std::optional<std::string_view> nccl_version_line(std::string_view line) {
  LineCursor c(line);
  c.skip_spaces();
  if (!c.take("NCCL version") || c.skip_spaces() == 0) return std::nullopt;
  const std::string_view version = c.take_token();
  return version.empty() ? std::nullopt : std::optional<std::string_view>(version);
}

// The log's text without the rank prefixes launchers add to every line: `srun -l` ("  0: "), `mpirun --tag-output`
// ("[1,0]<stdout>:") and `mpirun --output-filename`-less Open MPI timestamps are not stripped. Line numbers stay.
std::string without_launcher_prefixes(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    out += line.substr(launcher_prefix_length(line));
    if (end < text.size()) out += '\n';
    start = end + 1;
  }
  return out;
}

// The collective a log measured, from its bus factor (busbw / algbw) and its reduction and root columns, when the
// log does not name it: 2(n-1)/n is all_reduce; (n-1)/n with a reduction reduce_scatter; 1 with a reduction reduce,
// with a root broadcast. all_gather and alltoall (both (n-1)/n, no reduction, no root) cannot be told apart.
std::optional<std::string> collective_from_factor(double factor, int ranks, bool reduces, bool rooted) {
  const auto near = [&](double expected) { return std::abs(factor - expected) <= 0.01 * expected; };
  // n = 2: 2(n-1)/n = 1, a sendrecv's factor too.
  if (ranks >= 2 && near(collective_sent_fraction(Collective::allreduce, ranks)) && !near(1.0)) return "all_reduce";
  if (ranks >= 2 && near(collective_sent_fraction(Collective::reduce_scatter, ranks)) && !near(1.0)) {
    return reduces ? std::optional<std::string>("reduce_scatter") : std::nullopt;
  }
  if (near(1.0)) {
    if (reduces) return ranks == 2 ? std::nullopt : std::optional<std::string>("reduce");
    if (rooted) return "broadcast";
  }
  return std::nullopt;
}

// Validation: nccl-tests prints the number of wrong elements, or N/A when it did not check.
void check_wrong(const LogText& log, std::size_t index, std::string_view token) {
  if (token == "N/A") return;
  if (log.number(index, token, "#wrong", 0) > 0) {
    log.fail(index, std::string(token) + " wrong elements: this run failed nccl-tests' validation");
  }
}

// The collective of a log that does not name it, from its fastest row's bus factor (precise enough at >= 5 GB/s) and
// the number of ranks its "#  Rank" lines give.
std::optional<std::string> infer_collective(const std::vector<std::pair<std::size_t, CollectivePoint>>& rows,
                                            std::size_t ranks, bool reduces, bool rooted) {
  if (ranks < 2 || rows.empty()) return std::nullopt;
  const auto& fastest = *std::max_element(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.algbw_gBps < b.second.algbw_gBps;
  });
  if (fastest.second.algbw_gBps < 5) return std::nullopt;
  return collective_from_factor(fastest.second.busbw_gBps / fastest.second.algbw_gBps, static_cast<int>(ranks), reduces,
                                rooted);
}

}  // namespace

CollectiveSeries import_nccl_tests(std::string_view text, const std::string& file, const NcclTestsOptions& options) {
  const LogText log(file, without_launcher_prefixes(text));

  std::map<int, RankLine> ranks;
  std::string program;
  std::string nccl;
  std::optional<Columns> columns;
  std::optional<std::pair<std::string, std::string>> type_and_op;
  std::vector<std::pair<std::size_t, CollectivePoint>> rows;  // with their line index
  std::map<std::int64_t, std::size_t> row_of_size;            // line of each size seen
  bool rooted = false;                                        // a row printed a root >= 0

  for (std::size_t i = 0; i < log.size(); ++i) {
    const std::string& line = log.line(i);
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (line[first] == '#') {
      if (const std::optional<RankFields> rank = rank_fields(line)) {
        ranks[static_cast<int>(log.integer(i, rank->rank, "rank", 0))] =
            RankLine{std::string(rank->host), static_cast<int>(log.integer(i, rank->device, "device", 0)),
                     std::string(rank->name)};
      } else if (const auto name = word_after(line, "Collective test starting:")) {
        program = *name;
      } else if (const auto code = digits_after(line, "nccl-library=")) {
        nccl = nccl_version_from_code(log.integer(i, *code, "nccl-library", 0));
      } else if (auto header = header_columns(log, i)) {
        // A second result table: two runs concatenated, or one log pasted twice.
        if (columns) log.fail(i, "a second nccl-tests result table: import one run per log");
        columns = header;
      }
      continue;
    }
    if (const auto version = nccl_version_line(line)) nccl = "NCCL " + std::string(*version);
    const std::vector<std::string_view> tokens = split_tokens(line);
    if (tokens.empty()) continue;  // only blanks that are not spaces or tabs (\r, \f, \v)
    // A data row: its size is a whole number, or its type column names a data type (a row whose size is malformed,
    // which must not be dropped without a word). Anything else is NCCL INFO/WARN output or launcher noise.
    const bool typed_row = columns && tokens.size() > columns->type && is_nccl_tests_type(tokens[columns->type]);
    if (!is_unsigned_integer(tokens[0]) && !typed_row) continue;
    if (!columns) log.fail(i, "data row before the nccl-tests column header ('#  size  count  type ...')");
    if (tokens.size() < columns->needed) {
      log.fail(i, "expected at least " + std::to_string(columns->needed) + " columns as the header says, got " +
                      std::to_string(tokens.size()));
    }
    if (tokens.size() > columns->header) {
      log.fail(i, "expected at most " + std::to_string(columns->header) + " columns as the header has, got " +
                      std::to_string(tokens.size()) + ": a column the header does not name would shift the others");
    }
    if (!is_unsigned_integer(tokens[columns->size])) {
      log.fail(i, "size: expected a whole number of bytes, got '" + std::string(tokens[columns->size]) + "'");
    }
    const std::pair<std::string, std::string> this_type(tokens[columns->type], tokens[columns->redop]);
    if (!type_and_op) type_and_op = this_type;
    if (*type_and_op != this_type) {
      log.fail(i, "rows of several data types or reductions ('" + type_and_op->first + " " + type_and_op->second +
                      "', then '" + this_type.first + " " + this_type.second + "'): import one -d/-o per log");
    }
    CollectivePoint point;
    point.bytes = log.integer(i, tokens[columns->size], "size", 0);
    if (point.bytes == 0) continue;  // nothing moved: no time to calibrate from
    point.time_us = log.number(i, tokens[columns->time], "time", 0);
    if (point.time_us <= 0) {
      log.fail(i, "time: expected a number > 0, got '" + std::string(tokens[columns->time]) + "'");
    }
    point.algbw_gBps = log.number(i, tokens[columns->time + 1], "algbw", 0);
    point.busbw_gBps = log.number(i, tokens[columns->time + 2], "busbw", 0);
    // algbw is size / time (nccl-tests doc/PERFORMANCE.md), both printed rounded: time to 2 decimals or 3 digits,
    // algbw to 2 decimals.
    const double expected_algbw = static_cast<double>(point.bytes) / (point.time_us * 1e3);
    if (std::abs(point.algbw_gBps - expected_algbw) > 0.011 + 0.02 * expected_algbw) {
      std::ostringstream message;
      message << "algbw " << point.algbw_gBps << " GB/s is not size / time = " << point.bytes << " B / "
              << point.time_us << " us = " << expected_algbw << " GB/s";
      log.fail(i, message.str());
    }
    if (const auto seen = row_of_size.find(point.bytes); seen != row_of_size.end()) {
      log.fail(i, "size " + std::to_string(point.bytes) + " again (first on line " + std::to_string(seen->second + 1) +
                      "): import one run per log");
    }
    row_of_size[point.bytes] = i;
    if (columns->root) rooted = rooted || log.integer(i, tokens[*columns->root], "root", -1) >= 0;
    check_wrong(log, i, tokens[columns->time + 3]);
    if (columns->in_place) {
      point.in_place_time_us = log.number(i, tokens[*columns->in_place], "in-place time", 0);
      check_wrong(log, i, tokens[*columns->in_place + 3]);
    }
    rows.emplace_back(i, point);
  }
  if (!columns) log.fail("no nccl-tests result table (no '#  size  count  type ... busbw' header line)");
  if (rows.empty()) log.fail("the nccl-tests result table has no rows");

  CollectiveSeries series;
  if (!options.op.empty()) {
    series.op = options.op;
  } else if (auto op = collective_in_name(program)) {
    series.op = *op;
  } else if (auto from_file = collective_in_name(file.substr(file.find_last_of('/') + 1))) {
    series.op = *from_file;
  } else if (auto inferred = infer_collective(rows, ranks.size(), type_and_op->second != "none", rooted)) {
    series.op = *inferred;
  } else {
    log.fail("cannot tell which collective this log measured (no 'Collective test starting' line, no collective in "
             "the file name, and busbw / algbw with its reduction and root columns does not say): pass --op");
  }
  if (std::find(collective_ops().begin(), collective_ops().end(), series.op) == collective_ops().end()) {
    log.fail("unknown collective '" + series.op + "'");
  }

  if (!ranks.empty()) {
    series.ranks = static_cast<int>(ranks.size());
  } else {
    const auto& fastest = *std::max_element(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
      return a.second.algbw_gBps < b.second.algbw_gBps;
    });
    // Printed with 2 decimals: at >= 5 GB/s the ratio is good to 0.2%, enough to tell n from n + 1 up to ~20.
    const double ratio = fastest.second.algbw_gBps >= 5 ? fastest.second.busbw_gBps / fastest.second.algbw_gBps : 0;
    const std::optional<int> inferred = ranks_for_bus_factor(series.op, ratio);
    if (!inferred) log.fail("no '#  Rank' lines, and busbw / algbw does not give the number of ranks");
    series.ranks = *inferred;
  }

  // busbw must be algbw x the op's factor: a mismatch means the log is from another collective than assumed.
  const double factor = bus_factor(series.op, series.ranks);
  for (const auto& [index, point] : rows) {
    if (point.algbw_gBps < 0.5) continue;  // printed with 2 decimals: too coarse to compare
    const double expected = point.algbw_gBps * factor;
    if (std::abs(point.busbw_gBps - expected) > 0.01 + 0.02 * expected) {
      std::ostringstream message;
      message << "busbw " << point.busbw_gBps << " is not algbw " << point.algbw_gBps << " x " << factor << " ("
              << series.op << " over " << series.ranks << " ranks, nccl-tests doc/PERFORMANCE.md): is this log "
              << "from another collective (--op)?";
      log.fail(index, message.str());
    }
  }

  std::set<std::string> hosts;
  std::set<std::string> devices;
  for (const auto& [rank, info] : ranks) {
    hosts.insert(info.host);
    devices.insert(info.name);
  }
  if (!hosts.empty()) series.hosts = static_cast<int>(hosts.size());
  if (hosts.size() == 1) {
    for (const auto& [rank, info] : ranks) series.gpus.push_back(info.device);
  }
  for (const auto& [index, point] : rows) series.points.push_back(point);
  series.provenance.tool = "nccl-tests " + (program.empty() ? series.op + "_perf" : program);
  series.provenance.device = join(devices, ", ");
  series.provenance.driver = nccl;
  series.provenance.host = hosts.size() <= 1 ? join(hosts, "") : std::to_string(hosts.size()) + " hosts: " +
                                                                       join(hosts, ", ");
  series.provenance.notes = "data type " + type_and_op->first + ", reduction " + type_and_op->second;
  return series;
}

}  // namespace vtsim::calibrate
