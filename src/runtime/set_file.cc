#include "runtime/set_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace calcjit::internal {

namespace {

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string Quoted(const std::string& path) {
  return "'" + path + "'";
}

}  // namespace

Result<std::string> ReadSetFile(const std::string& path, const char* what,
                                std::uint64_t max_bytes) {
  const Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (file.get() < 0) {
    return RuntimeError("cannot open " + Quoted(path) + ": " + std::strerror(errno));
  }
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) {
    return RuntimeError("cannot read " + Quoted(path) + ": " + std::strerror(errno));
  }
  if (S_ISDIR(status.st_mode)) {
    return UserError(Quoted(path) + " is a directory, not a " + what + " file");
  }
  if (!S_ISREG(status.st_mode) && !S_ISFIFO(status.st_mode) && !S_ISCHR(status.st_mode)) {
    return UserError(Quoted(path) + " is not a file a " + what + " can be read from");
  }
  const auto too_large = [&] {
    return UserError(Quoted(path) + " is larger than the limit of " + std::to_string(max_bytes) +
                     " bytes for a " + what + " file");
  };
  if (S_ISREG(status.st_mode) && static_cast<std::uint64_t>(status.st_size) > max_bytes) {
    return too_large();
  }
  std::string bytes;
  if (S_ISREG(status.st_mode)) bytes.reserve(static_cast<std::size_t>(status.st_size));
  char buffer[1 << 16];
  while (true) {
    const ssize_t got = ::read(file.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return RuntimeError("cannot read " + Quoted(path) + ": " + std::strerror(errno));
    if (got == 0) break;
    if (bytes.size() + static_cast<std::size_t>(got) > max_bytes) return too_large();
    bytes.append(buffer, static_cast<std::size_t>(got));
  }
  return bytes;
}

}  // namespace calcjit::internal
