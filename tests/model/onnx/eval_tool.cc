// onnx_eval_tool MODEL INPUTS OUTPUTS: loads MODEL (an .onnx file), reads
// INPUTS (n rows of num_features float32, row-major, little-endian), runs the
// reference evaluator and every tier of the block evaluator this CPU has,
// checks that they agree bit for bit, and writes the reference's outputs to
// OUTPUTS (n rows of num_outputs float32). Prints the net's description.
// Exit status: 0 ok, 1 the model was refused (the error on stderr), 2 the
// tiers disagree, 3 bad usage or I/O. For tests/model/onnx/fresh_nets_test.py.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "calcjit/cpu.h"
#include "model/onnx/block_evaluator.h"
#include "model/onnx/net_model.h"
#include "model/onnx/reference_evaluator.h"

namespace {

std::string ReadAll(const char* path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// Runs `evaluate` over the rows and returns the outputs row-major.
template <typename F>
std::vector<float> Run(std::size_t m, std::size_t k, const std::vector<float>& rows, F evaluate) {
  const std::size_t n = rows.size() / m;
  std::vector<std::vector<float>> columns(m, std::vector<float>(n));
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < m; ++j) columns[j][i] = rows[i * m + j];
  }
  std::vector<const float*> inputs;
  for (auto& column : columns) inputs.push_back(column.data());
  std::vector<std::vector<float>> outputs(k, std::vector<float>(n));
  std::vector<float*> pointers;
  for (auto& output : outputs) pointers.push_back(output.data());
  evaluate(inputs.data(), n, pointers.data());
  std::vector<float> out(n * k);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < k; ++j) out[i * k + j] = outputs[j][i];
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace calcjit;
  using namespace calcjit::model;
  if (argc != 4) {
    std::cerr << "usage: onnx_eval_tool MODEL INPUTS OUTPUTS\n";
    return 3;
  }
  auto loaded = LoadOnnxModel(ReadAll(argv[1]), argv[1]);
  if (!loaded.ok()) {
    std::cerr << loaded.status().ToString() << "\n";
    return 1;
  }
  const LoadedOnnxModel& model = **loaded;
  const std::size_t m = model.info().num_features;
  const std::size_t k = model.info().num_outputs;
  const std::string input_bytes = ReadAll(argv[2]);
  if (input_bytes.size() % (m * sizeof(float)) != 0) {
    std::cerr << "inputs are not whole rows of " << m << " floats\n";
    return 3;
  }
  std::vector<float> rows(input_bytes.size() / sizeof(float));
  std::memcpy(rows.data(), input_bytes.data(), input_bytes.size());

  const std::vector<float> reference =
      Run(m, k, rows, [&](const float* const* in, std::size_t n, float* const* out) {
        EvaluateReference(*model.net, in, n, out);
      });
  std::vector<unsigned char> scratch(EvaluateScratchBytes(model.prepared));
  for (Isa isa : {Isa::kBaseline, Isa::kAvx2, Isa::kAvx512}) {
    if (!IsIsaSupported(isa)) continue;
    const std::vector<float> block =
        Run(m, k, rows, [&](const float* const* in, std::size_t n, float* const* out) {
          Evaluate(model.prepared, in, n, out, scratch.data(), isa);
        });
    if (std::memcmp(block.data(), reference.data(), block.size() * sizeof(float)) != 0) {
      std::cerr << IsaName(isa) << " differs from the reference\n";
      return 2;
    }
  }
  std::ofstream out(argv[3], std::ios::binary);
  out.write(reinterpret_cast<const char*>(reference.data()),
            static_cast<std::streamsize>(reference.size() * sizeof(float)));
  std::cout << model.description << "\n";
  return out ? 0 : 3;
}
