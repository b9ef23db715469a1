// The parity data of tests/model/data (written by make_models.py and
// lightgbm_cases.py): rows and the outputs the real library gave, as float32
// bits; and the check that both evaluators give exactly those bits.
#ifndef CALCJIT_TESTS_MODEL_PARITY_CASES_H_
#define CALCJIT_TESTS_MODEL_PARITY_CASES_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/format_table.h"
#include "model/tree/block_evaluator.h"
#include "model/tree/reference_evaluator.h"
#include "model/tree/tree_model.h"

namespace calcjit::model::testing {

struct ParityCases {
  std::size_t rows = 0;
  std::vector<std::vector<float>> features;      // [feature][row]
  std::vector<std::vector<std::uint32_t>> bits;  // expected [output][row]
};

inline std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The model files beside a parity case BASE.cases: BASE with each extension
// of the format table (calcjit/model_formats.def) that exists, e.g. the same
// XGBoost model as BASE.json and BASE.ubj.
inline std::vector<std::string> ModelFilesOf(const std::string& base) {
  std::vector<std::string> paths;
  for (const FormatRow& row : kFormatRows) {
    std::string_view extensions = row.extensions;
    while (!extensions.empty()) {
      const std::size_t space = extensions.find(' ');
      const std::string path = base + std::string(extensions.substr(0, space));
      // Two formats may claim an extension (.json): each file once.
      if (std::filesystem::exists(path) &&
          std::find(paths.begin(), paths.end(), path) == paths.end()) {
        paths.push_back(path);
      }
      if (space == std::string_view::npos) break;
      extensions.remove_prefix(space + 1);
    }
  }
  return paths;
}

// The first of them, or a name that says there is none.
inline std::string ModelFileOf(const std::string& base) {
  const std::vector<std::string> paths = ModelFilesOf(base);
  return paths.empty() ? base + " (no model file)" : paths.front();
}

// Lines "<feature bits> : <output bits>", '#' comments; "" or an error.
inline std::string ReadCases(const std::string& path, std::uint32_t num_features,
                             std::uint32_t num_outputs, ParityCases* cases) {
  std::ifstream in(path);
  if (!in) return "cannot open " + path;
  cases->features.assign(num_features, {});
  cases->bits.assign(num_outputs, {});
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string token;
    std::vector<std::uint32_t> values;
    std::size_t colon = 0;
    while (fields >> token) {
      if (token == ":") {
        colon = values.size();
        continue;
      }
      values.push_back(static_cast<std::uint32_t>(std::strtoul(token.c_str(), nullptr, 16)));
    }
    if (colon != num_features || values.size() != num_features + num_outputs) {
      return path + ":" + std::to_string(line_number) + ": expected " +
             std::to_string(num_features) + " features and " + std::to_string(num_outputs) +
             " outputs";
    }
    for (std::uint32_t j = 0; j < num_features; ++j) {
      cases->features[j].push_back(std::bit_cast<float>(values[j]));
    }
    for (std::uint32_t k = 0; k < num_outputs; ++k) {
      cases->bits[k].push_back(values[num_features + k]);
    }
    ++cases->rows;
  }
  return "";
}

inline std::string HexBits(std::uint32_t bits) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out(8, '0');
  for (int i = 0; i < 8; ++i) out[7 - i] = kDigits[(bits >> (4 * i)) & 15];
  return out;
}

// Compares `outputs` with the expected bits; the first few mismatches.
inline std::string Mismatches(const std::string& what, const ParityCases& cases,
                              const std::vector<std::vector<float>>& outputs, std::size_t* count) {
  std::string report;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    for (std::size_t i = 0; i < cases.rows; ++i) {
      const std::uint32_t got = std::bit_cast<std::uint32_t>(outputs[k][i]);
      if (got == cases.bits[k][i]) continue;
      if (++*count <= 5) {
        report += what + ": row " + std::to_string(i) + " output " + std::to_string(k) +
                  ": expected " + HexBits(cases.bits[k][i]) + ", got " + HexBits(got) + "\n";
      }
    }
  }
  return report;
}

// Both evaluators, on every tier this CPU has and for several block splits
// of the rows (n = 0, partial blocks, passes), against the expected bits.
// Returns "" when every bit agrees.
inline std::string CheckParity(const LoadedTreeModel& model, const ParityCases& cases) {
  const std::uint32_t num_features = model.info().num_features;
  const std::uint32_t num_outputs = model.info().num_outputs;
  std::vector<std::vector<float>> outputs(num_outputs, std::vector<float>(cases.rows));
  auto pointers = [](std::vector<std::vector<float>>& columns, std::size_t offset) {
    std::vector<float*> p;
    for (auto& c : columns) p.push_back(c.data() + offset);
    return p;
  };
  std::vector<std::vector<float>> features = cases.features;
  std::size_t count = 0;
  std::string report;

  std::vector<float*> in = pointers(features, 0);
  std::vector<const float*> in_const(in.begin(), in.end());
  std::vector<float*> out = pointers(outputs, 0);
  EvaluateReference(*model.ensemble, in_const.data(), cases.rows, out.data());
  report += Mismatches("reference", cases, outputs, &count);

  const Isa tiers[] = {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512};
  const std::size_t splits[] = {cases.rows, 1, 7, 64, 65, 1000};
  std::vector<unsigned char> scratch_storage(EvaluateScratchBytes(model.prepared, 0) + 64);
  void* scratch = scratch_storage.data() +
                  (64 - reinterpret_cast<std::uintptr_t>(scratch_storage.data()) % 64) % 64;
  for (Isa isa : tiers) {
    if (BestIsa() < isa) continue;  // this CPU lacks the tier
    for (std::size_t split : splits) {
      for (auto& column : outputs) std::fill(column.begin(), column.end(), -12345.0f);
      for (std::size_t first = 0; first < cases.rows || first == 0; first += split) {
        const std::size_t n = std::min(split, cases.rows - first);
        std::vector<float*> block_in = pointers(features, first);
        std::vector<const float*> block_in_const(block_in.begin(), block_in.end());
        std::vector<float*> block_out = pointers(outputs, first);
        Evaluate(model.prepared, block_in_const.data(), n, block_out.data(), scratch, isa);
        if (split == 0 || n == 0) break;
      }
      report += Mismatches("block evaluator, tier " + std::to_string(static_cast<int>(isa)) +
                               ", blocks of " + std::to_string(split),
                           cases, outputs, &count);
    }
  }
  (void)num_features;
  if (count > 0) report += std::to_string(count) + " mismatching outputs\n";
  return report;
}

}  // namespace calcjit::model::testing

#endif  // CALCJIT_TESTS_MODEL_PARITY_CASES_H_
