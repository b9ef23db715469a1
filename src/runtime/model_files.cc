#include "runtime/model_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace calcjit::internal {

namespace {

namespace fs = std::filesystem;

std::string Quoted(std::string_view text) {
  return "'" + std::string(text) + "'";
}

// Whether `path` (canonical) is `root` (canonical) or below it.
bool IsWithin(const fs::path& path, const fs::path& root) {
  auto p = path.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++p) {
    if (p == path.end() || *p != *r) return false;
  }
  return true;
}

// Closes a descriptor on every return.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<std::string> ReadModelFile(std::string_view path, const std::string& root,
                                  bool allow_any_path, std::uint64_t max_bytes) {
  if (path.empty()) return UserError("the model's path is empty");
  if (path.find('\0') != std::string_view::npos) {
    return UserError("the model's path " + Quoted(path) + " contains a NUL character");
  }
  const fs::path declared{std::string(path)};
  if (declared.is_absolute() && !allow_any_path) {
    return UserError("the model path " + Quoted(path) +
                     " is absolute; paths are relative to the model root (allow any path to "
                     "read it anyway)");
  }
  if (!declared.is_absolute() && root.empty()) {
    return UserError("no model root for " + Quoted(path) +
                     ": the set was not read from a file; name a model root or hand over the "
                     "model's bytes");
  }
  // Refused before the file system is asked: whether a file outside the root
  // exists must not show in the message.
  if (!declared.is_absolute() && !allow_any_path) {
    const fs::path normal = declared.lexically_normal();
    if (!normal.empty() && *normal.begin() == "..") {
      return UserError("the model path " + Quoted(path) +
                       " leads outside the model root (through '..'); allow any path to read "
                       "it anyway");
    }
  }
  std::error_code error;
  const fs::path target = declared.is_absolute() ? declared : fs::path(root) / declared;
  const fs::path resolved = fs::canonical(target, error);
  if (error) {
    return RuntimeError("cannot read the model file " + Quoted(target.string()) + ": " +
                        error.message());
  }
  if (!allow_any_path) {
    const fs::path canonical_root = fs::canonical(root, error);
    if (error) {
      return UserError("cannot use the model root " + Quoted(root) + ": " + error.message());
    }
    if (!IsWithin(resolved, canonical_root)) {
      return UserError("the model path " + Quoted(path) + " leads outside the model root " +
                       Quoted(canonical_root.string()) + " (to " + Quoted(resolved.string()) +
                       "); allow any path to read it anyway");
    }
  }
  // O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
  Descriptor file{::open(resolved.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
  if (file.fd < 0) {
    return RuntimeError("cannot open the model file " + Quoted(resolved.string()) + ": " +
                        std::strerror(errno));
  }
  struct stat status {};
  if (::fstat(file.fd, &status) != 0) {
    return RuntimeError("cannot read the model file " + Quoted(resolved.string()) + ": " +
                        std::strerror(errno));
  }
  if (!S_ISREG(status.st_mode)) {
    return UserError("the model file " + Quoted(resolved.string()) + " is not a regular file");
  }
  const auto size = static_cast<std::uint64_t>(status.st_size);
  if (size > max_bytes) {
    return UserError("the model file " + Quoted(resolved.string()) + " has " +
                     std::to_string(size) + " bytes, more than the limit of " +
                     std::to_string(max_bytes));
  }
  std::string bytes(static_cast<std::size_t>(size), '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t got = ::read(file.fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      return RuntimeError("cannot read the model file " + Quoted(resolved.string()) + ": " +
                          std::strerror(errno));
    }
    if (got == 0) {
      return RuntimeError("the model file " + Quoted(resolved.string()) +
                          " was shortened while it was read");
    }
    done += static_cast<std::size_t>(got);
  }
  return bytes;
}

}  // namespace calcjit::internal
