// Small helpers the stand-alone benchmark programs share: a thread's CPU
// time (the machines are shared, and a batch that waits for a core is not
// slower) and a whole file read into memory.
#pragma once

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

namespace calcjit::bench {

// This thread's CPU time in ns.
inline double ThreadCpuNs() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

inline double ThreadCpuMs() {
  return ThreadCpuNs() * 1e-6;
}

// The file's bytes, or nothing when it cannot be opened.
inline std::optional<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// A benchmark model file's bytes; a missing one ends the program with a hint:
// `make_models.py bench` writes them.
inline std::string ReadModelFileOrExit(const std::string& path) {
  std::optional<std::string> bytes = ReadWholeFile(path);
  if (!bytes) {
    std::fprintf(stderr, "cannot read %s (make_models.py bench writes it)\n", path.c_str());
    std::exit(1);
  }
  return std::move(*bytes);
}

}  // namespace calcjit::bench
