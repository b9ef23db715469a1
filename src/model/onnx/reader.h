// The ONNX reader (spec 6.4): a model file's bytes in, a checked OnnxNet out.
//
// Parsing is protobuf's, with Debian's generated ONNX messages (libonnx-dev),
// after a bounded walk over the wire format (wire_scan.h) that gives byte
// offsets for malformed files and caps what the parse may allocate. The
// checks then go node by node; docs/MODELS_ONNX.md lists every rule. Errors
// are user errors located as "FILE: byte 1234 (graph.initializer[2].raw_data)"
// or "FILE: graph.node[3] (Gemm 'fc2')", so a data scientist can find the
// place in Netron or onnx.helper.printable_graph.
#ifndef CALCJIT_MODEL_ONNX_READER_H_
#define CALCJIT_MODEL_ONNX_READER_H_

#include <string_view>

#include "calcjit/status.h"
#include "model/onnx/net.h"

namespace calcjit::model {

// `file_name` is only for messages.
Result<OnnxNet> ReadOnnx(std::string_view bytes, std::string_view file_name);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_ONNX_READER_H_
