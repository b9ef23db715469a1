// Small helpers the stand-alone benchmark programs share: a thread's CPU
// time (the machines are shared, and a batch that waits for a core is not
// slower) and a whole file read into memory.
#pragma once

#include <time.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

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

}  // namespace calcjit::bench
