// calcjit_peers_native: the "native" runner of bench/peers/peers.py, a worker
// speaking worker.py's protocol (one JSON request per line on stdin, one JSON
// answer per line on stdout) around native_forest's traversal.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_support.h"
#include "bench/peers/native_forest.h"

namespace {

struct Runner {
  peers::Forest forest;
  std::vector<float> rows;
  std::size_t row_count = 0;
  std::vector<float> out;
  void Run() { peers::Predict(forest, rows.data(), row_count, out.data()); }
};

std::string ReadFile(const std::string& path) {
  return calcjit::bench::ReadWholeFile(path).value_or(std::string());
}

double ProcessSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// numpy's .npy, version 1.0: a header dict padded with spaces to a multiple of 64.
void SaveNpy(const std::string& path, const std::vector<float>& values) {
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
                     std::to_string(values.size()) + ",), }";
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict.push_back('\n');
  std::ofstream file(path, std::ios::binary);
  file.write("\x93NUMPY\x01\x00", 8);
  const auto length = static_cast<std::uint16_t>(dict.size());
  const char header_length[2] = {static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
  file.write(header_length, 2);
  file << dict;
  file.write(reinterpret_cast<const char*>(values.data()),
             static_cast<std::streamsize>(values.size() * sizeof(float)));
}

nlohmann::json Prepare(const nlohmann::json& request, std::map<std::string, Runner>& runners) {
  if (request.at("runner").get<std::string>() != "native") return {{"error", "not native"}};
  const double start = WallSeconds();
  Runner runner;
  std::string error = peers::ReadXgboostJson(ReadFile(request.at("model")), runner.forest);
  if (!error.empty()) return {{"error", error}};
  const std::string rows_path = request.at("rows");
  std::istringstream shape(ReadFile(rows_path + ".shape"));
  std::size_t columns = 0;
  shape >> runner.row_count >> columns;
  if (columns != runner.forest.features) return {{"error", "the rows' width is not the model's"}};
  const std::string bytes = ReadFile(rows_path);
  if (bytes.size() != runner.row_count * columns * sizeof(float)) {
    return {{"error", "the rows file's size is not its shape's"}};
  }
  runner.rows.resize(runner.row_count * columns);
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(runner.rows.data()));
  runner.out.resize(runner.row_count);
  runner.Run();
  runners[request.at("key")] = std::move(runner);
  return {{"version", "hand-written C++, -march=native"}, {"prepare_s", WallSeconds() - start}};
}

nlohmann::json Answer(const nlohmann::json& request, std::map<std::string, Runner>& runners) {
  const std::string op = request.at("op");
  if (op == "prepare") return Prepare(request, runners);
  auto found = runners.find(request.at("key"));
  if (found == runners.end()) return {{"error", "no such key"}};
  Runner& runner = found->second;
  if (op == "time") {
    std::vector<double> cpu, wall;
    for (int rep = 0; rep < request.at("reps").get<int>(); ++rep) {
      const double c0 = ProcessSeconds(), w0 = WallSeconds();
      runner.Run();
      cpu.push_back(ProcessSeconds() - c0);
      wall.push_back(WallSeconds() - w0);
    }
    return {{"cpu", cpu}, {"wall", wall}};
  }
  if (op == "save") {
    SaveNpy(request.at("path"), runner.out);
    return nlohmann::json::object();
  }
  return {{"error", "unknown op " + op}};
}

}  // namespace

int main() {
  std::map<std::string, Runner> runners;
  std::string line;
  while (std::getline(std::cin, line)) {
    nlohmann::json answer;
    try {
      answer = Answer(nlohmann::json::parse(line), runners);
    } catch (const std::exception& e) {
      answer = {{"error", e.what()}};
    }
    std::cout << answer.dump() << '\n' << std::flush;
  }
  return 0;
}
