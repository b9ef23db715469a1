// The C API's feature sets and schemas.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "calcjit/calcjit.h"
#include "capi/arguments.h"
#include "capi/errors.h"
#include "capi/handles.h"

using calcjit::Status;
using calcjit::UserError;
using calcjit::capi::Call;
using calcjit::capi::CallValue;
using calcjit::capi::CheckBytes;
using calcjit::capi::CheckFormat;
using calcjit::capi::CreateHandle;
using calcjit::capi::NullArgument;

extern "C" {

// ---------------------------------------------------------------------------
// Feature sets

calcjit_status calcjit_set_parse(const void* data, size_t size, calcjit_format format,
                                 calcjit_set** out) {
  return calcjit_set_parse_with_models(data, size, format, nullptr, nullptr, 0, out);
}

calcjit_status calcjit_set_parse_with_models(const void* data, size_t size, calcjit_format format,
                                             const char* model_root,
                                             const calcjit_model_bytes* models, size_t model_count,
                                             calcjit_set** out) {
  return Call([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    std::string_view bytes;
    CALCJIT_RETURN_IF_ERROR(CheckBytes(data, size, &bytes));
    calcjit::Format cpp_format{};
    CALCJIT_RETURN_IF_ERROR(CheckFormat(format, &cpp_format));
    if (models == nullptr && model_count != 0) return NullArgument("models");
    calcjit::LoadOptions options;
    if (model_root != nullptr) options.model_root = model_root;
    for (size_t m = 0; m < model_count; ++m) {
      const std::string where = "models[" + std::to_string(m) + "]";
      if (models[m].name == nullptr) return NullArgument((where + ".name").c_str());
      if (models[m].data == nullptr && models[m].size > 0) {
        return NullArgument((where + ".data").c_str());
      }
      options.model_bytes[models[m].name] =
          std::string_view(static_cast<const char*>(models[m].data), models[m].size);
    }
    calcjit::Result<calcjit::FeatureSet> set =
        calcjit::FeatureSet::Parse(bytes, cpp_format, options);
    if (!set.ok()) return set.status();
    return CreateHandle(std::make_unique<calcjit_set>(std::move(set).value()), out);
  });
}

calcjit_status calcjit_set_read_file(const char* path, calcjit_set** out) {
  return Call([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (path == nullptr) return NullArgument("path");
    calcjit::Result<calcjit::FeatureSet> set = calcjit::FeatureSet::ReadFile(path);
    if (!set.ok()) return set.status();
    return CreateHandle(std::make_unique<calcjit_set>(std::move(set).value()), out);
  });
}

void calcjit_set_free(calcjit_set* set) {
  delete set;
}

calcjit_status calcjit_set_schema(const calcjit_set* set, calcjit_schema** out) {
  return Call([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (set == nullptr) return NullArgument("set");
    return CreateHandle(std::make_unique<calcjit_schema>(set->set.schema()), out);
  });
}

// ---------------------------------------------------------------------------
// Schemas

size_t calcjit_schema_input_count(const calcjit_schema* schema) {
  return CallValue<std::size_t>(0, [&](std::size_t& count) -> Status {
    if (schema == nullptr) return NullArgument("schema");
    count = schema->schema.inputs.size();
    return Status::Ok();
  });
}

calcjit_status calcjit_schema_input(const calcjit_schema* schema, size_t index,
                                    calcjit_input_info* out) {
  return Call([&]() -> Status {
    if (schema == nullptr) return NullArgument("schema");
    if (out == nullptr) return NullArgument("out");
    const std::vector<calcjit::InputInfo>& inputs = schema->schema.inputs;
    if (index >= inputs.size()) {
      return UserError("input index " + std::to_string(index) + " is out of range (" +
                       std::to_string(inputs.size()) + " inputs)");
    }
    const calcjit::InputInfo& input = inputs[index];
    calcjit_input_info info{};
    info.name = input.name.c_str();
    info.scope = input.scope == calcjit::Scope::kQuery ? CALCJIT_SCOPE_QUERY : CALCJIT_SCOPE_ITEM;
    info.dimension = input.dimension;
    info.has_default = input.default_value.has_value() ? 1 : 0;
    info.default_value = input.default_value.value_or(0.0f);
    info.declared = input.declared ? 1 : 0;
    *out = info;
    return Status::Ok();
  });
}

size_t calcjit_schema_output_count(const calcjit_schema* schema) {
  return CallValue<std::size_t>(0, [&](std::size_t& count) -> Status {
    if (schema == nullptr) return NullArgument("schema");
    count = schema->schema.outputs.size();
    return Status::Ok();
  });
}

const char* calcjit_schema_output_name(const calcjit_schema* schema, size_t index) {
  return CallValue<const char*>(nullptr, [&](const char*& name) -> Status {
    if (schema == nullptr) return NullArgument("schema");
    const std::vector<std::string>& outputs = schema->schema.outputs;
    if (index >= outputs.size()) {
      return UserError("output index " + std::to_string(index) + " is out of range (" +
                       std::to_string(outputs.size()) + " outputs)");
    }
    name = outputs[index].c_str();
    return Status::Ok();
  });
}

void calcjit_schema_free(calcjit_schema* schema) {
  delete schema;
}

}  // extern "C"
