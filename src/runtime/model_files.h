// Finding a model's bytes when a set is loaded (spec 6.1): the caller's
// bytes by model name, or the file the declaration's path names under the
// model root. A set shipped from a config service must not make a serving
// process read arbitrary files: an absolute path, or one that leaves the
// root (`..`, or a symbolic link pointing outside) at any step of its
// resolution, is refused unless the caller allows any path; the path is
// resolved and opened in one go beneath the root (runtime/open_beneath.h),
// so swapping a folder or the file for a link while it is read changes
// nothing. Every model file, whichever frontend and format, is read here.
#ifndef CALCJIT_RUNTIME_MODEL_FILES_H_
#define CALCJIT_RUNTIME_MODEL_FILES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "calcjit/status.h"
#include "runtime/open_beneath.h"

namespace calcjit::internal {

// The largest model file read (spec 6.1: 2 GiB).
inline constexpr std::uint64_t kMaxModelFileBytes = std::uint64_t{2} << 30;

// Reads the model file `path` (as declared in the set) under `root`. Only a
// regular file is read (checked on the descriptor opened: never a FIFO or a
// device, which could block or never end), of at most `max_bytes` (counted
// while reading: a file that grows is cut off, not read on). Errors say
// which file and why, without a location (the caller adds the
// declaration's). `method`: see open_beneath.h (tests force the walk).
Result<std::string> ReadModelFile(std::string_view path, const std::string& root,
                                  bool allow_any_path, std::uint64_t max_bytes = kMaxModelFileBytes,
                                  BeneathMethod method = BeneathMethod::kKernel);

// A model file the caller names itself (FeatureSet::ReadModel): any path,
// the same rules otherwise (a regular file, at most `max_bytes`).
Result<std::string> ReadModelPath(const std::string& path,
                                  std::uint64_t max_bytes = kMaxModelFileBytes);

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_MODEL_FILES_H_
