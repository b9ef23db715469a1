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

// A Python str as UTF-8. A str can hold an unpaired surrogate ("\ud800"),
// which has no UTF-8 form: a ValueError that names `what` and the index,
// never pybind11's "Unable to cast" (a RuntimeError). Needs the GIL.
std::string Utf8(pybind11::handle text, const std::string& what);

}  // namespace calcjit::python

#endif  // CALCJIT_PYTHON_ERRORS_H_
