#include "runtime/file_reading.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace calcjit::internal {

Descriptor& Descriptor::operator=(Descriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

Descriptor::~Descriptor() {
  if (fd_ >= 0) ::close(fd_);
}

BoundedRead ReadAtMost(int fd, std::uint64_t max_bytes, std::uint64_t size_hint) {
  BoundedRead result;
  if (size_hint > 0) result.bytes.reserve(static_cast<std::size_t>(std::min(size_hint, max_bytes)));
  char buffer[1 << 16];
  while (true) {
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      result.error = errno;
      result.bytes.clear();
      return result;
    }
    if (got == 0) return result;
    if (result.bytes.size() + static_cast<std::uint64_t>(got) > max_bytes) {
      result.too_large = true;
      result.bytes.clear();
      result.bytes.shrink_to_fit();
      return result;
    }
    result.bytes.append(buffer, static_cast<std::size_t>(got));
  }
}

}  // namespace calcjit::internal
