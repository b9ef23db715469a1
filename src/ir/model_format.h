// The model formats of contract v2 (spec section 6): one row per format, with
// its number and name in ModelDeclaration.Format and its function in the text
// syntax. Readers, writers and the printer read this table; the model
// readers (src/model) dispatch on ModelFormat.
#ifndef CALCJIT_IR_MODEL_FORMAT_H_
#define CALCJIT_IR_MODEL_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace calcjit::ir {

// The values are the wire numbers. FORMAT_UNSPECIFIED (0) is an error
// wherever it appears, so it is not a ModelFormat.
enum class ModelFormat : std::uint8_t {
  kXgboostJson = 1,
  kLightgbmText = 2,
  kOnnx = 3,
};

struct ModelFormatInfo {
  ModelFormat format;
  std::string_view proto_name;  // without the "FORMAT_" prefix
  std::string_view text_name;   // model NAME = xgboost("PATH");
};

inline constexpr ModelFormatInfo kModelFormats[] = {
    {ModelFormat::kXgboostJson, "XGBOOST_JSON", "xgboost"},
    {ModelFormat::kLightgbmText, "LIGHTGBM_TEXT", "lightgbm"},
    {ModelFormat::kOnnx, "ONNX", "onnx"},
};

constexpr int ProtoNumberOf(ModelFormat format) {
  return static_cast<int>(format);
}

constexpr const ModelFormatInfo& InfoOf(ModelFormat format) {
  return kModelFormats[static_cast<int>(format) - 1];
}

constexpr bool ModelFormatsAreInNumberOrder() {
  for (int i = 0; i < static_cast<int>(std::size(kModelFormats)); ++i) {
    if (ProtoNumberOf(kModelFormats[i].format) != i + 1) return false;
  }
  return true;
}
static_assert(ModelFormatsAreInNumberOrder());

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
