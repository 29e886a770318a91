#include "calibrate/kernel_measurements.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <utility>

#include "models/catalog/gpu_catalog.hpp"
#include "models/catalog/gpu_name_match.hpp"
#include "models/core/csv.hpp"
#include "models/core/error.hpp"
#include "models/core/input_file.hpp"
#include "models/core/nearest_name.hpp"
#include "models/traces/chakra_trace.hpp"

namespace vtsim::calibrate {
namespace {

// The data's columns about the kernel the library chose and the software that ran it: read past, but for a
// convolution's `Kernels`, which says which algorithm cuDNN ran (read_ran_algorithm).
const std::vector<std::string>& informational_columns() {
  static const std::vector<std::string> columns = {
      "Torch Version", "CUDNN Version", "Kernel Name", "Warps per SM", "Blocks per SM", "Grid x",  "Grid y",
      "Grid z",        "Block x",       "Block y",     "Block z",      "CUDA Version",  "Kernels"};
  return columns;
}

// What each operator is and which dimension columns it needs.
struct OperatorKind {
  KernelFamily family;
  double tensors;  ///< memory-bound passes: tensors read and written
  std::vector<std::string> columns;
};

const std::map<std::string, OperatorKind>& operators() {
  static const std::map<std::string, OperatorKind> kinds = {
      {"linear", {KernelFamily::gemm, 0, {"B", "M", "N", "K"}}},
      {"bmm", {KernelFamily::batched_gemm, 0, {"B", "M", "N", "K"}}},
      {"conv",
       {KernelFamily::convolution,
        0,
        {"B", "Input_Channel", "Output_Channel", "Kernel_Size", "Input_Size", "Stride", "Padding"}}},
      {"add", {KernelFamily::elementwise, 3, {"B", "H"}}},
      {"mul", {KernelFamily::elementwise, 3, {"B", "H"}}},
      {"relu", {KernelFamily::elementwise, 2, {"B", "H"}}},
      {"gelu", {KernelFamily::elementwise, 2, {"B", "H"}}},
      {"softmax", {KernelFamily::softmax, 2, {"B", "H"}}},
      {"ln", {KernelFamily::layer_norm, 2, {"B", "H"}}},
  };
  return kinds;
}

std::vector<std::string> known_columns() {
  std::vector<std::string> columns = {"OPName", "Latency", "Device", "Precision", "Kernel_Szie"};
  for (const auto& [name, kind] : operators()) {
    for (const std::string& column : kind.columns) {
      if (std::find(columns.begin(), columns.end(), column) == columns.end()) columns.push_back(column);
    }
  }
  for (const std::string& column : informational_columns()) columns.push_back(column);
  return columns;
}

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

// What a numeric column must hold.
enum class Expected { dimension, padding, positive };

std::string describe(Expected expected) {
  switch (expected) {
    case Expected::dimension: return "an integer >= 1";
    case Expected::padding: return "an integer >= 0";
    case Expected::positive: return "a number > 0";
  }
  return "";
}

// A row's fields by column, with its place for messages.
class Row {
 public:
  Row(const std::vector<std::string>& fields, const std::map<std::string, std::size_t>& columns, std::string where)
      : fields_(fields), columns_(columns), where_(std::move(where)) {}

  const std::string& where() const { return where_; }
  bool has(const std::string& column) const {
    const auto found = columns_.find(column);
    return found != columns_.end() && found->second < fields_.size() && !trimmed(fields_[found->second]).empty();
  }
  std::string text(const std::string& column) const {
    if (!has(column)) throw InputError(where_ + ": column " + column + " is empty or missing");
    return trimmed(fields_[columns_.at(column)]);
  }
  /// The column's value, which must be `expected`.
  double number(const std::string& column, Expected expected) const {
    const std::string value = text(column);
    double parsed = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    bool valid = error == std::errc() && end == value.data() + value.size() && std::isfinite(parsed);
    switch (expected) {
      case Expected::dimension: valid = valid && parsed >= 1 && parsed == std::floor(parsed); break;
      case Expected::padding: valid = valid && parsed >= 0 && parsed == std::floor(parsed); break;
      case Expected::positive: valid = valid && parsed > 0; break;
    }
    if (!valid) {
      throw InputError(where_ + ": column " + column + ": expected " + describe(expected) + ", got '" + value + "'");
    }
    return parsed;
  }

 private:
  const std::vector<std::string>& fields_;
  const std::map<std::string, std::size_t>& columns_;
  std::string where_;
};

// A row's `Precision` (vtsim's column; NeuSight's rows are all fp32 and have none): fp16 and bf16 products ran on
// the tensor cores (tensor_gemm, tensor_convolution), and every operand is 2 bytes; tf32 (fp32 tensors with
// PyTorch's allow_tf32 flags on, calibrate/gpu_harness/measure_kernels.py) ran its products on the tensor cores
// with 4-byte operands, and its memory-bound passes as fp32.
void read_precision(const Row& row, KernelShape& shape) {
  const std::string precision = row.text("Precision");
  if (precision == "fp32") return;
  if (precision == "tf32") {
    if (is_matrix_product(shape.family)) shape = on_tensor_cores(shape, 4);
    return;
  }
  if (precision != "fp16" && precision != "bf16") {
    throw InputError(row.where() + ": Precision '" + precision + "': expected fp32, tf32, fp16 or bf16");
  }
  shape = on_tensor_cores(shape);
}

// A row whose product ran on tensor cores its GPU does not have (16-bit ones before Volta, TF32 before Ampere) is
// refused with its line: it was not measured there, and no time can be predicted for it there.
void refuse_a_path_the_gpu_lacks(const Row& row, const MeasuredKernel& kernel) {
  if (kernel.gpu_id.empty() || !runs_on_tensor_cores(kernel.shape.family)) return;
  const GpuSpec* gpu = find_gpu(kernel.gpu_id);
  if (gpu == nullptr) return;  // an unknown --gpu is the caller's to refuse
  const bool tf32 = is_tf32(kernel.shape);
  if (tf32 ? !has_tf32_tensor_cores(gpu->architecture) : !has_tensor_cores(gpu->architecture)) {
    throw InputError(row.where() + ": Precision '" + row.text("Precision") + "' on " + kernel.gpu_id +
                     ", which has no " + (tf32 ? "TF32 tensor cores (before Ampere)" : "tensor cores"));
  }
}

KernelShape shape_of(const OperatorKind& kind, const Row& row) {
  const auto dimension = [&](const std::string& column) { return row.number(column, Expected::dimension); };
  KernelShape shape;
  shape.family = kind.family;
  switch (kind.family) {
    case KernelFamily::gemm:  // rows B x M, reduction N, columns K (the weight is K x N)
      shape.m = dimension("B") * dimension("M");
      shape.k = dimension("N");
      shape.n = dimension("K");
      return shape;
    case KernelFamily::batched_gemm:
    case KernelFamily::tensor_gemm:  // no NeuSight operator is one; kept with the products it shares columns with
      shape.batch = dimension("B");
      shape.m = dimension("M");
      shape.k = dimension("N");
      shape.n = dimension("K");
      return shape;
    case KernelFamily::convolution:
    case KernelFamily::tensor_convolution: {  // no NeuSight operator is one; read as the convolution it is
      const std::string kernel_column = row.has("Kernel_Size") ? "Kernel_Size" : "Kernel_Szie";
      const double kernel = dimension(kernel_column);
      const double size = dimension("Input_Size");
      const double padding = row.number("Padding", Expected::padding);
      if (size + 2 * padding < kernel) {
        throw InputError(row.where() + ": the " + std::to_string(static_cast<int>(kernel)) +
                         "-wide kernel does not fit the padded input");
      }
      return convolution_gemm(dimension("B"), dimension("Input_Channel"), dimension("Output_Channel"), kernel, size,
                              dimension("Stride"), padding);
    }
    case KernelFamily::elementwise:
    case KernelFamily::softmax:
    case KernelFamily::layer_norm:
      shape.elements = dimension("B") * dimension("H");
      shape.tensors = kind.tensors;
      return shape;
  }
  return shape;
}

// DeepBench's results: the GPU its file is named for (data/kernels/README.md, from each machine's specs file).
std::string deepbench_gpu(const std::string& file) {
  const std::string name = std::filesystem::path(file).filename().string();
  for (const auto& [prefix, id] : {std::pair{"v100-", "v100-sxm2-16gb"},  // v100-specs.csv: NVIDIA DGX-1
                                   std::pair{"t4-", "t4"},
                                   std::pair{"p100-", "p100-pcie-16gb"}}) {  // p100-specs.csv: an X99 workstation
    if (name.rfind(prefix, 0) == 0) return id;
  }
  return "";
}

// Where a DeepBench results file's sections keep their columns (by position; the first is the section's name).
// Dense Matrix Multiplication: source, M, N, K, A and B transposes, -, time (ms); C = A (M x K) x B (K x N).
const std::map<std::string, std::size_t>& deepbench_gemm_columns() {
  static const std::map<std::string, std::size_t> columns = {{"M", 2}, {"N", 3}, {"K", 4}, {"Time (msec)", 8}};
  return columns;
}
// Convolution: its columns are named in a row of their own under the section's name (conv_bench.cu: N images of
// C x H x W by K filters C x R x S), in an order that differs between files: the V100's and T4's have W, H, C, N, K,
// S (Filter width), R (Filter height), pad_w, pad_h, Horizontal stride, Vertical stride, the P100's W, H, C, N, K, R,
// S, pad_h, pad_w, Vertical stride, Horizontal stride; then the forward time (ms), the two backward times ("wrt
// Inputs", "wrt Parameters"), -, P, Q, total time, three TFLOP/s figures and the forward algorithm cuDNN chose.
// Columns by the names read_deepbench_convolution asks for, from that row: the P100's bare R and S taken for the
// others' "R (Filter height)" and "S (Filter width)". Throws InputError naming `where` when one is missing.
std::map<std::string, std::size_t> deepbench_convolution_columns(const std::vector<std::string>& header,
                                                                 const std::string& where) {
  std::map<std::string, std::size_t> columns;
  for (std::size_t i = 1; i < header.size(); ++i) {
    std::string name = trimmed(header[i]);
    if (name == "R") name = "R (Filter height)";
    if (name == "S") name = "S (Filter width)";
    if (!name.empty() && !columns.emplace(name, i).second) {
      throw InputError(where + ": the Convolution section names column '" + name + "' twice");
    }
  }
  for (const char* required :
       {"W", "H", "C", "N", "K", "S (Filter width)", "R (Filter height)", "pad_w", "pad_h", "Horizontal stride",
        "Vertical stride", "Forward (msec)", "wrt Inputs (msec)", "wrt Parameters (msec)", "Forward Algorithm"}) {
    if (!columns.contains(required)) {
      throw InputError(where + ": the Convolution section's column names lack '" + required + "'");
    }
  }
  return columns;
}

// read_ran_algorithm, then Winograd on a shape the model has no Winograd form for (cuDNN has 5 x 5 ones; the model
// has none on the tensor cores) taken as not modelled.
void read_convolution_algorithm(const std::string& names, MeasuredKernel& kernel) {
  read_ran_algorithm(names, kernel);
  if (kernel.ran && *kernel.ran != ConvolutionAlgorithm::implicit_gemm && !kernel.shape.winograd) {
    kernel.ran.reset();
    kernel.ran_unmodelled = true;
  }
}

// A DeepBench convolution row's forward pass, its algorithm read from the row's name for it (as NeuSight's kernel
// names are: IMPLICIT_PRECOMP_GEMM and the like an implicit GEMM, WINOGRAD the fused F(2x2, 3x3), WINOGRAD_NONFUSED
// F(4x4, 3x3), FFT* not modelled).
void read_deepbench_convolution(const Row& row, MeasuredKernel& kernel) {
  const auto dimension = [&](const std::string& column) { return row.number(column, Expected::dimension); };
  const ConvolutionDimensions d{.images = dimension("N"),
                                .in_channels = dimension("C"),
                                .out_channels = dimension("K"),
                                .width = dimension("W"),
                                .height = dimension("H"),
                                .filter_width = dimension("S (Filter width)"),
                                .filter_height = dimension("R (Filter height)"),
                                .stride_width = dimension("Horizontal stride"),
                                .stride_height = dimension("Vertical stride"),
                                .pad_width = row.number("pad_w", Expected::padding),
                                .pad_height = row.number("pad_h", Expected::padding)};
  if (d.width + 2 * d.pad_width < d.filter_width || d.height + 2 * d.pad_height < d.filter_height) {
    throw InputError(row.where() + ": the filter does not fit the padded input");
  }
  // The file's precision as its GEMMs' family says it (read_deepbench's `base`).
  const bool tensor_cores = kernel.shape.family == KernelFamily::tensor_gemm;
  const double element_bytes = kernel.shape.element_bytes;
  kernel.op = "conv";
  kernel.shape = convolution_gemm(d);
  kernel.shape.element_bytes = element_bytes;
  if (tensor_cores) kernel.shape = on_tensor_cores(kernel.shape);
  kernel.latency_s = row.number("Forward (msec)", Expected::positive) * 1e-3;
  read_convolution_algorithm(row.text("Forward Algorithm"), kernel);
  kernel.convolution_shape = convolution_shape(static_cast<int>(d.filter_height), static_cast<int>(d.filter_width),
                                               static_cast<int>(d.stride_height), static_cast<int>(d.stride_width));
  const auto gradient = [&](const std::string& column) -> std::optional<double> {
    if (!row.has(column) || row.text(column) == "N/A*") return std::nullopt;
    return row.number(column, Expected::positive) * 1e-3;
  };
  // A layer that reads the data (at most 3 input channels: an image, a spectrogram) computes no input gradient: the
  // V100 and T4 files write "N/A*" for those rows ("* = The backward pass wrt inputs is excluded for these
  // kernels"), the P100's times them anyway; left out of every file alike.
  if (d.in_channels > 3) kernel.input_gradient_s = gradient("wrt Inputs (msec)");
  kernel.weight_gradient_s = gradient("wrt Parameters (msec)");
}

// The GEMMs and the convolutions of a DeepBench results file, in the family its `Precision` row names (on the tensor
// cores: tensor_gemm and tensor_convolution): their forward passes as kernels, with the convolutions' gradient times
// beside them. The file's other sections (recurrent layers, all-reduce) are not read.
std::vector<MeasuredKernel> read_deepbench(const std::vector<std::vector<std::string>>& records,
                                           const std::string& file, const std::string& gpu_id) {
  const std::string precision = records.front().size() > 1 ? trimmed(records.front()[1]) : "";
  KernelShape base;
  if (precision == "Float") {
    base.family = KernelFamily::gemm;
  } else if (precision == "16 bit inputs, 16 bit multiplication, 32 bit addition") {
    base.family = KernelFamily::tensor_gemm;  // tensor cores, fp32 accumulate ("mixed math")
    base.element_bytes = 2;
  } else if (precision == "16 bit inputs, 32 bit multiplication, 32 bit addition") {
    base.family = KernelFamily::gemm;  // fp32 arithmetic on 16-bit storage
    base.element_bytes = 2;
  } else {
    throw InputError(file + ":1: DeepBench precision '" + precision + "' is none vtsim reads");
  }
  const std::string gpu = gpu_id.empty() ? deepbench_gpu(file) : gpu_id;
  if (gpu.empty()) {
    throw InputError(file + ": a DeepBench file not named for its GPU (v100-, t4-, p100-): name it (--gpu)");
  }
  const GpuSpec* spec = find_gpu(gpu);
  if (spec == nullptr) throw InputError(file + ": unknown GPU '" + gpu + "' (see `vtsim catalog gpus`)");
  if (base.family == KernelFamily::tensor_gemm && !has_tensor_cores(spec->architecture)) {
    throw InputError(file + ":1: tensor-core kernels (mixed math), but " + gpu + " has no tensor cores");
  }
  enum class Section { other, gemms, convolutions };
  std::vector<MeasuredKernel> kernels;
  Section section = Section::other;
  std::optional<std::map<std::string, std::size_t>> convolution_columns;  // from the section's row of names
  for (std::size_t r = 1; r < records.size(); ++r) {
    const std::vector<std::string>& fields = records[r];
    const std::string name = fields.empty() ? "" : trimmed(fields.front());
    if (!name.empty()) {
      section = name == "Dense Matrix Multiplication" ? Section::gemms
                : name == "Convolution"               ? Section::convolutions
                                                      : Section::other;
      continue;
    }
    const bool blank =
        std::all_of(fields.begin(), fields.end(), [](const std::string& f) { return trimmed(f).empty(); });
    if (section == Section::other || blank) continue;
    const int line = static_cast<int>(r) + 1;
    const std::string where = file + ":" + std::to_string(line);
    // The convolutions' column names are a row of their own under the section's name, and a footnote ("* = The
    // backward pass wrt inputs is excluded ...") ends the section.
    if (section == Section::convolutions && fields.size() > 2 && trimmed(fields[2]) == "W") {
      convolution_columns = deepbench_convolution_columns(fields, where);
      continue;
    }
    const auto first =
        std::find_if(fields.begin(), fields.end(), [](const std::string& f) { return !trimmed(f).empty(); });
    if (trimmed(*first).starts_with("*")) continue;
    const bool gemm = section == Section::gemms;
    if (!gemm && !convolution_columns) {
      throw InputError(where + ": a Convolution row before the section's row of column names (W, H, C, ...)");
    }
    const Row row(fields, gemm ? deepbench_gemm_columns() : *convolution_columns, where);
    MeasuredKernel kernel;
    kernel.file = file;
    kernel.line = line;
    kernel.gpu_id = gpu;
    kernel.shape = base;
    if (gemm) {
      kernel.op = "gemm";
      kernel.shape.m = row.number("M", Expected::dimension);
      kernel.shape.n = row.number("N", Expected::dimension);
      kernel.shape.k = row.number("K", Expected::dimension);
      kernel.latency_s = row.number("Time (msec)", Expected::positive) * 1e-3;
    } else {
      read_deepbench_convolution(row, kernel);
    }
    kernels.push_back(std::move(kernel));
  }
  if (kernels.empty()) throw InputError(file + ": no Dense Matrix Multiplication or Convolution rows");
  return kernels;
}

}  // namespace

void read_ran_algorithm(const std::string& kernel_names, MeasuredKernel& kernel) {
  std::string names = kernel_names;
  std::transform(names.begin(), names.end(), names.begin(), [](unsigned char c) { return std::tolower(c); });
  const auto has = [&](std::string_view part) { return names.find(part) != std::string::npos; };
  kernel.ran.reset();
  kernel.ran_unmodelled = false;
  if (has("winograd_nonfused") || has("winogradforward")) {
    kernel.ran = ConvolutionAlgorithm::winograd_4x4;
  } else if (has("winograd")) {
    kernel.ran = ConvolutionAlgorithm::winograd_2x2;
  } else if (has("fft") || has("gcgemm")) {
    kernel.ran_unmodelled = true;
  } else {
    kernel.ran = ConvolutionAlgorithm::implicit_gemm;
  }
}

std::vector<MeasuredKernel> read_kernel_csv(std::string_view text, const std::string& file,
                                            const std::string& gpu_id) {
  if (!gpu_id.empty() && find_gpu(gpu_id) == nullptr) {
    throw InputError(file + ": unknown GPU '" + gpu_id + "' (see `vtsim catalog gpus`)");
  }
  const std::string inflated = gunzip_if_compressed(text, file);
  const std::vector<std::vector<std::string>> records = parse_csv(inflated, file);
  if (records.empty()) throw InputError(file + ": empty: expected a header line naming OPName and the dimensions");
  if (!records.front().empty() && trimmed(records.front().front()) == "Precision") {
    return read_deepbench(records, file, gpu_id);
  }
  std::map<std::string, std::size_t> columns;
  const std::vector<std::string> known = known_columns();
  for (std::size_t i = 0; i < records.front().size(); ++i) {
    const std::string column = trimmed(records.front()[i]);
    if (std::find(known.begin(), known.end(), column) == known.end()) {
      throw InputError(file + ":1: unknown column '" + column + "'" + did_you_mean(column, known));
    }
    if (const auto [first, added] = columns.emplace(column, i); !added) {
      throw InputError(file + ":1: column '" + column + "' named twice (fields " + std::to_string(first->second + 1) +
                       " and " + std::to_string(i + 1) + ")");
    }
  }
  if (!columns.count("OPName")) throw InputError(file + ":1: no OPName column");
  if (!columns.count("Device") && gpu_id.empty()) {
    throw InputError(file + ":1: no Device column: name the GPU (--gpu)");
  }
  std::vector<std::string> operator_names;
  for (const auto& [name, kind] : operators()) operator_names.push_back(name);
  std::map<std::string, std::string> device_ids;  // Device column value -> catalog id
  std::vector<MeasuredKernel> kernels;
  for (std::size_t r = 1; r < records.size(); ++r) {
    const std::vector<std::string>& fields = records[r];
    if (fields.size() == 1 && trimmed(fields.front()).empty()) continue;  // a blank line
    const int line = static_cast<int>(r) + 1;
    const Row row(fields, columns, file + ":" + std::to_string(line));
    if (fields.size() != records.front().size()) {
      throw InputError(row.where() + ": " + std::to_string(fields.size()) + " fields, the header has " +
                       std::to_string(records.front().size()));
    }
    MeasuredKernel kernel;
    kernel.file = file;
    kernel.line = line;
    kernel.op = row.text("OPName");
    const auto kind = operators().find(kernel.op);
    if (kind == operators().end()) {
      throw InputError(row.where() + ": unknown operator '" + kernel.op + "'" +
                       did_you_mean(kernel.op, operator_names));
    }
    kernel.shape = shape_of(kind->second, row);
    if (row.has("Precision")) read_precision(row, kernel.shape);
    if (is_convolution(kernel.shape.family) && row.has("Kernels")) {
      read_convolution_algorithm(row.text("Kernels"), kernel);
    }
    if (row.has("Latency")) kernel.latency_s = row.number("Latency", Expected::positive) * 1e-3;
    kernel.gpu_id = gpu_id;
    if (columns.count("Device")) {
      const std::string device = row.text("Device");
      auto found = device_ids.find(device);
      if (found == device_ids.end()) found = device_ids.emplace(device, catalog_gpu_for(device)).first;
      if (found->second.empty()) {
        throw InputError(row.where() + ": Device '" + device + "' matches no catalog GPU (see `vtsim catalog gpus`)");
      }
      kernel.gpu_id = found->second;
    }
    refuse_a_path_the_gpu_lacks(row, kernel);
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

std::vector<MeasuredKernel> read_kernel_folder(const std::string& folder) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(folder, error)) throw InputError(folder + ": not a folder of kernel CSV files");
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    const bool csv = name.ends_with(".csv") || name.ends_with(".csv.gz");
    if (entry.is_regular_file() && csv) files.push_back(entry.path().string());
  }
  if (files.empty()) throw InputError(folder + ": no .csv or .csv.gz files");
  std::sort(files.begin(), files.end());
  std::vector<MeasuredKernel> kernels;
  for (const std::string& file : files) {
    std::vector<MeasuredKernel> more = read_kernel_csv(read_input_file(file), file);
    kernels.insert(kernels.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  return kernels;
}

std::vector<MeasuredKernel> read_kernel_paths(const std::vector<std::string>& paths, const std::string& gpu_id) {
  std::vector<MeasuredKernel> kernels;
  for (const std::string& path : paths) {
    std::error_code error;
    std::vector<MeasuredKernel> more = std::filesystem::is_directory(path, error)
                                           ? read_kernel_folder(path)
                                           : read_kernel_csv(read_input_file(path), path, gpu_id);
    kernels.insert(kernels.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  return kernels;
}

}  // namespace vtsim::calibrate
