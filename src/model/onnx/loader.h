// The one call the pipeline makes per ONNX model declaration: read, check and
// prepare a model file's bytes (spec 6.1: at load, never at evaluation).
#ifndef CALCJIT_MODEL_ONNX_LOADER_H_
#define CALCJIT_MODEL_ONNX_LOADER_H_

#include <memory>
#include <string>
#include <string_view>

#include "calcjit/status.h"
#include "model/content_hash.h"
#include "model/onnx/net.h"
#include "model/onnx/prepared_net.h"

namespace calcjit::model {

// A loaded net: the decoded chain (for the reference evaluator) and its
// layout for the block evaluator. Immutable; share it between threads and
// between set versions whose model bytes hash equal.
struct LoadedOnnxModel {
  std::shared_ptr<const OnnxNet> net;
  PreparedNet prepared;
  ContentHash hash;         // of the file's bytes
  std::string description;  // DescribeNet(*net), what `calcjit check` prints

  const NetInfo& info() const { return net->info; }
};

// `file_name` is only for messages. Errors name the file and where in it.
Result<std::shared_ptr<const LoadedOnnxModel>> LoadOnnxModel(std::string_view bytes,
                                                             std::string_view file_name);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_ONNX_LOADER_H_
