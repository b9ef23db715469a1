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
  LoadOptions options;
  options.model_root = source.model_root;
  options.allow_any_model_path = source.allow_any_model_path;
  options.load_models = source.load_models;
  return FeatureSet::ReadFile(source.path, format, options);
}

void ReportError(const Status& status) {
  for (const Diagnostic& d : status.diagnostics()) {
    std::cerr << (d.location.empty() ? "" : d.location + ": ") << "error: " << d.message << '\n';
  }
}

void ReportError(std::string_view message) {
  std::cerr << "error: " << message << '\n';
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) {
    close(fd_);
    unlink(temp_.c_str());
  }
}

Status AtomicFile::Open(const std::string& path) {
  path_ = path;
  temp_ = path + ".tmp.XXXXXX";
  fd_ = mkstemp(temp_.data());
  if (fd_ < 0) {
    return RuntimeError("cannot create a file next to '" + path + "': " + std::strerror(errno));
  }
  return Status::Ok();
}

Status AtomicFile::Append(std::string_view contents) {
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = write(fd_, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return RuntimeError("cannot write '" + path_ + "': " + std::strerror(errno));
    }
    written += static_cast<std::size_t>(n);
  }
  return Status::Ok();
}

Status AtomicFile::Commit() {
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0 || std::rename(temp_.c_str(), path_.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    unlink(temp_.c_str());
    return RuntimeError("cannot write '" + path_ + "': " + reason);
  }
  return Status::Ok();
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  AtomicFile file;
  CALCJIT_RETURN_IF_ERROR(file.Open(path));
  CALCJIT_RETURN_IF_ERROR(file.Append(contents));
  return file.Commit();
}

}  // namespace calcjit::cli
