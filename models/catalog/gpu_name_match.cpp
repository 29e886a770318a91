#include "models/catalog/gpu_name_match.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

#include "models/catalog/gpu_catalog.hpp"

namespace vtsim {
namespace {

std::set<std::string> name_tokens(std::string_view name) {
  std::set<std::string> tokens;
  std::string current;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      current += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!current.empty()) {
      tokens.insert(current);
      current.clear();
    }
  }
  if (!current.empty()) tokens.insert(current);
  for (const char* vendor : {"nvidia", "tesla", "quadro", "geforce"}) tokens.erase(vendor);
  return tokens;
}

// "sxm", "sxm2", "sxm4", "sxm5" -> "sxm"; "pcie" -> "pcie"; "" when the token is no form factor.
std::string form_factor(const std::string& token) {
  if (token.rfind("sxm", 0) == 0) return "sxm";
  if (token == "pcie" || token == "nvl") return token;
  return "";
}

bool is_model_token(const std::string& token) {
  // a100, h100, h200, v100, p100, t4, l40s, b200, rtx (Quadro RTX 6000 / 8000 carry their number as a separate
  // token): a letter, then a digit somewhere.
  const bool letters_then_digits =
      token.size() >= 2 && std::isalpha(static_cast<unsigned char>(token[0])) &&
      std::any_of(token.begin(), token.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
  const bool memory_kind = token.rfind("hbm", 0) == 0 || token.rfind("gddr", 0) == 0;  // "HBM3", "GDDR6"
  const bool model_number = token.size() >= 3 && std::all_of(token.begin(), token.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });  // "6000" of Quadro RTX 6000
  return (letters_then_digits && form_factor(token).empty() && !memory_kind) || token == "rtx" || model_number;
}

}  // namespace

std::string catalog_gpu_for(std::string_view device_name) {
  const std::set<std::string> device = name_tokens(device_name);
  std::vector<std::string> models;
  std::string device_form;
  for (const std::string& token : device) {
    if (is_model_token(token)) models.push_back(token);
    if (!form_factor(token).empty()) device_form = form_factor(token);
  }
  if (models.empty()) return "";
  int best_score = -1;
  std::vector<std::string> best;
  for (const GpuSpec& gpu : gpu_catalog()) {
    const std::set<std::string> catalog = name_tokens(gpu.name);
    const bool same_model = std::all_of(models.begin(), models.end(),
                                        [&](const std::string& model) { return catalog.count(model) > 0; });
    if (!same_model) continue;
    std::string catalog_form;
    for (const std::string& token : catalog) {
      if (!form_factor(token).empty()) catalog_form = form_factor(token);
    }
    if (!device_form.empty() && !catalog_form.empty() && device_form != catalog_form) continue;
    // The driver names a PCIe or NVL card so ("NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA A100-PCIE-40GB"); a
    // name without a form factor is the SXM part ("NVIDIA H100 80GB HBM3", "NVIDIA H200") or a card of one form only.
    if (device_form.empty() && (catalog_form == "pcie" || catalog_form == "nvl")) continue;
    int score = 0;
    for (const std::string& token : device) score += catalog.count(token) > 0 ? 1 : 0;
    if (score > best_score) {
      best_score = score;
      best = {gpu.id};
    } else if (score == best_score) {
      best.push_back(gpu.id);
    }
  }
  return best.size() == 1 ? best.front() : "";
}

}  // namespace vtsim
