// The C API's arguments checked and turned into the C++ API's: NULL pointers,
// enum values out of range, options. Each problem is a user error that says
// what to pass instead.
#ifndef CALCJIT_CAPI_ARGUMENTS_H_
#define CALCJIT_CAPI_ARGUMENTS_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "calcjit/calcjit.h"
#include "calcjit/calcjit.hpp"

namespace calcjit::capi {

Status NullArgument(const char* what);
std::string Quoted(std::string_view name);

Status CheckFormat(calcjit_format format, Format* out);
Status CheckBackend(calcjit_backend backend, Backend* out);
calcjit_backend BackendToC(Backend backend);
// `size` bytes at `data` (NULL only when size is 0).
Status CheckBytes(const void* data, std::size_t size, std::string_view* out);
// `options` NULL leaves the defaults.
Status EngineOptionsOf(const calcjit_options* options, EngineOptions* out);

template <typename Handle>
Status CreateHandle(std::unique_ptr<Handle> handle, Handle** out) {
  *out = handle.release();
  return Status::Ok();
}

}  // namespace calcjit::capi

#endif  // CALCJIT_CAPI_ARGUMENTS_H_
