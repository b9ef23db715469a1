// A bounded walk over the protobuf wire format of an untrusted file, guided by
// the generated messages' descriptors, before protobuf parses it for real.
//
// Why: protobuf's parser only says "failed"; this walk says where (the byte
// offset and the field path, e.g. graph.initializer[2].raw_data). And
// protobuf's parser gives no bound on memory other than the input size times
// the size of a message object: a 2 GiB file of empty `node {}` entries would
// become a billion NodeProto objects. The walk counts messages, strings and
// numbers first and refuses the file beyond the limits below, so the real
// parse that follows allocates at most about the file's size plus those
// counts. It keeps its own stack on the heap (no recursion per nesting level)
// and refuses nesting deeper than `max_depth`; the parse that follows gets the
// same recursion limit.
//
// It decodes nothing but lengths and tags: the messages themselves are read
// by protobuf's generated code.
#ifndef CALCJIT_MODEL_ONNX_WIRE_SCAN_H_
#define CALCJIT_MODEL_ONNX_WIRE_SCAN_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <google/protobuf/descriptor.h>

namespace calcjit::model {

struct WireScanLimits {
  int max_depth = 32;                                  // nested messages below the root
  std::uint64_t max_objects = std::uint64_t{1} << 20;  // messages, strings and bytes fields
  std::uint64_t max_numbers = std::uint64_t{1} << 25;  // elements of repeated numeric fields
};

struct WireScanResult {
  bool ok = true;
  std::size_t offset = 0;  // of the field (its tag) where the problem is
  std::string path;        // e.g. "graph.node[3].attribute[0]"; "" at the top level
  std::string message;     // what is wrong
};

// Walks `bytes` as one message of type `root`.
WireScanResult ScanWire(std::string_view bytes, const google::protobuf::Descriptor& root,
                        const WireScanLimits& limits);

}  // namespace calcjit::model

#endif  // CALCJIT_MODEL_ONNX_WIRE_SCAN_H_
