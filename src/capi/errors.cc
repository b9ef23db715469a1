// The thread's last error, and the functions that read it and the version.
#include "capi/errors.h"

#include <string>

namespace calcjit::capi {

namespace {

struct LastError {
  std::string message;
  std::string location;
  std::string details;
  // Used when recording the error itself ran out of memory.
  const char* fallback = nullptr;
};

LastError& ThreadError() {
  thread_local LastError error;
  return error;
}

void ClearError() noexcept {
  LastError& error = ThreadError();
  error.message.clear();
  error.location.clear();
  error.details.clear();
  error.fallback = nullptr;
}

calcjit_status CodeOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kUser:
      return CALCJIT_ERROR_USER;
    case ErrorKind::kRuntime:
      return CALCJIT_ERROR_RUNTIME;
    case ErrorKind::kOk:
    case ErrorKind::kInternal:
      break;
  }
  return CALCJIT_ERROR_INTERNAL;
}

calcjit_status RecordFallback(calcjit_status code, const char* message) noexcept {
  ClearError();
  ThreadError().fallback = message;
  return code;
}

}  // namespace

calcjit_status Record(const Status& status) noexcept {
  if (status.ok()) {
    ClearError();
    return CALCJIT_OK;
  }
  const calcjit_status code = CodeOf(status.kind());
  try {
    LastError& error = ThreadError();
    error.fallback = nullptr;
    error.message = status.message();
    error.location = status.location();
    error.details = status.ToString();
  } catch (...) {
    return RecordFallback(code, "out of memory (while recording an error)");
  }
  return code;
}

calcjit_status RecordException(calcjit_status code, const char* message,
                               const char* what) noexcept {
  try {
    std::string text = message;
    if (what != nullptr && *what != '\0') text.append(": ").append(what);
    return Record(
        Status::Error(code == CALCJIT_ERROR_RUNTIME ? ErrorKind::kRuntime : ErrorKind::kInternal,
                      std::move(text)));
  } catch (...) {
    return RecordFallback(code, message);
  }
}

}  // namespace calcjit::capi

extern "C" {

const char* calcjit_last_error(void) {
  const calcjit::capi::LastError& error = calcjit::capi::ThreadError();
  return error.fallback != nullptr ? error.fallback : error.message.c_str();
}

const char* calcjit_last_error_location(void) {
  const calcjit::capi::LastError& error = calcjit::capi::ThreadError();
  return error.fallback != nullptr ? "" : error.location.c_str();
}

const char* calcjit_last_error_details(void) {
  const calcjit::capi::LastError& error = calcjit::capi::ThreadError();
  return error.fallback != nullptr ? error.fallback : error.details.c_str();
}

const char* calcjit_version_string(void) {
  return CALCJIT_VERSION_STRING;
}

const char* calcjit_backend_name(calcjit_backend backend) {
  switch (backend) {
    case CALCJIT_BACKEND_REFERENCE:
      return "reference";
    case CALCJIT_BACKEND_VM:
      return "vm";
    case CALCJIT_BACKEND_JIT:
      return "jit";
    case CALCJIT_BACKEND_AUTO:
      return "auto";
    case CALCJIT_BACKEND_INT_:
      break;
  }
  return nullptr;
}

}  // extern "C"
