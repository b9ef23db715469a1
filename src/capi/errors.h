// How every C API entry point runs: its body returns a Status, which becomes
// a calcjit_status and the thread's last error; no exception crosses the C
// boundary.
#ifndef CALCJIT_CAPI_ERRORS_H_
#define CALCJIT_CAPI_ERRORS_H_

#include <exception>
#include <new>

#include "calcjit/calcjit.h"
#include "calcjit/status.h"

namespace calcjit::capi {

// Records `status` as the thread's last error (or clears it when ok).
calcjit_status Record(const Status& status) noexcept;
// A message built in a catch handler, where nothing may throw.
calcjit_status RecordException(calcjit_status code, const char* message, const char* what) noexcept;

// Runs an entry point's body (returning a Status) with every exception caught.
template <typename Body>
calcjit_status Call(Body&& body) noexcept {
  try {
    return Record(body());
  } catch (const std::bad_alloc&) {
    return RecordException(CALCJIT_ERROR_RUNTIME, "out of memory", nullptr);
  } catch (const std::exception& e) {
    return RecordException(CALCJIT_ERROR_INTERNAL, "unexpected exception", e.what());
  } catch (...) {
    return RecordException(CALCJIT_ERROR_INTERNAL, "unexpected exception", nullptr);
  }
}

// For the entry points that return a value: `body(value)` returns a Status;
// on error the function returns `fallback`.
template <typename T, typename Body>
T CallValue(T fallback, Body&& body) noexcept {
  T value = fallback;
  const calcjit_status code = Call([&] { return body(value); });
  return code == CALCJIT_OK ? value : fallback;
}

}  // namespace calcjit::capi

#endif  // CALCJIT_CAPI_ERRORS_H_
