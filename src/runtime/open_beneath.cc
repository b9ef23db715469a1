#include "runtime/open_beneath.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <vector>

namespace calcjit::internal {

namespace {

constexpr int kReadFlags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
// As the kernel counts them (MAXSYMLINKS).
constexpr int kMaxLinks = 40;

std::string Quoted(std::string_view text) {
  return "'" + std::string(text) + "'";
}

std::string Joined(const std::string& root, std::string_view path) {
  if (root.empty() || root == ".") return std::string(path);
  if (root.back() == '/') return root + std::string(path);
  return root + "/" + std::string(path);
}

Status Outside(std::string_view path, const std::string& root, const std::string& how) {
  return UserError("the model path " + Quoted(path) + " leads outside the model root " +
                   Quoted(root) + " (" + how + "); allow any path to read it anyway");
}

Status CannotOpen(const std::string& root, std::string_view path, int error) {
  return RuntimeError("cannot open the model file " + Quoted(Joined(root, path)) + ": " +
                      std::strerror(error));
}

// A path's names, without empty ones and "." (a/./b//c is a, b, c).
std::vector<std::string> NamesOf(std::string_view path) {
  std::vector<std::string> names;
  std::size_t begin = 0;
  while (begin <= path.size()) {
    std::size_t end = path.find('/', begin);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view name = path.substr(begin, end - begin);
    if (!name.empty() && name != ".") names.emplace_back(name);
    begin = end + 1;
  }
  return names;
}

// openat2(2) has no glibc wrapper in Debian 12's glibc 2.36.
int OpenAt2(int dir, const char* path, const open_how& how) {
  return static_cast<int>(::syscall(SYS_openat2, dir, path, &how, sizeof how));
}

// A name still to be resolved, and the link that brought it in (for messages).
struct Pending {
  std::string name;
  std::string from_link;  // "" for the names of the path itself
};

// Whether the absolute `target` names a place inside the root, given as its
// canonical path or as the caller spelled it (made absolute); the names after
// the root's when it does. Compared name by name, never normalized: `..`
// after a link is not what it looks like in the text.
bool InsideRoot(const std::vector<std::string>& target, const std::vector<std::string>& root,
                std::vector<std::string>* rest) {
  if (target.size() < root.size()) return false;
  for (std::size_t k = 0; k < root.size(); ++k) {
    if (target[k] != root[k]) return false;
  }
  rest->assign(target.begin() + static_cast<std::ptrdiff_t>(root.size()), target.end());
  return true;
}

class Walk {
 public:
  Walk(const std::string& root, std::string_view path, Descriptor root_fd)
      : root_(root), path_(path) {
    folders_.push_back(std::move(root_fd));
  }

  Result<Descriptor> Run();

 private:
  Status Follow(int link_fd, const std::string& link_name);
  Status RootSpellings();

  const std::string& root_;
  std::string_view path_;
  std::vector<Descriptor> folders_;  // [0] is the root; each folder opened from the one before
  std::deque<Pending> pending_;
  std::vector<std::vector<std::string>> root_spellings_;  // filled at the first absolute link
  int links_ = 0;
};

Status Walk::RootSpellings() {
  if (!root_spellings_.empty()) return Status::Ok();
  char* canonical = ::realpath(root_.c_str(), nullptr);
  if (canonical == nullptr) {
    return UserError("cannot use the model root " + Quoted(root_) + ": " + std::strerror(errno));
  }
  root_spellings_.push_back(NamesOf(canonical));
  std::free(canonical);
  if (!root_.empty() && root_.front() == '/') {
    root_spellings_.push_back(NamesOf(root_));
  } else {
    char cwd[PATH_MAX];
    if (::getcwd(cwd, sizeof cwd) != nullptr)
      root_spellings_.push_back(NamesOf(Joined(cwd, root_)));
  }
  return Status::Ok();
}

// The link open as `link_fd` (O_PATH) is replaced by its target's names.
Status Walk::Follow(int link_fd, const std::string& link_name) {
  if (++links_ > kMaxLinks) return CannotOpen(root_, path_, ELOOP);
  std::string target(PATH_MAX, '\0');
  // An empty name reads the link the O_PATH descriptor holds: the very link
  // whose kind fstat saw, not whatever the name points to now.
  const ssize_t n = ::readlinkat(link_fd, "", target.data(), target.size());
  if (n < 0) return CannotOpen(root_, path_, errno);
  if (static_cast<std::size_t>(n) >= target.size()) return CannotOpen(root_, path_, ENAMETOOLONG);
  target.resize(static_cast<std::size_t>(n));
  std::vector<std::string> names = NamesOf(target);
  if (!target.empty() && target.front() == '/') {
    CALCJIT_RETURN_IF_ERROR(RootSpellings());
    std::vector<std::string> rest;
    bool inside = false;
    for (const std::vector<std::string>& root : root_spellings_) {
      inside = inside || InsideRoot(names, root, &rest);
    }
    if (!inside) {
      return Outside(path_, root_,
                     "the symbolic link " + Quoted(link_name) + " points to " + Quoted(target));
    }
    folders_.resize(1);  // back to the root
    names = std::move(rest);
  }
  for (auto name = names.rbegin(); name != names.rend(); ++name) {
    pending_.push_front({std::move(*name), link_name});
  }
  return Status::Ok();
}

Result<Descriptor> Walk::Run() {
  for (std::string& name : NamesOf(path_)) pending_.push_back({std::move(name), ""});
  if (pending_.empty()) return CannotOpen(root_, path_, EISDIR);
  while (!pending_.empty()) {
    const Pending next = std::move(pending_.front());
    pending_.pop_front();
    if (next.name == "..") {
      if (folders_.size() == 1) {
        return Outside(path_, root_,
                       next.from_link.empty()
                           ? std::string("through '..'")
                           : "through the symbolic link " + Quoted(next.from_link));
      }
      folders_.pop_back();
      continue;
    }
    const int folder = folders_.back().get();
    const std::string link_name = next.from_link.empty() ? next.name : next.from_link;
    if (pending_.empty()) {
      // The last name: opened for reading as it is, never through a link.
      Descriptor file(::openat(folder, next.name.c_str(), kReadFlags | O_NOFOLLOW));
      if (file.valid()) return file;
      if (errno != ELOOP) return CannotOpen(root_, path_, errno);
    }
    Descriptor step(::openat(folder, next.name.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    if (!step.valid()) return CannotOpen(root_, path_, errno);
    struct stat info {};
    if (::fstat(step.get(), &info) != 0) return CannotOpen(root_, path_, errno);
    if (S_ISLNK(info.st_mode)) {
      CALCJIT_RETURN_IF_ERROR(Follow(step.get(), link_name));
    } else if (S_ISDIR(info.st_mode) && !pending_.empty()) {
      folders_.push_back(std::move(step));
    } else if (pending_.empty()) {
      // The last name was a link when it was opened for reading and is not
      // one now: look again (bounded like links, so a flapping name ends).
      if (++links_ > kMaxLinks) return CannotOpen(root_, path_, ELOOP);
      pending_.push_front(next);
    } else {
      return CannotOpen(root_, path_, ENOTDIR);
    }
  }
  // A path whose last name was `..`: a folder, opened for fstat to refuse.
  Descriptor folder(::openat(folders_.back().get(), ".", kReadFlags));
  if (!folder.valid()) return CannotOpen(root_, path_, errno);
  return folder;
}

}  // namespace

Result<Descriptor> OpenBeneath(const std::string& root, std::string_view path,
                               BeneathMethod method) {
  Descriptor root_fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!root_fd.valid()) {
    return UserError("cannot use the model root " + Quoted(root) + ": " + std::strerror(errno));
  }
  if (method == BeneathMethod::kKernel) {
    open_how how{};
    how.flags = static_cast<std::uint64_t>(kReadFlags);
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
    const std::string name(path);
    for (int attempt = 0; attempt < 4; ++attempt) {
      Descriptor file(OpenAt2(root_fd.get(), name.c_str(), how));
      if (file.valid()) return file;
      // EAGAIN: a rename raced the lookup; the kernel asks for another try.
      if (errno == EAGAIN) continue;
      // EXDEV: a step left the root, or a link is absolute (which may still
      // point inside): the walk decides, and says which step. ENOSYS, EPERM
      // (a seccomp filter), E2BIG: no usable openat2.
      if (errno == EXDEV || errno == ENOSYS || errno == EPERM || errno == E2BIG) break;
      return CannotOpen(root, path, errno);
    }
  }
  return Walk(root, path, std::move(root_fd)).Run();
}

}  // namespace calcjit::internal
