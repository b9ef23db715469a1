#include "model/onnx/reader.h"

#include <onnx/onnx_pb.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <google/protobuf/io/coded_stream.h>

#include "model/onnx/wire_scan.h"

namespace calcjit::model {

namespace {

static_assert(std::endian::native == std::endian::little,
              "raw_data is little-endian; a big-endian host would have to swap bytes");

constexpr int kMaxMessageDepth = 32;
constexpr std::int64_t kMinOpset = 9;
constexpr std::int64_t kMaxOpset = 17;
// IR version 3 introduced opset imports; 10 is the newest this reader knows
// (ONNX 1.16) and none of them changes the operators read here.
constexpr std::int64_t kMinIrVersion = 3;
constexpr std::int64_t kMaxIrVersion = 10;

// A name from the file in quotes; a very long one (a hostile file's) is cut
// so that a message stays readable.
std::string Quote(std::string_view text) {
  constexpr std::size_t kShown = 200;
  if (text.size() <= kShown) return "'" + std::string(text) + "'";
  return "'" + std::string(text.substr(0, kShown)) + "...' (" + std::to_string(text.size()) +
         " characters)";
}

std::string Thousands(std::uint64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

std::string DimsText(const google::protobuf::RepeatedField<std::int64_t>& dims) {
  std::string text = "[";
  for (int i = 0; i < dims.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

std::string ShapeText(const onnx::TensorShapeProto& shape) {
  std::string text = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    if (i > 0) text += ", ";
    const onnx::TensorShapeProto::Dimension& dim = shape.dim(i);
    if (dim.has_dim_value()) {
      text += std::to_string(dim.dim_value());
    } else if (dim.has_dim_param()) {
      text += dim.dim_param();
    } else {
      text += "?";
    }
  }
  return text + "]";
}

std::string ElemTypeName(int type) {
  if (!onnx::TensorProto_DataType_IsValid(type)) return "data type " + std::to_string(type);
  return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(type));
}

const char* const kSupportedOps =
    "Gemm, MatMul, Add, Relu, LeakyRelu, Sigmoid, Tanh, Identity and Flatten";

struct AttributeSpec {
  const char* name;
  onnx::AttributeProto::AttributeType type;
};

// An initializer, by its position in graph.initializer.
struct Constant {
  const onnx::TensorProto* tensor = nullptr;
  int index = 0;
};

enum class Origin : std::uint8_t { kGraphInput, kInitializer, kNode };

struct Definition {
  Origin origin;
  int node = -1;  // kNode: the producer
};

class NetReader {
 public:
  NetReader(const onnx::ModelProto& model, std::string_view file_name)
      : model_(model), graph_(model.graph()), file_(file_name) {}

  Result<OnnxNet> Read() {
    CALCJIT_RETURN_IF_ERROR(CheckModel());
    CALCJIT_RETURN_IF_ERROR(CollectInitializers());
    CALCJIT_RETURN_IF_ERROR(CheckInputs());
    CALCJIT_RETURN_IF_ERROR(CheckOutputs());
    if (graph_.node_size() > static_cast<int>(kMaxNetNodes)) {
      return Error("graph", std::to_string(graph_.node_size()) + " nodes; the limit is " +
                                Thousands(kMaxNetNodes));
    }
    for (int i = 0; i < graph_.node_size(); ++i) {
      const std::string& output = graph_.node(i).output_size() > 0 ? graph_.node(i).output(0) : "";
      if (!output.empty()) first_producer_.emplace(output, i);
    }
    for (int i = 0; i < graph_.node_size(); ++i) CALCJIT_RETURN_IF_ERROR(ReadNode(i));
    CALCJIT_RETURN_IF_ERROR(CheckChainEnd());
    CALCJIT_RETURN_IF_ERROR(CheckValueInfo());
    net_.info.num_outputs = width_;
    return std::move(net_);
  }

 private:
  Status Error(const std::string& where, std::string message) const {
    return UserError(std::move(message), file_ + ": " + where);
  }

  // --- The model and the graph's interface ---------------------------------

  Status CheckModel() {
    const std::int64_t ir = model_.ir_version();
    if (ir < kMinIrVersion || ir > kMaxIrVersion) {
      return Error("ir_version", "IR version " + std::to_string(ir) + " is not supported (" +
                                     std::to_string(kMinIrVersion) + " to " +
                                     std::to_string(kMaxIrVersion) + ")");
    }
    std::optional<std::int64_t> opset;
    for (int i = 0; i < model_.opset_import_size(); ++i) {
      const onnx::OperatorSetIdProto& entry = model_.opset_import(i);
      if (!entry.domain().empty() && entry.domain() != "ai.onnx") continue;
      const std::string where = "opset_import[" + std::to_string(i) + "]";
      if (opset.has_value()) return Error(where, "the default ONNX domain is imported twice");
      opset = entry.version();
      if (*opset < kMinOpset || *opset > kMaxOpset) {
        return Error(where, "opset " + std::to_string(*opset) + " is not supported (" +
                                std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                                ")");
      }
    }
    if (!opset.has_value()) return Error("opset_import", "no opset for the default ONNX domain");
    if (!model_.has_graph()) return Error("graph", "the model has no graph");
    opset_ = *opset;
    net_.info.opset = opset_;
    net_.info.ir_version = ir;
    net_.info.producer = model_.producer_name();
    if (!model_.producer_version().empty()) {
      net_.info.producer += (net_.info.producer.empty() ? "" : " ") + model_.producer_version();
    }
    if (graph_.sparse_initializer_size() > 0) {
      return Error("graph.sparse_initializer[0]", "sparse initializers are not supported");
    }
    return Status::Ok();
  }

  Status CollectInitializers() {
    for (int i = 0; i < graph_.initializer_size(); ++i) {
      const onnx::TensorProto& tensor = graph_.initializer(i);
      const std::string where = InitializerWhere(i);
      if (tensor.name().empty()) return Error(where, "an initializer without a name");
      if (!initializers_.emplace(tensor.name(), Constant{&tensor, i}).second) {
        return Error(where, "initializer " + Quote(tensor.name()) + " is defined twice");
      }
      defined_.emplace(tensor.name(), Definition{Origin::kInitializer});
    }
    return Status::Ok();
  }

  // Exactly one graph input that is not an initializer (older exporters list
  // the initializers among the inputs too: they are constants here; ONNX
  // would let a runtime override them, calcjit never does).
  Status CheckInputs() {
    int data_input = -1;
    for (int i = 0; i < graph_.input_size(); ++i) {
      const onnx::ValueInfoProto& input = graph_.input(i);
      const std::string where = "graph.input[" + std::to_string(i) + "] " + Quote(input.name());
      auto constant = initializers_.find(input.name());
      if (constant != initializers_.end()) {
        const auto& type = input.type();
        if (type.has_tensor_type() && type.tensor_type().elem_type() != 0 &&
            type.tensor_type().elem_type() != constant->second.tensor->data_type()) {
          return Error(where, "declared as " + ElemTypeName(type.tensor_type().elem_type()) +
                                  " but its initializer is " +
                                  ElemTypeName(constant->second.tensor->data_type()));
        }
        continue;
      }
      if (data_input >= 0) {
        return Error(where, "a second graph input (after " +
                                Quote(graph_.input(data_input).name()) +
                                "); a net must have exactly one input [N, m]");
      }
      data_input = i;
    }
    if (data_input < 0)
      return Error("graph.input", "the graph has no input (other than initializers)");
    const onnx::ValueInfoProto& input = graph_.input(data_input);
    const std::string where =
        "graph.input[" + std::to_string(data_input) + "] " + Quote(input.name());
    if (input.name().empty()) return Error(where, "the graph input has no name");
    CALCJIT_RETURN_IF_ERROR(CheckRowType(input, where, "input", nullptr));
    const onnx::TensorShapeProto& shape = input.type().tensor_type().shape();
    const onnx::TensorShapeProto::Dimension& features = shape.dim(1);
    if (!features.has_dim_value()) {
      return Error(where,
                   "the input's second dimension (the number of features) must be a number; "
                   "it is " +
                       ShapeText(shape));
    }
    if (features.dim_value() < 1 || features.dim_value() > kMaxNetWidth) {
      return Error(where, "the input has " + std::to_string(features.dim_value()) +
                              " features; a net needs 1 to " + Thousands(kMaxNetWidth));
    }
    width_ = static_cast<std::uint32_t>(features.dim_value());
    current_ = input.name();
    defined_.emplace(input.name(), Definition{Origin::kGraphInput});
    net_.info.input_name = input.name();
    net_.info.num_features = width_;
    for (std::uint32_t j = 0; j < width_; ++j)
      net_.info.feature_names.push_back("f" + std::to_string(j));
    return Status::Ok();
  }

  Status CheckOutputs() {
    if (graph_.output_size() != 1) {
      return Error("graph.output", "the graph has " + std::to_string(graph_.output_size()) +
                                       " outputs; a net must have exactly one [N, K]");
    }
    const onnx::ValueInfoProto& output = graph_.output(0);
    const std::string where = "graph.output[0] " + Quote(output.name());
    if (output.name().empty()) return Error(where, "the graph output has no name");
    net_.info.output_name = output.name();
    return CheckRowType(output, where, "output", nullptr);
  }

  // A float32 tensor [N, w] with N symbolic. The shape may be absent for
  // outputs (the chain fixes it); an input needs it.
  Status CheckRowType(const onnx::ValueInfoProto& value, const std::string& where, const char* role,
                      const std::uint32_t* width) const {
    if (!value.has_type() || !value.type().has_tensor_type()) {
      return Error(where, std::string("the graph ") + role + " must be a float32 tensor [N, " +
                              (std::string(role) == "input" ? "m" : "K") + "]; it has " +
                              (value.has_type() ? "another kind of type" : "no type"));
    }
    const onnx::TypeProto::Tensor& tensor = value.type().tensor_type();
    if (tensor.elem_type() != onnx::TensorProto::FLOAT) {
      return Error(where, std::string("the graph ") + role + " is " +
                              ElemTypeName(tensor.elem_type()) +
                              "; only FLOAT (float32) is supported");
    }
    if (!tensor.has_shape()) {
      if (std::string(role) == "output") return Status::Ok();
      return Error(where, "the graph input has no shape; it must be [N, m]");
    }
    const onnx::TensorShapeProto& shape = tensor.shape();
    if (shape.dim_size() != 2) {
      return Error(where, std::string("the graph ") + role + " has shape " + ShapeText(shape) +
                              "; it must be [N, " + (std::string(role) == "input" ? "m" : "K") +
                              "] (rank 2)");
    }
    if (shape.dim(0).has_dim_value()) {
      return Error(where, std::string("the ") + role + "'s first dimension is fixed at " +
                              std::to_string(shape.dim(0).dim_value()) +
                              "; it must be symbolic, the batch of items (export with "
                              "dynamic_axes={'" +
                              value.name() + "': {0: 'N'}})");
    }
    if (width != nullptr && shape.dim(1).has_dim_value() && shape.dim(1).dim_value() != *width) {
      return Error(where, std::string("the graph ") + role + " is declared " + ShapeText(shape) +
                              " but the nodes compute [N, " + std::to_string(*width) + "]");
    }
    return Status::Ok();
  }

  // --- Nodes -----------------------------------------------------------------

  static std::string InitializerWhere(int index) {
    return "graph.initializer[" + std::to_string(index) + "]";
  }

  std::string NodeWhere(int index) const {
    const onnx::NodeProto& node = graph_.node(index);
    std::string where = "graph.node[" + std::to_string(index) + "] (" + node.op_type();
    if (!node.name().empty()) where += " " + Quote(node.name());
    return where + ")";
  }

  Status ReadNode(int index) {
    const onnx::NodeProto& node = graph_.node(index);
    const std::string where = NodeWhere(index);
    if (!node.domain().empty() && node.domain() != "ai.onnx") {
      return Error(where, "operator " + Quote(node.op_type()) + " of domain " +
                              Quote(node.domain()) +
                              " is not supported; a net may use only the default ONNX domain's " +
                              kSupportedOps);
    }
    const std::string& op = node.op_type();
    if (op == "Gemm") return ReadGemm(index, where);
    if (op == "MatMul") return ReadMatMul(index, where);
    if (op == "Add") return ReadAdd(index, where);
    if (op == "Relu") return ReadActivation(index, where, NetActivation::kRelu);
    if (op == "LeakyRelu") return ReadActivation(index, where, NetActivation::kLeakyRelu);
    if (op == "Sigmoid") return ReadActivation(index, where, NetActivation::kSigmoid);
    if (op == "Tanh") return ReadActivation(index, where, NetActivation::kTanh);
    if (op == "Identity") return ReadPassThrough(index, where);
    if (op == "Flatten") return ReadPassThrough(index, where);
    return Error(
        where, "operator " + Quote(op) + " is not supported; a net may use only " + kSupportedOps);
  }

  // Every attribute known for the operator, of the right type, once.
  Status CheckAttributes(const onnx::NodeProto& node, const std::string& where,
                         std::span<const AttributeSpec> allowed) const {
    for (int i = 0; i < node.attribute_size(); ++i) {
      const onnx::AttributeProto& attribute = node.attribute(i);
      const std::string name = Quote(attribute.name());
      if (!attribute.ref_attr_name().empty()) {
        return Error(where,
                     "attribute " + name + " refers to a function's attribute; not supported");
      }
      const AttributeSpec* spec = nullptr;
      for (const AttributeSpec& candidate : allowed) {
        if (attribute.name() == candidate.name) spec = &candidate;
      }
      if (spec == nullptr) {
        if (allowed.empty()) {
          return Error(where, node.op_type() + " takes no attributes; it has " + name);
        }
        std::string known;
        for (const AttributeSpec& candidate : allowed) {
          known += (known.empty() ? "" : ", ") + std::string(candidate.name);
        }
        return Error(where, "attribute " + name + " is not supported for " + node.op_type() +
                                " (only " + known + ")");
      }
      for (int j = 0; j < i; ++j) {
        if (node.attribute(j).name() == attribute.name()) {
          return Error(where, "attribute " + name + " appears twice");
        }
      }
      if (attribute.type() != spec->type) {
        return Error(where, "attribute " + name + " must be of type " +
                                onnx::AttributeProto_AttributeType_Name(spec->type) + "; it is " +
                                onnx::AttributeProto_AttributeType_Name(attribute.type()));
      }
    }
    return Status::Ok();
  }

  static const onnx::AttributeProto* FindAttribute(const onnx::NodeProto& node, const char* name) {
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.name() == name) return &attribute;
    }
    return nullptr;
  }
  static float FloatAttribute(const onnx::NodeProto& node, const char* name, float fallback) {
    const onnx::AttributeProto* attribute = FindAttribute(node, name);
    return attribute != nullptr ? attribute->f() : fallback;
  }
  static std::int64_t IntAttribute(const onnx::NodeProto& node, const char* name,
                                   std::int64_t fallback) {
    const onnx::AttributeProto* attribute = FindAttribute(node, name);
    return attribute != nullptr ? attribute->i() : fallback;
  }

  Status CheckInputCount(const onnx::NodeProto& node, const std::string& where, int min,
                         int max) const {
    // Trailing empty names are omitted optional inputs.
    int count = node.input_size();
    while (count > min && node.input(count - 1).empty()) --count;
    if (count < min || count > max) {
      std::string expected =
          min == max ? std::to_string(min) : std::to_string(min) + " or " + std::to_string(max);
      return Error(where, node.op_type() + " has " + std::to_string(node.input_size()) +
                              " inputs; it takes " + expected);
    }
    return Status::Ok();
  }

  // What a name that is not the chain's current value is, for messages.
  std::string DescribeValue(const std::string& name, int reader) const {
    auto defined = defined_.find(name);
    if (defined != defined_.end()) {
      switch (defined->second.origin) {
        case Origin::kGraphInput:
          return Quote(name) + " is the graph input";
        case Origin::kInitializer:
          return Quote(name) + " is an initializer (a constant)";
        case Origin::kNode:
          return Quote(name) + " is the output of " + NodeWhere(defined->second.node);
      }
    }
    auto later = first_producer_.find(name);
    if (later != first_producer_.end() && later->second >= reader) {
      return Quote(name) + " is produced by " + NodeWhere(later->second) +
             ", which comes later: the graph has a cycle or its nodes are out of order";
    }
    return Quote(name) +
           " is not defined (neither the graph input, an initializer nor a node output)";
  }

  // The node's data operand must be the value the chain has computed so far.
  Status CheckDataInput(int index, int slot, const std::string& where) const {
    const onnx::NodeProto& node = graph_.node(index);
    const std::string& name = node.input(slot);
    if (name == current_) return Status::Ok();
    if (name.empty()) return Error(where, "input " + std::to_string(slot) + " is missing");
    return Error(where, "reads " + DescribeValue(name, index) +
                            "; only a chain is supported, where each node reads the value the "
                            "previous one computed (" +
                            Quote(current_) + ")");
  }

  Result<Constant> ConstantInput(int index, int slot, const char* role,
                                 const std::string& where) const {
    const onnx::NodeProto& node = graph_.node(index);
    const std::string& name = slot < node.input_size() ? node.input(slot) : std::string();
    if (name.empty()) return Error(where, std::string("input ") + role + " is missing");
    auto constant = initializers_.find(name);
    if (constant != initializers_.end()) return constant->second;
    return Error(where, std::string("input ") + role + " must be an initializer (a constant); " +
                            DescribeValue(name, index));
  }

  // The float32 values of an initializer, after checking its type, storage
  // and element count against its dims and the parameter limit.
  Result<std::vector<float>> ConstantValues(const Constant& constant, const std::string& user) {
    const onnx::TensorProto& tensor = *constant.tensor;
    const std::string where = InitializerWhere(constant.index) + " " + Quote(tensor.name());
    const std::string used = " (used by " + user + ")";
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL || tensor.external_data_size() > 0) {
      std::string location;
      for (const auto& entry : tensor.external_data()) {
        if (entry.key() == "location") location = " in " + Quote(entry.value());
      }
      return Error(where, "the initializer keeps its data in an external file" + location +
                              "; calcjit needs the weights inside the model file (save with "
                              "onnx.save_model(model, path, save_as_external_data=False))" +
                              used);
    }
    if (tensor.has_segment())
      return Error(where, "a segment of a split tensor is not supported" + used);
    if (tensor.data_type() != onnx::TensorProto::FLOAT) {
      return Error(where, "the initializer is " + ElemTypeName(tensor.data_type()) +
                              "; only FLOAT (float32) initializers are supported" + used);
    }
    std::uint64_t count = 1;
    for (std::int64_t dim : tensor.dims()) {
      if (dim < 0) return Error(where, "negative dimension in " + DimsText(tensor.dims()));
      if (static_cast<std::uint64_t>(dim) > kMaxNetParameters ||
          (count *= static_cast<std::uint64_t>(dim)) > kMaxNetParameters) {
        return Error(where, "dimensions " + DimsText(tensor.dims()) + " exceed the limit of " +
                                Thousands(kMaxNetParameters) + " parameters" + used);
      }
    }
    if (tensor.int32_data_size() > 0 || tensor.int64_data_size() > 0 ||
        tensor.double_data_size() > 0 || tensor.uint64_data_size() > 0 ||
        tensor.string_data_size() > 0) {
      return Error(where, "a FLOAT initializer with values in a field for another type");
    }
    std::vector<float> values(count);
    if (tensor.has_raw_data()) {
      if (tensor.float_data_size() > 0) return Error(where, "both raw_data and float_data are set");
      if (tensor.raw_data().size() != count * sizeof(float)) {
        return Error(where, "raw_data has " + Thousands(tensor.raw_data().size()) +
                                " bytes; dims " + DimsText(tensor.dims()) + " need " +
                                Thousands(count * sizeof(float)));
      }
      if (count > 0) std::memcpy(values.data(), tensor.raw_data().data(), count * sizeof(float));
    } else {
      if (static_cast<std::uint64_t>(tensor.float_data_size()) != count) {
        return Error(where, "float_data has " + Thousands(tensor.float_data_size()) +
                                " values; dims " + DimsText(tensor.dims()) + " need " +
                                Thousands(count));
      }
      std::copy(tensor.float_data().begin(), tensor.float_data().end(), values.begin());
    }
    parameters_ += count;
    if (parameters_ > kMaxNetParameters) {
      return Error(where, "the net has more than " + Thousands(kMaxNetParameters) +
                              " parameters, the limit" + used);
    }
    return values;
  }

  // A constant that broadcasts to one row [1, width]: [], [1], [width],
  // [1, 1] or [1, width]; a single value is repeated across the row.
  Result<std::vector<float>> RowVector(const Constant& constant, std::uint32_t width,
                                       const char* role, const std::string& where) {
    const auto& dims = constant.tensor->dims();
    const auto fits = [&](std::int64_t d) { return d == 1 || d == width; };
    const bool broadcasts = dims.size() == 0 || (dims.size() == 1 && fits(dims[0])) ||
                            (dims.size() == 2 && dims[0] == 1 && fits(dims[1]));
    if (!broadcasts) {
      return Error(where, std::string(role) + " " + Quote(constant.tensor->name()) + " has shape " +
                              DimsText(dims) + "; it must broadcast to one row [1, " +
                              std::to_string(width) + "]: [" + std::to_string(width) + "], [1, " +
                              std::to_string(width) + "], [1] or a scalar");
    }
    Result<std::vector<float>> values = ConstantValues(constant, where);
    if (!values.ok()) return values.status();
    if (values->size() == 1 && width != 1) return std::vector<float>(width, (*values)[0]);
    return values;
  }

  // The node's single output becomes the chain's current value.
  Status DefineOutput(int index, const std::string& where, std::uint32_t width) {
    const onnx::NodeProto& node = graph_.node(index);
    if (node.output_size() != 1) {
      return Error(where, node.op_type() + " has " + std::to_string(node.output_size()) +
                              " outputs; exactly one is supported");
    }
    const std::string& name = node.output(0);
    if (name.empty()) return Error(where, "the node's output has no name");
    auto defined = defined_.find(name);
    if (defined != defined_.end()) {
      return Error(where, "output " + Quote(name) + " is already defined: " +
                              DescribeValue(name, index) + "; every value must be produced once");
    }
    defined_.emplace(name, Definition{Origin::kNode, index});
    chain_widths_.emplace(name, width);
    current_ = name;
    width_ = width;
    return Status::Ok();
  }

  NetStep NewStep(int index, NetStepKind kind) const {
    const onnx::NodeProto& node = graph_.node(index);
    NetStep step;
    step.kind = kind;
    step.in_width = width_;
    step.out_width = width_;
    step.node_index = static_cast<std::uint32_t>(index);
    step.node_name = node.name();
    step.op_type = node.op_type();
    return step;
  }

  // The output width K of a weight matrix, checked against the limit.
  Status CheckOutputWidth(std::int64_t k, const std::string& where, const std::string& what) const {
    if (k < 1 || k > kMaxNetWidth) {
      return Error(where, what + " gives " + std::to_string(k) + " outputs; a layer needs 1 to " +
                              Thousands(kMaxNetWidth));
    }
    return Status::Ok();
  }

  Status ReadGemm(int index, const std::string& where) {
    const onnx::NodeProto& node = graph_.node(index);
    static constexpr AttributeSpec kAttributes[] = {
        {"alpha", onnx::AttributeProto::FLOAT},
        {"beta", onnx::AttributeProto::FLOAT},
        {"transA", onnx::AttributeProto::INT},
        {"transB", onnx::AttributeProto::INT},
    };
    CALCJIT_RETURN_IF_ERROR(CheckAttributes(node, where, kAttributes));
    CALCJIT_RETURN_IF_ERROR(CheckInputCount(node, where, 2, 3));
    const bool has_c = node.input_size() >= 3 && !node.input(2).empty();
    if (!has_c && opset_ < 11) {
      return Error(where, "Gemm before opset 11 needs input C (it is optional from opset 11)");
    }
    const float alpha = FloatAttribute(node, "alpha", 1.0f);
    const float beta = FloatAttribute(node, "beta", 1.0f);
    if (alpha != 1.0f || beta != 1.0f) {
      return Error(where, "alpha = " + std::to_string(alpha) + ", beta = " + std::to_string(beta) +
                              "; only alpha = beta = 1 is supported");
    }
    if (IntAttribute(node, "transA", 0) != 0) return Error(where, "transA = 1 is not supported");
    const std::int64_t trans_b = IntAttribute(node, "transB", 0);
    if (trans_b != 0 && trans_b != 1) {
      return Error(where, "transB = " + std::to_string(trans_b) + "; it must be 0 or 1");
    }
    CALCJIT_RETURN_IF_ERROR(CheckDataInput(index, 0, where));
    Result<Constant> b = ConstantInput(index, 1, "B", where);
    if (!b.ok()) return b.status();
    const auto& dims = b->tensor->dims();
    const std::string b_text = "B " + Quote(b->tensor->name()) + " is " + DimsText(dims);
    if (dims.size() != 2) return Error(where, b_text + "; it must be a matrix");
    const std::int64_t inner = trans_b ? dims[1] : dims[0];
    const std::int64_t k = trans_b ? dims[0] : dims[1];
    if (inner != width_) {
      return Error(where, b_text + " with transB = " + std::to_string(trans_b) + ", so it needs " +
                              std::to_string(inner) + " inputs, but the value it multiplies has " +
                              std::to_string(width_));
    }
    CALCJIT_RETURN_IF_ERROR(CheckOutputWidth(k, where, b_text));
    return AddLinear(index, where, *b, trans_b != 0, has_c);
  }

  Status ReadMatMul(int index, const std::string& where) {
    const onnx::NodeProto& node = graph_.node(index);
    CALCJIT_RETURN_IF_ERROR(CheckAttributes(node, where, {}));
    CALCJIT_RETURN_IF_ERROR(CheckInputCount(node, where, 2, 2));
    if (node.input(1) == current_ && node.input(0) != current_) {
      return Error(where,
                   "MatMul(W, x) with the computed value on the right is not supported; "
                   "only MatMul(x, W) with a constant right operand");
    }
    CALCJIT_RETURN_IF_ERROR(CheckDataInput(index, 0, where));
    Result<Constant> b = ConstantInput(index, 1, "B", where);
    if (!b.ok()) return b.status();
    const auto& dims = b->tensor->dims();
    const std::string b_text = "B " + Quote(b->tensor->name()) + " is " + DimsText(dims);
    if (dims.size() != 2) {
      return Error(where, b_text + "; it must be a matrix [" + std::to_string(width_) +
                              ", K] (the result must stay [N, K])");
    }
    if (dims[0] != width_) {
      return Error(where, b_text + ", so it needs " + std::to_string(dims[0]) +
                              " inputs, but the value it multiplies has " + std::to_string(width_));
    }
    CALCJIT_RETURN_IF_ERROR(CheckOutputWidth(dims[1], where, b_text));
    return AddLinear(index, where, *b, /*transposed=*/false, /*has_c=*/false);
  }

  Status AddLinear(int index, const std::string& where, const Constant& b, bool transposed,
                   bool has_c) {
    const auto& dims = b.tensor->dims();
    const auto k = static_cast<std::uint32_t>(transposed ? dims[0] : dims[1]);
    NetStep step = NewStep(index, NetStepKind::kLinear);
    step.out_width = k;
    Result<std::vector<float>> values = ConstantValues(b, where);
    if (!values.ok()) return values.status();
    if (transposed) {  // B is [K, m]: W[i][j] = B[j][i]
      step.weights.resize(values->size());
      for (std::uint32_t j = 0; j < k; ++j) {
        for (std::uint32_t i = 0; i < width_; ++i) {
          step.weights[std::size_t{i} * k + j] = (*values)[std::size_t{j} * width_ + i];
        }
      }
    } else {
      step.weights = std::move(*values);
    }
    if (has_c) {
      Result<Constant> c = ConstantInput(index, 2, "C", where);
      if (!c.ok()) return c.status();
      Result<std::vector<float>> bias = RowVector(*c, k, "C", where);
      if (!bias.ok()) return bias.status();
      step.has_bias = true;
      step.bias = std::move(*bias);
    }
    CALCJIT_RETURN_IF_ERROR(DefineOutput(index, where, k));
    net_.steps.push_back(std::move(step));
    return Status::Ok();
  }

  Status ReadAdd(int index, const std::string& where) {
    const onnx::NodeProto& node = graph_.node(index);
    CALCJIT_RETURN_IF_ERROR(CheckAttributes(node, where, {}));
    CALCJIT_RETURN_IF_ERROR(CheckInputCount(node, where, 2, 2));
    if (node.input(0) == current_ && node.input(1) == current_) {
      return Error(where,
                   "Add of the computed value to itself is not supported; only the Add of "
                   "a constant row vector");
    }
    // Either operand order: x + b and b + x are the same IEEE addition.
    const int data_slot = node.input(1) == current_ ? 1 : 0;
    CALCJIT_RETURN_IF_ERROR(CheckDataInput(index, data_slot, where));
    Result<Constant> b = ConstantInput(index, 1 - data_slot, "B", where);
    if (!b.ok()) return b.status();
    NetStep step = NewStep(index, NetStepKind::kAddBias);
    Result<std::vector<float>> bias = RowVector(*b, width_, "the added constant", where);
    if (!bias.ok()) return bias.status();
    step.has_bias = true;
    step.bias = std::move(*bias);
    CALCJIT_RETURN_IF_ERROR(DefineOutput(index, where, width_));
    net_.steps.push_back(std::move(step));
    return Status::Ok();
  }

  Status ReadActivation(int index, const std::string& where, NetActivation activation) {
    const onnx::NodeProto& node = graph_.node(index);
    static constexpr AttributeSpec kLeakyAttributes[] = {{"alpha", onnx::AttributeProto::FLOAT}};
    const bool leaky = activation == NetActivation::kLeakyRelu;
    CALCJIT_RETURN_IF_ERROR(CheckAttributes(node, where,
                                            leaky ? std::span<const AttributeSpec>(kLeakyAttributes)
                                                  : std::span<const AttributeSpec>()));
    CALCJIT_RETURN_IF_ERROR(CheckInputCount(node, where, 1, 1));
    CALCJIT_RETURN_IF_ERROR(CheckDataInput(index, 0, where));
    NetStep step = NewStep(index, NetStepKind::kActivation);
    step.activation = activation;
    if (leaky) {
      step.alpha = FloatAttribute(node, "alpha", 0.01f);
      if (!std::isfinite(step.alpha)) {
        return Error(where,
                     "LeakyRelu's alpha is " + std::to_string(step.alpha) + "; it must be finite");
      }
    }
    CALCJIT_RETURN_IF_ERROR(DefineOutput(index, where, width_));
    net_.steps.push_back(std::move(step));
    return Status::Ok();
  }

  // Identity, and Flatten with axis 1: no step, the value passes through.
  Status ReadPassThrough(int index, const std::string& where) {
    const onnx::NodeProto& node = graph_.node(index);
    if (node.op_type() == "Flatten") {
      static constexpr AttributeSpec kAttributes[] = {{"axis", onnx::AttributeProto::INT}};
      CALCJIT_RETURN_IF_ERROR(CheckAttributes(node, where, kAttributes));
      const std::int64_t axis = IntAttribute(node, "axis", 1);
      const bool negative_allowed = opset_ >= 11;
      if (axis != 1 && !(axis == -1 && negative_allowed)) {
        return Error(where, "Flatten with axis = " + std::to_string(axis) +
                                " is not supported; only axis 1" +
                                (negative_allowed ? " (or -1)" : "") +
                                ", which leaves [N, w] as it is");
      }
    } else {
      CALCJIT_RETURN_IF_ERROR(CheckAttributes(node, where, {}));
    }
    CALCJIT_RETURN_IF_ERROR(CheckInputCount(node, where, 1, 1));
    CALCJIT_RETURN_IF_ERROR(CheckDataInput(index, 0, where));
    return DefineOutput(index, where, width_);
  }

  // --- The end of the chain ---------------------------------------------------

  Status CheckChainEnd() {
    const std::string& output = graph_.output(0).name();
    const std::string where = "graph.output[0] " + Quote(output);
    if (output != current_) {
      auto defined = defined_.find(output);
      if (defined != defined_.end() && defined->second.origin == Origin::kNode) {
        return Error(where, "the graph output is computed by " + NodeWhere(defined->second.node) +
                                ", but the chain goes on to " + Quote(current_) +
                                ": every node must lead to the output");
      }
      return Error(where, "the graph output is not the chain's last value " + Quote(current_) +
                              ": " + DescribeValue(output, graph_.node_size()));
    }
    net_.info.num_parameters = parameters_;
    return CheckRowType(graph_.output(0), where, "output", &width_);
  }

  // Shapes the file declares for intermediate values must match the chain.
  Status CheckValueInfo() const {
    for (int i = 0; i < graph_.value_info_size(); ++i) {
      const onnx::ValueInfoProto& value = graph_.value_info(i);
      auto chain = chain_widths_.find(value.name());
      if (chain == chain_widths_.end()) continue;
      const std::string where =
          "graph.value_info[" + std::to_string(i) + "] " + Quote(value.name());
      if (!value.type().has_tensor_type()) continue;
      const onnx::TypeProto::Tensor& tensor = value.type().tensor_type();
      if (tensor.elem_type() != 0 && tensor.elem_type() != onnx::TensorProto::FLOAT) {
        return Error(where, "declared as " + ElemTypeName(tensor.elem_type()) +
                                "; the chain computes FLOAT");
      }
      if (!tensor.has_shape()) continue;
      const onnx::TensorShapeProto& shape = tensor.shape();
      if (shape.dim_size() != 2 ||
          (shape.dim(1).has_dim_value() && shape.dim(1).dim_value() != chain->second)) {
        return Error(where, "declared " + ShapeText(shape) + " but the chain computes [N, " +
                                std::to_string(chain->second) + "]");
      }
    }
    return Status::Ok();
  }

  const onnx::ModelProto& model_;
  const onnx::GraphProto& graph_;
  std::string file_;
  std::int64_t opset_ = 0;
  std::unordered_map<std::string, Constant> initializers_;
  std::unordered_map<std::string, Definition> defined_;
  std::unordered_map<std::string, int> first_producer_;
  std::unordered_map<std::string, std::uint32_t> chain_widths_;
  std::string current_;  // the chain's value so far
  std::uint32_t width_ = 0;
  std::uint64_t parameters_ = 0;
  OnnxNet net_;
};

// Printable ASCII and white space in the first 64 bytes: a text-format
// protobuf, JSON or a script, not a binary model (whose first byte is a tag
// like 0x08, ir_version).
bool LooksLikeText(std::string_view bytes) {
  const std::string_view head = bytes.substr(0, 64);
  for (unsigned char c : head) {
    if ((c < 0x20 || c > 0x7E) && c != '\n' && c != '\r' && c != '\t') return false;
  }
  return !head.empty();
}

}  // namespace

Result<OnnxNet> ReadOnnx(std::string_view bytes, std::string_view file_name) {
  const std::string file(file_name);
  if (bytes.size() > kMaxOnnxFileBytes) {
    return UserError("model file of " + Thousands(bytes.size()) +
                         " bytes; the limit is 2 GiB less one byte (protobuf's)",
                     file);
  }
  if (bytes.empty()) return UserError("empty file; not an ONNX model", file);
  WireScanLimits limits;
  limits.max_depth = kMaxMessageDepth;
  const WireScanResult scan = ScanWire(bytes, *onnx::ModelProto::descriptor(), limits);
  if (!scan.ok) {
    std::string message = "malformed ONNX file: " + scan.message;
    if (!scan.path.empty()) message += " (in " + scan.path + ")";
    if (LooksLikeText(bytes)) {
      message += "; the file looks like text; calcjit reads binary .onnx files";
    } else if (scan.offset == 0) {
      message += "; is it a binary .onnx model?";
    }
    return UserError(std::move(message), file + ": byte " + std::to_string(scan.offset));
  }
  try {
    onnx::ModelProto model;
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                                              static_cast<int>(bytes.size()));
    in.SetRecursionLimit(kMaxMessageDepth + 1);
    if (!model.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
      return UserError("malformed ONNX file: protobuf could not parse it", file);
    }
    return NetReader(model, file_name).Read();
  } catch (const std::bad_alloc&) {
    return RuntimeError("out of memory reading the model", file);
  }
}

}  // namespace calcjit::model
