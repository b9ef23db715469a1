// What the commands share: reading a SET argument, reporting errors.
#ifndef CALCJIT_CLI_COMMON_H_
#define CALCJIT_CLI_COMMON_H_

#include <string>
#include <string_view>

#include "calcjit/calcjit.hpp"
#include "cli/commands.h"

namespace calcjit::cli {

Result<FeatureSet> LoadSet(const SetSource& source);

// Prints every diagnostic to stderr, one per line, prefixed with "error: ".
void ReportError(const Status& status);
void ReportError(std::string_view message);

// Writes `contents` to `path` through a temporary file in the same folder and
// a rename, so that a failed run never leaves a partial file behind.
Status WriteFileAtomically(const std::string& path, std::string_view contents);

// The same, written piece by piece: the file appears at `path` on Commit; if
// the object goes away before, the temporary file is removed.
class AtomicFile {
 public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();
  Status Open(const std::string& path);
  Status Append(std::string_view contents);
  Status Commit();

 private:
  std::string path_;
  std::string temp_;
  int fd_ = -1;
};

}  // namespace calcjit::cli

#endif  // CALCJIT_CLI_COMMON_H_
