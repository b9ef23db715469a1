// Reading a whole file through a descriptor the caller opened, never beyond a
// bound: the size a file claims (fstat) is only a hint, a file may grow
// while it is read, and a FIFO or a /proc file has no size at all.
#ifndef CALCJIT_RUNTIME_FILE_READING_H_
#define CALCJIT_RUNTIME_FILE_READING_H_

#include <cstdint>
#include <string>
#include <utility>

namespace calcjit::internal {

// Owns a file descriptor; closes it on destruction.
class Descriptor {
 public:
  Descriptor() = default;
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(Descriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Descriptor& operator=(Descriptor&& other) noexcept;
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor();

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

struct BoundedRead {
  std::string bytes;
  bool too_large = false;  // there was more than max_bytes
  int error = 0;           // errno of a failed read, else 0
};

// Reads `fd` to its end, at most `max_bytes` (one byte more shows there was
// more: `too_large`, with the bytes dropped). `size_hint` (the file's size,
// when known) only reserves memory, up to max_bytes.
BoundedRead ReadAtMost(int fd, std::uint64_t max_bytes, std::uint64_t size_hint = 0);

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_FILE_READING_H_
