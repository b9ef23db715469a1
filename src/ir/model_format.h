// The model formats as the readers, writers and printer of sets see them
// (spec section 6.1): each row of calcjit/model_formats.def with its wire
// number, its name in ModelDeclaration.Format and its function in the text
// syntax. The model layer (src/model) reads the other columns of the same rows.
#ifndef CALCJIT_IR_MODEL_FORMAT_H_
#define CALCJIT_IR_MODEL_FORMAT_H_

#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

#include "calcjit/model_format.h"

namespace calcjit::ir {

using calcjit::ModelFormat;

struct ModelFormatInfo {
  ModelFormat format;
  std::string_view proto_name;  // without the "FORMAT_" prefix
  std::string_view text_name;   // model NAME = xgboost("PATH");
};

inline constexpr ModelFormatInfo kModelFormats[] = {
#define CALCJIT_MODEL_FORMAT(Name, number, proto_name, text_name, ...) \
  {ModelFormat::k##Name, proto_name, text_name},
#include "calcjit/model_formats.def"
#undef CALCJIT_MODEL_FORMAT
};

// FORMAT_UNSPECIFIED (0) is an error wherever it appears, so it is not a
// ModelFormat.
constexpr int ProtoNumberOf(ModelFormat format) {
  return static_cast<int>(format);
}

constexpr bool ModelFormatsAreInNumberOrder() {
  for (int i = 0; i < static_cast<int>(std::size(kModelFormats)); ++i) {
    if (ProtoNumberOf(kModelFormats[i].format) != i + 1) return false;
  }
  return true;
}
static_assert(ModelFormatsAreInNumberOrder(), "model_formats.def: rows in wire order, from 1");

constexpr const ModelFormatInfo& InfoOf(ModelFormat format) {
  return kModelFormats[static_cast<int>(format) - 1];
}

// The format with this ModelDeclaration.Format number (0, FORMAT_UNSPECIFIED,
// and unknown numbers: none).
constexpr std::optional<ModelFormat> ModelFormatFromNumber(std::int64_t number) {
  for (const ModelFormatInfo& info : kModelFormats) {
    if (ProtoNumberOf(info.format) == number) return info.format;
  }
  return std::nullopt;
}

// The format named `name` on the wire ("XGBOOST_JSON" or "FORMAT_XGBOOST_JSON").
constexpr std::optional<ModelFormat> ModelFormatFromProtoName(std::string_view name) {
  if (name.starts_with("FORMAT_")) name.remove_prefix(7);
  for (const ModelFormatInfo& info : kModelFormats) {
    if (info.proto_name == name) return info.format;
  }
  return std::nullopt;
}

// The format whose text function is `name` ("xgboost").
constexpr std::optional<ModelFormat> ModelFormatFromTextName(std::string_view name) {
  for (const ModelFormatInfo& info : kModelFormats) {
    if (info.text_name == name) return info.format;
  }
  return std::nullopt;
}

}  // namespace calcjit::ir

#endif  // CALCJIT_IR_MODEL_FORMAT_H_
