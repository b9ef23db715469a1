// An ONNX net behind the one interface the pipeline sees (model/model.h): the
// decoded chain (the reference evaluator's) and its prepared layout (the
// block evaluator's), made once per model file at load (spec 6.1).
#ifndef CALCJIT_MODEL_ONNX_NET_MODEL_H_
#define CALCJIT_MODEL_ONNX_NET_MODEL_H_

#include <memory>
#include <string>
#include <string_view>

#include "calcjit/status.h"
#include "model/content_hash.h"
#include "model/model.h"
#include "model/onnx/net.h"
#include "model/onnx/prepared_net.h"

namespace calcjit::model {

// Immutable; share it between threads and between set versions whose model
// bytes hash equal.
struct LoadedOnnxModel {
  std::shared_ptr<const OnnxNet> net;
  PreparedNet prepared;
  ContentHash hash;         // of the file's bytes
  std::string description;  // DescribeNet(*net), what `calcjit check` prints

  const NetInfo& info() const { return net->info; }
};

// Prepares what the ONNX reader read (LoadModel's step for Family::kNet).
Result<std::shared_ptr<const Model>> MakeNetModel(OnnxNet net, ContentHash hash,
                                                  std::string_view file_name);

// LoadModel for ONNX, keeping the net-specific parts (tests and benchmarks
// look inside).
Result<std::shared_ptr<const LoadedOnnxModel>> LoadOnnxModel(std::string_view bytes,
                                                             std::string_view file_name);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_ONNX_NET_MODEL_H_
