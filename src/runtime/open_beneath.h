// Opening a file beneath a folder (spec 6.1's model root) so that no step of
// resolving its path leaves the folder: not `..`, not a symbolic link that
// points outside (relative or absolute), not a folder or a file swapped for
// such a link while the path is resolved. A link that stays inside the root
// (relative, or absolute to a place inside it) is followed.
//
// The kernel does it where it can: openat2(RESOLVE_BENEATH) resolves the
// whole path beneath a descriptor of the root in one call. Where it has no
// openat2 (Linux before 5.6, or a seccomp filter that refuses it: ENOSYS),
// and for the cases RESOLVE_BENEATH refuses although they stay inside (an
// absolute link into the root), the path is walked one component at a time:
// each name opened beneath the descriptor of the folder before it with
// O_NOFOLLOW, each link read from the descriptor of the link itself
// (readlinkat on an O_PATH descriptor), `..` taken back along the folders
// already opened. Nothing is looked up by a name that could have changed
// since it was checked.
#ifndef CALCJIT_RUNTIME_OPEN_BENEATH_H_
#define CALCJIT_RUNTIME_OPEN_BENEATH_H_

#include <string>
#include <string_view>

#include "calcjit/status.h"
#include "runtime/file_reading.h"

namespace calcjit::internal {

// kKernel: openat2 when the kernel has it, else the walk. kWalk: always the
// walk (tests run both).
enum class BeneathMethod { kKernel, kWalk };

// Opens the relative `path` beneath the folder `root` for reading
// (O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC: opening a FIFO never waits
// for a writer; the caller checks the kind with fstat). A path that leads
// outside the root is a user error that says so (and never tells whether
// something exists outside); a name that does not exist, a loop of links or
// a file that cannot be opened is a runtime error. Messages speak of the
// model path and the model root, the one use so far.
Result<Descriptor> OpenBeneath(const std::string& root, std::string_view path,
                               BeneathMethod method = BeneathMethod::kKernel);

}  // namespace calcjit::internal

#endif  // CALCJIT_RUNTIME_OPEN_BENEATH_H_
