// The one place where a calcjit Status becomes a Python exception.
#ifndef CALCJIT_PYTHON_ERRORS_H_
#define CALCJIT_PYTHON_ERRORS_H_

#include <pybind11/pybind11.h>

#include <string>
#include <utility>

#include "calcjit/status.h"

namespace calcjit::python {

// Creates calcjit.Error (a subclass of ValueError) in `module`.
void RegisterError(pybind11::module_& module);

// Raises calcjit.Error for a failed status: str() is every diagnostic, one
// per line; .kind is "user", "runtime" or "internal"; .location and .message
// are the first diagnostic's; .diagnostics lists them all. Needs the GIL.
[[noreturn]] void Raise(const Status& status);

// Raises calcjit.Error of kind "user".
[[noreturn]] inline void RaiseUserError(std::string message, std::string location = {}) {
  Raise(UserError(std::move(message), std::move(location)));
}

inline void ThrowIfError(const Status& status) {
  if (!status.ok()) Raise(status);
}

template <typename T>
T ValueOrThrow(Result<T> result) {
  if (!result.ok()) Raise(result.status());
  return std::move(result).value();
}

}  // namespace calcjit::python

#endif  // CALCJIT_PYTHON_ERRORS_H_
