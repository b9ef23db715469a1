#include "cli/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace calcjit::cli {

namespace {

// The temporary file a signal must remove. A process has one output at a
// time; the slot is plain memory so that the handler only calls unlink,
// signal and raise, which are async-signal-safe.
char g_temp_path[4096];
volatile std::sig_atomic_t g_temp_armed = 0;

extern "C" void RemoveTemporaryAndReraise(int signal_number) {
  if (g_temp_armed != 0) unlink(g_temp_path);
  // SA_RESETHAND restored the default action; the signal is blocked while
  // the handler runs, so it is delivered (and ends the process) on return.
  raise(signal_number);
}

void InstallSignalHandlers() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction previous = {};
    if (sigaction(signal_number, nullptr, &previous) != 0) continue;
    if (previous.sa_handler == SIG_IGN) continue;  // e.g. nohup: keep ignoring
    struct sigaction action = {};
    action.sa_handler = RemoveTemporaryAndReraise;
    action.sa_flags = SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    sigaction(signal_number, &action, nullptr);
  }
}

// `path` fits: Open checks its length.
void ArmTemporary(const std::string& path) {
  g_temp_armed = 0;
  std::memcpy(g_temp_path, path.c_str(), path.size() + 1);
  g_temp_armed = 1;
}

void DisarmTemporary() {
  g_temp_armed = 0;
}

std::string Reason() {
  return std::strerror(errno);
}

std::string Quoted(const std::string& path) {
  return "'" + path + "'";
}

std::string DirectoryOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string BaseNameOf(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Where a chain of symbolic links leads (the last name need not exist: a
// dangling link's target is created). Relative targets are relative to the
// folder of the link.
Result<std::string> FollowLinks(const std::string& path) {
  std::string current = path;
  for (int hop = 0; hop < 40; ++hop) {
    struct stat info = {};
    if (lstat(current.c_str(), &info) != 0) {
      if (errno == ENOENT) return current;
      return RuntimeError("cannot inspect the output " + Quoted(current) + ": " + Reason());
    }
    if (!S_ISLNK(info.st_mode)) return current;
    std::string target(4096, '\0');
    const ssize_t n = readlink(current.c_str(), target.data(), target.size());
    if (n < 0 || static_cast<std::size_t>(n) >= target.size()) {
      return RuntimeError("cannot read the link " + Quoted(current) + ": " + Reason());
    }
    target.resize(static_cast<std::size_t>(n));
    current = target.front() == '/' ? target : DirectoryOf(current) + "/" + target;
  }
  return RuntimeError("the output " + Quoted(path) + " is a loop of symbolic links");
}

Status Refused(const std::string& output, const std::string& input) {
  return UserError("the output " + Quoted(output) + " is the same file as the input " +
                   Quoted(input) + ": refusing to overwrite it (nothing was written)");
}

unsigned CurrentUmask() {
  const mode_t mask = umask(0);
  umask(mask);
  return static_cast<unsigned>(mask);
}

Status WriteAll(int fd, std::string_view contents, const std::string& path) {
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t n = write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return RuntimeError("cannot write " + Quoted(path) + ": " + Reason());
    }
    written += static_cast<std::size_t>(n);
  }
  return Status::Ok();
}

// A temporary file that is already unlinked: nothing to clean up, ever.
int OpenSpool() {
  const char* folder = std::getenv("TMPDIR");
  std::string name = std::string(folder != nullptr && *folder != '\0' ? folder : "/tmp") +
                     "/calcjit-output-XXXXXX";
  const int fd = mkstemp(name.data());
  if (fd >= 0) unlink(name.c_str());
  return fd;
}

}  // namespace

OutputFile::~OutputFile() {
  Discard();
}

void OutputFile::Discard() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  if (!temp_.empty()) {
    unlink(temp_.c_str());
    DisarmTemporary();
    temp_.clear();
  }
}

const std::string* OutputFile::InputAt(const struct stat& file) const {
  for (const Input& input : inputs_) {
    if (input.device == file.st_dev && input.inode == file.st_ino) return &input.path;
  }
  return nullptr;
}

Status OutputFile::Open(const std::string& path, const std::vector<std::string>& inputs) {
  Discard();
  path_ = path;
  inputs_.clear();
  for (const std::string& input : inputs) {
    struct stat in = {};
    if (input.empty() || stat(input.c_str(), &in) != 0) continue;
    inputs_.push_back({input, static_cast<unsigned long long>(in.st_dev),
                       static_cast<unsigned long long>(in.st_ino)});
  }
  if (path.empty() || path == "-") {
    struct stat out = {};
    if (fstat(STDOUT_FILENO, &out) == 0 && S_ISREG(out.st_mode)) {
      if (const std::string* input = InputAt(out)) return Refused("(standard output)", *input);
    }
    to_stdout_ = through_ = true;
    fd_ = OpenSpool();
    if (fd_ < 0) return RuntimeError("cannot create a temporary file: " + Reason());
    return Status::Ok();
  }
  // stat follows every link: what the path names in the end. Links into
  // /proc (/dev/stdout -> /proc/self/fd/1 -> pipe:[...]) name no file on
  // disk, so streams are opened by the path as given.
  struct stat out = {};
  const bool exists = stat(path.c_str(), &out) == 0;
  if (exists) {
    if (const std::string* input = InputAt(out)) return Refused(path, *input);
    if (S_ISDIR(out.st_mode)) return UserError("the output " + Quoted(path) + " is a directory");
    if (S_ISFIFO(out.st_mode) || S_ISCHR(out.st_mode)) {
      through_ = true;
      target_ = path;
      fd_ = OpenSpool();
      if (fd_ < 0) return RuntimeError("cannot create a temporary file: " + Reason());
      return Status::Ok();
    }
    if (!S_ISREG(out.st_mode)) {
      return UserError("the output " + Quoted(path) +
                       " is neither a regular file, a FIFO nor a character device");
    }
    // Replacing by rename only needs the folder to be writable: do not let
    // that bypass a file the user made read-only.
    if (access(path.c_str(), W_OK) != 0) {
      return RuntimeError("cannot write " + Quoted(path) + ": " + Reason());
    }
    mode_ = static_cast<unsigned>(out.st_mode) & 07777u;
    char* resolved = realpath(path.c_str(), nullptr);
    if (resolved == nullptr) {
      return RuntimeError("cannot resolve the output " + Quoted(path) + ": " + Reason());
    }
    target_ = resolved;
    std::free(resolved);
  } else {
    if (errno != ENOENT) {
      return RuntimeError("cannot inspect the output " + Quoted(path) + ": " + Reason());
    }
    // A dangling link: its target is created, the link stays.
    Result<std::string> target = FollowLinks(path);
    if (!target.ok()) return target.status();
    target_ = *target;
    mode_ = 0666u & ~CurrentUmask();
  }
  InstallSignalHandlers();
  temp_ = DirectoryOf(target_) + "/." + BaseNameOf(target_) + ".calcjit-XXXXXX";
  if (temp_.size() >= sizeof(g_temp_path)) {
    temp_.clear();
    return UserError("the output path " + Quoted(path) + " is too long");
  }
  // The signals wait while the file is created and registered: one between
  // mkstemp and the slot would leave the file behind.
  sigset_t block;
  sigset_t previous;
  sigemptyset(&block);
  for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&block, signal_number);
  sigprocmask(SIG_BLOCK, &block, &previous);
  fd_ = mkstemp(temp_.data());
  const int create_errno = errno;
  if (fd_ >= 0) ArmTemporary(temp_);
  sigprocmask(SIG_SETMASK, &previous, nullptr);
  if (fd_ < 0) {
    const std::string reason = std::strerror(create_errno);
    temp_.clear();
    return RuntimeError("cannot create a temporary file in " + Quoted(DirectoryOf(target_)) +
                        " for the output " + Quoted(path) + ": " + reason);
  }
  if (fchmod(fd_, static_cast<mode_t>(mode_)) != 0) {
    const std::string reason = Reason();
    Discard();
    return RuntimeError("cannot set the permissions of the output " + Quoted(path) + ": " + reason);
  }
  return Status::Ok();
}

Status OutputFile::Append(std::string_view contents) {
  if (fd_ < 0) return InternalError("OutputFile::Append before Open");
  Status status = WriteAll(fd_, contents, through_ ? path_ : temp_);
  if (!status.ok()) Discard();
  return status;
}

Status OutputFile::Commit() {
  if (fd_ < 0) return InternalError("OutputFile::Commit before Open");
  if (through_) {
    const int spool = fd_;
    fd_ = -1;
    Status status = Status::Ok();
    const int out = to_stdout_ ? STDOUT_FILENO : open(target_.c_str(), O_WRONLY | O_CLOEXEC);
    if (out < 0) status = RuntimeError("cannot open " + Quoted(path_) + ": " + Reason());
    if (status.ok() && lseek(spool, 0, SEEK_SET) != 0) {
      status = RuntimeError("cannot read back the output: " + Reason());
    }
    char buffer[1 << 16];
    while (status.ok()) {
      const ssize_t n = read(spool, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) status = RuntimeError("cannot read back the output: " + Reason());
      if (n <= 0) break;
      status = WriteAll(out, std::string_view(buffer, static_cast<std::size_t>(n)),
                        to_stdout_ ? "(standard output)" : path_);
    }
    if (out >= 0 && !to_stdout_ && close(out) != 0 && status.ok()) {
      status = RuntimeError("cannot write " + Quoted(path_) + ": " + Reason());
    }
    close(spool);
    return status;
  }
  const int fd = fd_;
  fd_ = -1;
  // fsync first: after a crash the path holds either the old or the whole
  // new contents, never an empty file.
  const bool synced = fsync(fd) == 0;
  std::string reason = synced ? "" : Reason();
  if (close(fd) != 0 && synced) reason = Reason();
  if (!reason.empty()) {
    Discard();
    return RuntimeError("cannot write " + Quoted(path_) + ": " + reason);
  }
  // Once more just before the replace: the path may name an input by now
  // (a link swapped in while the command ran).
  struct stat replaced = {};
  if (stat(target_.c_str(), &replaced) == 0) {
    if (const std::string* input = InputAt(replaced)) {
      const Status refused = Refused(path_, *input);
      Discard();
      return refused;
    }
  }
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    const std::string rename_reason = Reason();
    Discard();
    return RuntimeError("cannot write " + Quoted(path_) + ": " + rename_reason);
  }
  DisarmTemporary();
  temp_.clear();
  return Status::Ok();
}

Status WriteOutput(const std::string& path, const std::vector<std::string>& inputs,
                   std::string_view contents) {
  OutputFile file;
  CALCJIT_RETURN_IF_ERROR(file.Open(path, inputs));
  CALCJIT_RETURN_IF_ERROR(file.Append(contents));
  return file.Commit();
}

}  // namespace calcjit::cli
