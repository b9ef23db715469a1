// The C API's models on their own: a model file as a set (FeatureSet::FromModel,
// "load a model and predict") and the list of formats, from the format table
// (calcjit/model_formats.def), for frontends that show or check a format name.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "calcjit/calcjit.h"
#include "capi/arguments.h"
#include "capi/errors.h"
#include "capi/handles.h"

using calcjit::ModelFormat;
using calcjit::Status;
using calcjit::UserError;
using calcjit::capi::Call;
using calcjit::capi::CheckBytes;
using calcjit::capi::CreateHandle;
using calcjit::capi::NullArgument;

namespace {

// `name` (NULL: none) as a format; an error naming the known ones.
Status FormatOf(const char* name, std::optional<ModelFormat>* out) {
  if (name == nullptr) return Status::Ok();
  *out = calcjit::ModelFormatFromName(name);
  if (!*out) {
    return UserError("unknown model format '" + std::string(name) + "' (" +
                     calcjit::ModelFormatNameList() + ")");
  }
  return Status::Ok();
}

Status MakeSet(calcjit::Result<calcjit::FeatureSet> set, calcjit_set** out) {
  if (!set.ok()) return set.status();
  return CreateHandle(std::make_unique<calcjit_set>(std::move(set).value()), out);
}

}  // namespace

extern "C" {

calcjit_status calcjit_set_from_model(const void* data, size_t size, const char* format,
                                      calcjit_set** out) {
  return Call([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    std::string_view bytes;
    CALCJIT_RETURN_IF_ERROR(CheckBytes(data, size, &bytes));
    std::optional<ModelFormat> named;
    CALCJIT_RETURN_IF_ERROR(FormatOf(format, &named));
    const std::optional<ModelFormat> found = named ? named : calcjit::DetectModelFormat("", bytes);
    if (!found) {
      return UserError("cannot tell the model format from the bytes' content; name it (" +
                       calcjit::ModelFormatNameList() + ")");
    }
    return MakeSet(calcjit::FeatureSet::FromModel(bytes, *found), out);
  });
}

calcjit_status calcjit_set_read_model(const char* path, const char* format, calcjit_set** out) {
  return Call([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (path == nullptr) return NullArgument("path");
    std::optional<ModelFormat> named;
    CALCJIT_RETURN_IF_ERROR(FormatOf(format, &named));
    return MakeSet(calcjit::FeatureSet::ReadModel(path, named), out);
  });
}

size_t calcjit_model_format_count(void) {
  return calcjit::ModelFormats().size();
}

const char* calcjit_model_format_name(size_t index) {
  const auto formats = calcjit::ModelFormats();
  if (index >= formats.size()) {
    calcjit::capi::Record(UserError("model format " + std::to_string(index) + " is beyond the " +
                                    std::to_string(formats.size()) + " formats"));
    return nullptr;
  }
  // The table's names are string literals: NUL-terminated, static.
  return calcjit::ModelFormatName(formats[index]).data();
}

}  // extern "C"
