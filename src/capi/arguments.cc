// Checking and converting the C API's arguments (see arguments.h).
#include "capi/arguments.h"

#include <optional>

namespace calcjit::capi {

namespace {

std::optional<Format> FormatOf(calcjit_format format) {
  switch (format) {
    case CALCJIT_FORMAT_TEXT:
      return Format::kText;
    case CALCJIT_FORMAT_JSON:
      return Format::kJson;
    case CALCJIT_FORMAT_PROTO:
      return Format::kProto;
    case CALCJIT_FORMAT_INT_:
      break;
  }
  return std::nullopt;
}

std::optional<Backend> BackendOf(calcjit_backend backend) {
  switch (backend) {
    case CALCJIT_BACKEND_REFERENCE:
      return Backend::kReference;
    case CALCJIT_BACKEND_VM:
      return Backend::kVm;
    case CALCJIT_BACKEND_JIT:
      return Backend::kJit;
    case CALCJIT_BACKEND_AUTO:
      return Backend::kAuto;
    case CALCJIT_BACKEND_INT_:
      break;
  }
  return std::nullopt;
}

}  // namespace

Status NullArgument(const char* what) {
  return UserError(std::string(what) + " is NULL");
}

std::string Quoted(std::string_view name) {
  return "'" + std::string(name) + "'";
}

calcjit_backend BackendToC(Backend backend) {
  switch (backend) {
    case Backend::kReference:
      return CALCJIT_BACKEND_REFERENCE;
    case Backend::kVm:
      return CALCJIT_BACKEND_VM;
    case Backend::kJit:
      return CALCJIT_BACKEND_JIT;
    case Backend::kAuto:
      break;
  }
  return CALCJIT_BACKEND_AUTO;
}

Status CheckFormat(calcjit_format format, Format* out) {
  const std::optional<Format> known = FormatOf(format);
  if (!known) {
    return UserError("unknown format " + std::to_string(static_cast<int>(format)) +
                     " (CALCJIT_FORMAT_TEXT, _JSON or _PROTO)");
  }
  *out = *known;
  return Status::Ok();
}

Status CheckBackend(calcjit_backend backend, Backend* out) {
  const std::optional<Backend> known = BackendOf(backend);
  if (!known) {
    return UserError("unknown backend " + std::to_string(static_cast<int>(backend)) +
                     " (CALCJIT_BACKEND_REFERENCE, _VM, _JIT or _AUTO)");
  }
  *out = *known;
  return Status::Ok();
}

Status CheckBytes(const void* data, std::size_t size, std::string_view* out) {
  if (data == nullptr && size > 0) return NullArgument("data");
  *out = size == 0 ? std::string_view() : std::string_view(static_cast<const char*>(data), size);
  return Status::Ok();
}

Status EngineOptionsOf(const calcjit_options* options, EngineOptions* out) {
  if (options == nullptr) return Status::Ok();
  CALCJIT_RETURN_IF_ERROR(CheckBackend(options->backend, &out->backend));
  if (options->output_count > 0 && options->outputs == nullptr) {
    return UserError("options.outputs is NULL but options.output_count is " +
                     std::to_string(options->output_count));
  }
  for (std::size_t k = 0; k < options->output_count; ++k) {
    if (options->outputs[k] == nullptr) {
      return UserError("options.outputs[" + std::to_string(k) + "] is NULL");
    }
    out->outputs.emplace_back(options->outputs[k]);
  }
  if (options->isa != nullptr) {
    const std::optional<Isa> isa = IsaFromName(options->isa);
    if (!isa) {
      return UserError("unknown instruction set " + Quoted(options->isa) +
                       " (auto, x86-64, avx2 or avx512)");
    }
    out->isa = *isa;
  }
  return Status::Ok();
}

}  // namespace calcjit::capi
