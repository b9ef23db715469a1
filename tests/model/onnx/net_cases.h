// The committed nets of tests/model/onnx/data and their cases (make_nets.py
// writes them): reading a .cases file, and small helpers the tests share.
#ifndef CALCJIT_TESTS_MODEL_ONNX_NET_CASES_H_
#define CALCJIT_TESTS_MODEL_ONNX_NET_CASES_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace calcjit::model::testing {

inline std::string DataDir() {
  return CALCJIT_ONNX_DATA_DIR;
}

inline std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline float FromBits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
inline std::uint32_t ToBits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

struct NetCases {
  std::string name;
  std::string model_file;
  std::string description;
  std::size_t features = 0;
  std::size_t outputs = 0;
  // Row-major: inputs[i * features + k], expected[i * outputs + j] (bits).
  std::vector<float> inputs;
  std::vector<std::uint32_t> expected;
  std::size_t items() const { return features == 0 ? 0 : inputs.size() / features; }
};

// Parses NAME.cases; an empty name on a malformed file.
inline NetCases ReadNetCases(const std::string& path) {
  NetCases cases;
  std::ifstream in(path);
  std::string line;
  std::size_t items = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string key;
    if (line.rfind("model ", 0) == 0) {
      cases.model_file = line.substr(6);
    } else if (line.rfind("description ", 0) == 0) {
      cases.description = line.substr(12);
    } else if (line.rfind("features ", 0) == 0) {
      fields >> key >> cases.features;
    } else if (line.rfind("outputs ", 0) == 0) {
      fields >> key >> cases.outputs;
    } else if (line.rfind("items ", 0) == 0) {
      fields >> key >> items;
    } else {
      std::string word;
      bool outputs = false;
      while (fields >> word) {
        if (word == "|") {
          outputs = true;
          continue;
        }
        const auto bits = static_cast<std::uint32_t>(std::stoul(word, nullptr, 16));
        if (outputs) {
          cases.expected.push_back(bits);
        } else {
          cases.inputs.push_back(FromBits(bits));
        }
      }
    }
  }
  if (cases.features == 0 || cases.inputs.size() != items * cases.features ||
      cases.expected.size() != items * cases.outputs) {
    return {};
  }
  cases.name = std::filesystem::path(path).stem().string();
  return cases;
}

inline std::vector<std::string> CasesFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(DataDir())) {
    if (entry.path().extension() == ".cases") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace calcjit::model::testing

#endif  // CALCJIT_TESTS_MODEL_ONNX_NET_CASES_H_
