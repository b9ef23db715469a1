// The model layer's view of calcjit/model_formats.def: per format, its family
// (what LoadModel prepares), the name of its outputs, and how a file of it is
// recognized (extensions, content signatures).
#ifndef CALCJIT_MODEL_FORMAT_TABLE_H_
#define CALCJIT_MODEL_FORMAT_TABLE_H_

#include <cstdint>
#include <iterator>
#include <string_view>

#include "calcjit/model_format.h"

namespace calcjit::model {

enum class Family : std::uint8_t {
  kTrees,  // a tree ensemble: the reader returns a TreeEnsemble (model/tree/ensemble.h)
  kNet,    // a neural net: the reader returns an OnnxNet (model/onnx/net.h)
};

struct FormatRow {
  ModelFormat format;
  std::string_view text_name;
  Family family;
  std::string_view output_name;
  std::string_view extensions;  // ".json .ubj"
  std::string_view signatures;  // "learner", alternatives separated by '|'
};

inline constexpr FormatRow kFormatRows[] = {
#define CALCJIT_MODEL_FORMAT(Name, number, proto_name, text_name, family, output_name, extensions, \
                             signatures)                                                           \
  {ModelFormat::k##Name, text_name, Family::k##family, output_name, extensions, signatures},
#include "calcjit/model_formats.def"
#undef CALCJIT_MODEL_FORMAT
};

constexpr const FormatRow& RowOf(ModelFormat format) {
  return kFormatRows[static_cast<int>(format) - 1];
}

// How far into a file its signature may be.
inline constexpr std::size_t kSignatureWindow = 256;

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_FORMAT_TABLE_H_
