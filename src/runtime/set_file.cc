#include "runtime/set_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/file_reading.h"

namespace calcjit::internal {

namespace {

std::string Quoted(const std::string& path) {
  return "'" + path + "'";
}

}  // namespace

Result<std::string> ReadSetFile(const std::string& path, const char* what,
                                std::uint64_t max_bytes) {
  if (path.find('\0') != std::string::npos) {
    return UserError("the path " + Quoted(path) + " contains a NUL character");
  }
  // O_NONBLOCK: opening a FIFO never waits for a writer (a library call must
  // not hang on a path); reading it then blocks as a pipe does.
  const Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!file.valid()) {
    return RuntimeError("cannot open " + Quoted(path) + ": " + std::strerror(errno));
  }
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) {
    return RuntimeError("cannot read " + Quoted(path) + ": " + std::strerror(errno));
  }
  if (S_ISDIR(status.st_mode)) {
    return UserError(Quoted(path) + " is a directory, not a " + what + " file");
  }
  // A terminal is a person typing; any other device (/dev/zero, /dev/urandom,
  // /dev/null) is no file of a set, and some never end.
  const bool terminal = S_ISCHR(status.st_mode) && ::isatty(file.get()) == 1;
  if (S_ISCHR(status.st_mode) && !terminal) {
    return UserError(Quoted(path) + " is a device, not a " + what + " file");
  }
  if (!S_ISREG(status.st_mode) && !S_ISFIFO(status.st_mode) && !terminal) {
    return UserError(Quoted(path) + " is not a file a " + what + " can be read from");
  }
  const auto too_large = [&] {
    return UserError(Quoted(path) + " is larger than the limit of " + std::to_string(max_bytes) +
                     " bytes for a " + what + " file");
  };
  const auto size = static_cast<std::uint64_t>(status.st_size);
  if (S_ISREG(status.st_mode) && size > max_bytes) return too_large();
  const int flags = ::fcntl(file.get(), F_GETFL);
  if (flags < 0 || ::fcntl(file.get(), F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return RuntimeError("cannot read " + Quoted(path) + ": " + std::strerror(errno));
  }
  BoundedRead read = ReadAtMost(file.get(), max_bytes, S_ISREG(status.st_mode) ? size : 0);
  if (read.too_large) return too_large();
  if (read.error != 0) {
    return RuntimeError("cannot read " + Quoted(path) + ": " + std::strerror(read.error));
  }
  // A FIFO that no process writes to (or is opening to write) reads as
  // empty at once: say so rather than read it as an empty set.
  if (S_ISFIFO(status.st_mode) && read.bytes.empty()) {
    return UserError(Quoted(path) + " is a FIFO that gave no bytes: nothing writes to it (a " +
                     what + " read from a pipe needs its writer running)");
  }
  return std::move(read.bytes);
}

}  // namespace calcjit::internal
