// The C++ side of the Java benchmark (java/src/bench/.../JavaBench.java): the
// same evaluation as the Java harness times through JNI, timed here through
// the C API directly, on the same data and with the same timing method, so
// that the difference between the two is what the JNI layer costs.
//
//   calcjit_c_api_bench SET BACKEND DATA ITEMS
//
// DATA (written by JavaBench): little-endian int32 input count, then per
// input an int32 name length, the name, an int64 float count and the floats.
// Prints "ns_per_evaluation <median>" (wall), "cpu_ns_per_evaluation
// <median>" (the thread's CPU time) and "check_bits <hex>" (the bits of
// the first output's last item, which JavaBench compares with its own).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "calcjit/calcjit.h"

namespace {

struct Input {
  std::string name;
  std::vector<float> values;
};

bool ReadData(const char* path, std::vector<Input>* inputs) {
  std::ifstream in(path, std::ios::binary);
  std::int32_t count = 0;
  if (!in.read(reinterpret_cast<char*>(&count), sizeof count)) return false;
  for (std::int32_t k = 0; k < count; ++k) {
    std::int32_t length = 0;
    if (!in.read(reinterpret_cast<char*>(&length), sizeof length) || length < 0) return false;
    Input input;
    input.name.resize(static_cast<std::size_t>(length));
    std::int64_t floats = 0;
    if (!in.read(input.name.data(), length) ||
        !in.read(reinterpret_cast<char*>(&floats), sizeof floats) || floats < 0) {
      return false;
    }
    input.values.resize(static_cast<std::size_t>(floats));
    if (!in.read(reinterpret_cast<char*>(input.values.data()),
                 static_cast<std::streamsize>(floats * 4))) {
      return false;
    }
    inputs->push_back(std::move(input));
  }
  return true;
}

int Fail(const char* what) {
  std::fprintf(stderr, "calcjit_c_api_bench: %s: %s (%s)\n", what, calcjit_last_error(),
               calcjit_last_error_location());
  return 1;
}

double CpuNs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

double NowNs() {
  return std::chrono::duration<double, std::nano>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: calcjit_c_api_bench SET reference|vm|jit DATA ITEMS\n");
    return 2;
  }
  const std::string backend_name = argv[2];
  calcjit_options options;
  calcjit_options_init(&options);
  options.backend = backend_name == "vm"          ? CALCJIT_BACKEND_VM
                    : backend_name == "jit"       ? CALCJIT_BACKEND_JIT
                    : backend_name == "reference" ? CALCJIT_BACKEND_REFERENCE
                                                  : CALCJIT_BACKEND_AUTO;
  const std::size_t items = std::strtoull(argv[4], nullptr, 10);
  std::vector<Input> inputs;
  if (!ReadData(argv[3], &inputs)) {
    std::fprintf(stderr, "calcjit_c_api_bench: cannot read %s\n", argv[3]);
    return 1;
  }
  calcjit_set* set = nullptr;
  if (calcjit_set_read_file(argv[1], &set) != CALCJIT_OK) return Fail("read");
  calcjit_engine* engine = nullptr;
  if (calcjit_engine_create(set, &options, &engine) != CALCJIT_OK) return Fail("create");
  calcjit_set_free(set);
  calcjit_engine_wait_for_jit(engine);
  calcjit_session* session = nullptr;
  if (calcjit_session_create(engine, &session) != CALCJIT_OK) return Fail("session");
  for (const Input& input : inputs) {
    if (calcjit_session_bind_input(session, input.name.c_str(), input.values.data(),
                                   input.values.size()) != CALCJIT_OK) {
      return Fail("bind");
    }
  }
  calcjit_schema* schema = nullptr;
  if (calcjit_session_schema(session, &schema) != CALCJIT_OK) return Fail("schema");
  const std::string first_output = calcjit_schema_output_name(schema, 0);
  calcjit_schema_free(schema);

  // The timing method of JavaBench.time: warm up for 0.3 s, size a batch to
  // about 10 ms, then the median of 11 batches.
  auto evaluate = [&] { return calcjit_session_evaluate(session, items, nullptr) == CALCJIT_OK; };
  const double warm_until = NowNs() + 0.3e9;
  std::size_t warm = 0;
  while (NowNs() < warm_until || warm < 10) {
    if (!evaluate()) return Fail("evaluate");
    ++warm;
  }
  const double start = NowNs();
  for (int k = 0; k < 10; ++k) evaluate();
  const double per = (NowNs() - start) / 10;
  const std::size_t batch = std::max<std::size_t>(1, static_cast<std::size_t>(10e6 / per));
  std::vector<double> medians;
  std::vector<double> cpu;
  for (int r = 0; r < 11; ++r) {
    const double c0 = CpuNs();
    const double t0 = NowNs();
    for (std::size_t k = 0; k < batch; ++k) evaluate();
    medians.push_back((NowNs() - t0) / static_cast<double>(batch));
    cpu.push_back((CpuNs() - c0) / static_cast<double>(batch));
  }
  std::sort(medians.begin(), medians.end());
  std::sort(cpu.begin(), cpu.end());
  const float* out = nullptr;
  std::size_t count = 0;
  if (calcjit_session_output(session, first_output.c_str(), &out, &count) != CALCJIT_OK) {
    return Fail("output");
  }
  std::uint32_t bits = 0;
  if (count > 0) std::memcpy(&bits, &out[count - 1], sizeof bits);
  std::printf("ns_per_evaluation %.1f\ncpu_ns_per_evaluation %.1f\ncheck_bits %08x\n",
              medians[medians.size() / 2], cpu[cpu.size() / 2], bits);
  calcjit_session_free(session);
  calcjit_engine_free(engine);
  return 0;
}
