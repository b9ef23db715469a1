// Reading a feature set (or a model named on its own) from a path: only what
// can hold one, and never without bound.
#ifndef CALCJIT_RUNTIME_SET_FILE_H_
#define CALCJIT_RUNTIME_SET_FILE_H_

#include <cstdint>
#include <string>

#include "calcjit/status.h"

namespace calcjit::internal {

// A set of 10^6 nodes (the contract's limit) with names of 1 KiB each fits;
// /dev/zero or a runaway pipe does not make the process run out of memory.
inline constexpr std::uint64_t kMaxSetFileBytes = std::uint64_t{1} << 30;

// The bytes of a regular file, or of a FIFO or a terminal read to its end
// (`calcjit check <(generate)`), at most `max_bytes` of them. A directory, a
// socket, a device other than a terminal (/dev/zero, /dev/urandom) or a
// larger file is an error that names the path; `what` says what the file was
// to be ("feature set"). Never waits for a FIFO's writer: one that nothing
// writes to (nor is opening to write) is an error at once, as is an empty
// pipe.
Result<std::string> ReadSetFile(const std::string& path, const char* what,
                                std::uint64_t max_bytes = kMaxSetFileBytes);

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_SET_FILE_H_
