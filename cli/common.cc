#include "cli/common.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <unistd.h>

namespace calcjit::cli {

Result<FeatureSet> LoadSet(const SetSource& source) {
  std::optional<Format> format;
  if (!source.input_format.empty()) {
    format = FormatFromName(source.input_format);
    if (!format) return UserError("unknown --input-format '" + source.input_format + "'");
  }
  return FeatureSet::ReadFile(source.path, format);
}

void ReportError(const Status& status) {
  for (const Diagnostic& d : status.diagnostics()) {
    std::cerr << (d.location.empty() ? "" : d.location + ": ") << "error: " << d.message << '\n';
  }
}

void ReportError(std::string_view message) {
  std::cerr << "error: " << message << '\n';
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  std::string temp = path + ".tmp.XXXXXX";
  const int fd = mkstemp(temp.data());
  if (fd < 0)
    return RuntimeError("cannot create a file next to '" + path + "': " + std::strerror(errno));
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string reason = std::strerror(errno);
      close(fd);
      unlink(temp.c_str());
      return RuntimeError("cannot write '" + path + "': " + reason);
    }
    written += static_cast<std::size_t>(n);
  }
  if (close(fd) != 0 || std::rename(temp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    unlink(temp.c_str());
    return RuntimeError("cannot write '" + path + "': " + reason);
  }
  return Status::Ok();
}

}  // namespace calcjit::cli
