#include "runtime/model_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#include "runtime/file_reading.h"

namespace calcjit::internal {

namespace {

namespace fs = std::filesystem;

constexpr int kReadFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;

std::string Quoted(std::string_view text) {
  return "'" + std::string(text) + "'";
}

// The bytes of the file open as `file` (`name` for messages): a regular file
// of at most `max_bytes`.
Result<std::string> ReadOpened(const Descriptor& file, const std::string& name,
                               std::uint64_t max_bytes) {
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) {
    return RuntimeError("cannot read the model file " + Quoted(name) + ": " + std::strerror(errno));
  }
  if (!S_ISREG(status.st_mode)) {
    return UserError("the model file " + Quoted(name) + " is not a regular file");
  }
  const auto too_large = [&](const std::string& size) {
    return UserError("the model file " + Quoted(name) + " has " + size +
                     " bytes, more than the limit of " + std::to_string(max_bytes));
  };
  const auto size = static_cast<std::uint64_t>(status.st_size);
  if (size > max_bytes) return too_large(std::to_string(size));
  BoundedRead read = ReadAtMost(file.get(), max_bytes, size);
  if (read.too_large) return too_large("more");
  if (read.error != 0) {
    return RuntimeError("cannot read the model file " + Quoted(name) + ": " +
                        std::strerror(read.error));
  }
  return std::move(read.bytes);
}

// A path opened as it is, links and all (the caller allows any path).
Result<std::string> ReadAnyPath(const std::string& name, std::uint64_t max_bytes) {
  Descriptor file(::open(name.c_str(), kReadFlags));
  if (!file.valid()) {
    return RuntimeError("cannot open the model file " + Quoted(name) + ": " + std::strerror(errno));
  }
  return ReadOpened(file, name, max_bytes);
}

Status HasNoNul(std::string_view text, const std::string& what) {
  if (text.find('\0') == std::string_view::npos) return Status::Ok();
  return UserError(what + " " + Quoted(text) + " contains a NUL character");
}

}  // namespace

Result<std::string> ReadModelFile(std::string_view path, const std::string& root,
                                  bool allow_any_path, std::uint64_t max_bytes,
                                  BeneathMethod method) {
  if (path.empty()) return UserError("the model's path is empty");
  CALCJIT_RETURN_IF_ERROR(HasNoNul(path, "the model's path"));
  CALCJIT_RETURN_IF_ERROR(HasNoNul(root, "the model root"));
  // As long as the kernel takes one (the walk would take any length, one
  // name at a time: a path of megabytes must not cost that).
  if (path.size() >= PATH_MAX) {
    return UserError("the model's path has " + std::to_string(path.size()) +
                     " bytes, more than the " + std::to_string(PATH_MAX - 1) + " a path may have");
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
  // For messages: the path as the process opens it ("m.json", not "./m.json").
  const std::string name = declared.is_absolute() || root == "."
                               ? std::string(path)
                               : (fs::path(root) / declared).string();
  if (allow_any_path) return ReadAnyPath(name, max_bytes);
  // Refused before the file system is asked: whether a file outside the root
  // exists must not show in the message.
  const fs::path normal = declared.lexically_normal();
  if (!normal.empty() && *normal.begin() == "..") {
    return UserError("the model path " + Quoted(path) + " leads outside the model root " +
                     Quoted(root) + " (through '..'); allow any path to read it anyway");
  }
  Result<Descriptor> file = OpenBeneath(root, path, method);
  if (!file.ok()) return file.status();
  return ReadOpened(*file, name, max_bytes);
}

Result<std::string> ReadModelPath(const std::string& path, std::uint64_t max_bytes) {
  if (path.empty()) return UserError("the model's path is empty");
  CALCJIT_RETURN_IF_ERROR(HasNoNul(path, "the model's path"));
  return ReadAnyPath(path, max_bytes);
}

}  // namespace calcjit::internal
