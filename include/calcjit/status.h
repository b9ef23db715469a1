// Errors are values: every fallible calcjit call returns a Status or a
// Result<T>. Nothing in the library throws; the frontends (Java, Python, CLI)
// turn a Status into the host language's error in one place each.
#ifndef CALCJIT_STATUS_H_
#define CALCJIT_STATUS_H_

#include "calcjit/cxx20.h"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace calcjit {

// Who has to act on an error.
enum class ErrorKind : unsigned char {
  kOk = 0,
  kUser,      // the feature set, the input data or the call is wrong
  kRuntime,   // the environment failed: I/O, a backend that is not available
  kInternal,  // a bug in calcjit
};

// One problem and where it is. `location` is "line:column" (1-based, in
// characters) for the text syntax, a field path such as
// "features[3].expression.binary.lhs" for protobuf and JSON, "byte 17" for a
// malformed binary message, or a name (an input, an output) at evaluation.
struct Diagnostic {
  std::string location;
  std::string message;

  // "location: message", or just the message when there is no location.
  std::string ToString() const;
};

// Ok, or an error made of one or more diagnostics (a feature set check
// reports every problem it finds, not just the first). An ok Status holds no
// heap memory, so returning one on the evaluation hot path costs nothing.
class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(ErrorKind kind, std::string message, std::string location = {});
  static Status Errors(ErrorKind kind, std::vector<Diagnostic> diagnostics);

  bool ok() const { return rep_ == nullptr; }
  ErrorKind kind() const { return rep_ ? rep_->kind : ErrorKind::kOk; }
  // The first diagnostic's message and location ("" when ok).
  const std::string& message() const;
  const std::string& location() const;
  const std::vector<Diagnostic>& diagnostics() const;
  // Every diagnostic, one per line.
  std::string ToString() const;

 private:
  struct Rep {
    ErrorKind kind;
    std::vector<Diagnostic> diagnostics;
  };
  std::shared_ptr<const Rep> rep_;
};

inline Status UserError(std::string message, std::string location = {}) {
  return Status::Error(ErrorKind::kUser, std::move(message), std::move(location));
}
inline Status RuntimeError(std::string message, std::string location = {}) {
  return Status::Error(ErrorKind::kRuntime, std::move(message), std::move(location));
}
inline Status InternalError(std::string message, std::string location = {}) {
  return Status::Error(ErrorKind::kInternal, std::move(message), std::move(location));
}

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  // An ok Status carries no value: that is a bug in the caller, reported as one.
  Result(Status status)  // NOLINT: implicit by design
      : status_(status.ok() ? InternalError("Result built from an ok Status") : std::move(status)) {
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace calcjit

// Returns early from the enclosing function when `expr` (a Status) is an error.
#define CALCJIT_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    ::calcjit::Status calcjit_status_ = (expr);        \
    if (!calcjit_status_.ok()) return calcjit_status_; \
  } while (false)

#endif  // CALCJIT_STATUS_H_
