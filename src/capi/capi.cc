// The stable C API (include/calcjit/calcjit.h) over the C++ serving API.
//
// Every entry point runs its body through Call/CallValue: a Status becomes a
// calcjit_status and the thread's last error, and no exception crosses the C
// boundary. The session's many-queries evaluation lives here, on top of
// calcjit::Session: the caller's bindings span every query, and each query
// is evaluated with subspans of them.
#include "calcjit/calcjit.h"

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "calcjit/calcjit.hpp"

using calcjit::ErrorKind;
using calcjit::Status;

// ---------------------------------------------------------------------------
// The handles.

struct calcjit_set {
  explicit calcjit_set(calcjit::FeatureSet feature_set) : set(std::move(feature_set)) {}
  calcjit::FeatureSet set;
};

struct calcjit_schema {
  explicit calcjit_schema(calcjit::Schema copy) : schema(std::move(copy)) {}
  calcjit::Schema schema;
};

struct calcjit_engine {
  explicit calcjit_engine(calcjit::ServingEngine serving) : engine(std::move(serving)) {}
  calcjit::ServingEngine engine;
};

struct calcjit_session {
  struct InputBinding {
    bool bound = false;
    const float* data = nullptr;
    std::size_t count = 0;
  };
  struct OutputBinding {
    bool bound = false;
    float* data = nullptr;
    std::size_t count = 0;
  };

  explicit calcjit_session(const calcjit::ServingEngine& engine) : session(engine) {
    inputs.resize(session.schema().inputs.size());
    outputs.resize(session.schema().outputs.size());
    owned.resize(session.schema().outputs.size());
  }

  calcjit::Session session;
  // The caller's bindings over every query, by index in session.schema().
  std::vector<InputBinding> inputs;
  std::vector<OutputBinding> outputs;
  // The buffers of the outputs the caller did not bind: every query's items
  // concatenated. Grown when needed, never shrunk.
  std::vector<std::vector<float>> owned;
  // The results of the last successful evaluation, by output index.
  bool has_results = false;
  std::vector<const float*> results;
  std::size_t result_count = 0;
};

namespace {

// ---------------------------------------------------------------------------
// The thread's last error.

struct LastError {
  std::string message;
  std::string location;
  std::string details;
  // Used when recording the error itself ran out of memory.
  const char* fallback = nullptr;
};

LastError& ThreadError() {
  thread_local LastError error;
  return error;
}

void ClearError() noexcept {
  LastError& error = ThreadError();
  error.message.clear();
  error.location.clear();
  error.details.clear();
  error.fallback = nullptr;
}

calcjit_status CodeOf(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kUser:
      return CALCJIT_ERROR_USER;
    case ErrorKind::kRuntime:
      return CALCJIT_ERROR_RUNTIME;
    case ErrorKind::kOk:
    case ErrorKind::kInternal:
      break;
  }
  return CALCJIT_ERROR_INTERNAL;
}

calcjit_status RecordFallback(calcjit_status code, const char* message) noexcept {
  ClearError();
  ThreadError().fallback = message;
  return code;
}

calcjit_status Record(const Status& status) noexcept {
  if (status.ok()) {
    ClearError();
    return CALCJIT_OK;
  }
  const calcjit_status code = CodeOf(status.kind());
  try {
    LastError& error = ThreadError();
    error.fallback = nullptr;
    error.message = status.message();
    error.location = status.location();
    error.details = status.ToString();
  } catch (...) {
    return RecordFallback(code, "out of memory (while recording an error)");
  }
  return code;
}

// A message built in a catch handler, where nothing may throw.
calcjit_status RecordException(calcjit_status code, const char* message,
                               const char* what) noexcept {
  try {
    std::string text = message;
    if (what != nullptr && *what != '\0') text.append(": ").append(what);
    return Record(
        Status::Error(code == CALCJIT_ERROR_RUNTIME ? ErrorKind::kRuntime : ErrorKind::kInternal,
                      std::move(text)));
  } catch (...) {
    return RecordFallback(code, message);
  }
}

// Runs an entry point's body (returning a Status) with every exception caught.
template <typename Body>
calcjit_status Call(Body&& body) noexcept {
  try {
    return Record(body());
  } catch (const std::bad_alloc&) {
    return RecordException(CALCJIT_ERROR_RUNTIME, "out of memory", nullptr);
  } catch (const std::exception& e) {
    return RecordException(CALCJIT_ERROR_INTERNAL, "unexpected exception", e.what());
  } catch (...) {
    return RecordException(CALCJIT_ERROR_INTERNAL, "unexpected exception", nullptr);
  }
}

// For the entry points that return a value: `body(value)` returns a Status;
// on error the function returns `fallback`.
template <typename T, typename Body>
T CallValue(T fallback, Body&& body) noexcept {
  T value = fallback;
  const calcjit_status code = Call([&] { return body(value); });
  return code == CALCJIT_OK ? value : fallback;
}

Status UserError(std::string message, std::string location = {}) {
  return calcjit::UserError(std::move(message), std::move(location));
}

Status NullArgument(const char* what) {
  return UserError(std::string(what) + " is NULL");
}

std::string Quoted(std::string_view name) {
  return "'" + std::string(name) + "'";
}

std::string Floats(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " float" : " floats");
}

template <typename Handle>
Status CreateHandle(std::unique_ptr<Handle> handle, Handle** out) {
  *out = handle.release();
  return Status::Ok();
}

std::optional<calcjit::Format> FormatOf(calcjit_format format) {
  switch (format) {
    case CALCJIT_FORMAT_TEXT:
      return calcjit::Format::kText;
    case CALCJIT_FORMAT_JSON:
      return calcjit::Format::kJson;
    case CALCJIT_FORMAT_PROTO:
      return calcjit::Format::kProto;
    case CALCJIT_FORMAT_INT_:
      break;
  }
  return std::nullopt;
}

std::optional<calcjit::Backend> BackendOf(calcjit_backend backend) {
  switch (backend) {
    case CALCJIT_BACKEND_REFERENCE:
      return calcjit::Backend::kReference;
    case CALCJIT_BACKEND_VM:
      return calcjit::Backend::kVm;
    case CALCJIT_BACKEND_JIT:
      return calcjit::Backend::kJit;
    case CALCJIT_BACKEND_AUTO:
      return calcjit::Backend::kAuto;
    case CALCJIT_BACKEND_INT_:
      break;
  }
  return std::nullopt;
}

calcjit_backend BackendToC(calcjit::Backend backend) {
  switch (backend) {
    case calcjit::Backend::kReference:
      return CALCJIT_BACKEND_REFERENCE;
    case calcjit::Backend::kVm:
      return CALCJIT_BACKEND_VM;
    case calcjit::Backend::kJit:
      return CALCJIT_BACKEND_JIT;
    case calcjit::Backend::kAuto:
      break;
  }
  return CALCJIT_BACKEND_AUTO;
}

Status CheckFormat(calcjit_format format, calcjit::Format* out) {
  const std::optional<calcjit::Format> known = FormatOf(format);
  if (!known) {
    return UserError("unknown format " + std::to_string(static_cast<int>(format)) +
                     " (CALCJIT_FORMAT_TEXT, _JSON or _PROTO)");
  }
  *out = *known;
  return Status::Ok();
}

Status CheckBackend(calcjit_backend backend, calcjit::Backend* out) {
  const std::optional<calcjit::Backend> known = BackendOf(backend);
  if (!known) {
    return UserError("unknown backend " + std::to_string(static_cast<int>(backend)) +
                     " (CALCJIT_BACKEND_REFERENCE, _VM, _JIT or _AUTO)");
  }
  *out = *known;
  return Status::Ok();
}

Status CheckBytes(const void* data, std::size_t size, std::string_view* out) {
  if (data == nullptr && size > 0) return NullArgument("data");
  *out = size == 0 ? std::string_view() : std::string_view(static_cast<const char*>(data), size);
  return Status::Ok();
}

Status EngineOptionsOf(const calcjit_options* options, calcjit::EngineOptions* out) {
  if (options == nullptr) return Status::Ok();
  CALCJIT_RETURN_IF_ERROR(CheckBackend(options->backend, &out->backend));
  if (options->output_count > 0 && options->outputs == nullptr) {
    return UserError("options.outputs is NULL but options.output_count is " +
                     std::to_string(options->output_count));
  }
  for (std::size_t k = 0; k < options->output_count; ++k) {
    if (options->outputs[k] == nullptr) {
      return UserError("options.outputs[" + std::to_string(k) + "] is NULL");
    }
    out->outputs.emplace_back(options->outputs[k]);
  }
  if (options->isa != nullptr) {
    const std::optional<calcjit::Isa> isa = calcjit::IsaFromName(options->isa);
    if (!isa) {
      return UserError("unknown instruction set " + Quoted(options->isa) +
                       " (auto, x86-64, avx2 or avx512)");
    }
    out->isa = *isa;
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// Evaluating a session: the caller's bindings cover every query.

bool Overlaps(const void* a, std::size_t a_floats, const void* b, std::size_t b_floats) {
  if (a_floats == 0 || b_floats == 0 || a == nullptr || b == nullptr) return false;
  const auto a_begin = reinterpret_cast<std::uintptr_t>(a);
  const auto b_begin = reinterpret_cast<std::uintptr_t>(b);
  return a_begin < b_begin + b_floats * sizeof(float) &&
         b_begin < a_begin + a_floats * sizeof(float);
}

// a * b, or nullopt when it overflows.
std::optional<std::size_t> Multiply(std::size_t a, std::size_t b) {
  std::size_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

std::string InputShape(const calcjit::InputInfo& input, std::size_t item_count,
                       std::size_t query_count) {
  const std::string dimension = std::to_string(input.dimension);
  if (input.scope == calcjit::Scope::kItem) {
    std::string text =
        " for " + std::to_string(item_count) + (item_count == 1 ? " item" : " items");
    if (input.is_vector()) text += " of dimension " + dimension;
    return text;
  }
  if (query_count == 1) {
    return input.is_vector() ? " (a query vector of dimension " + dimension + ")"
                             : " (a query scalar)";
  }
  return " for " + std::to_string(query_count) + " queries" +
         (input.is_vector() ? " (a vector of dimension " + dimension + " per query)"
                            : " (one per query)");
}

// Checks every binding against the query counts, before anything is written.
Status CheckBindings(const calcjit_session& s, std::size_t query_count, std::size_t item_count) {
  const calcjit::Schema& schema = s.session.schema();
  for (std::size_t k = 0; k < schema.inputs.size(); ++k) {
    const calcjit::InputInfo& input = schema.inputs[k];
    const calcjit_session::InputBinding& binding = s.inputs[k];
    if (!binding.bound) {
      if (input.default_value) continue;
      return UserError("input " + Quoted(input.name) + " is not bound and has no default value",
                       input.name);
    }
    const std::size_t width = input.is_vector() ? input.dimension : 1;
    const std::optional<std::size_t> expected =
        Multiply(input.scope == calcjit::Scope::kItem ? item_count : query_count, width);
    if (!expected || binding.count != *expected) {
      return UserError(
          "input " + Quoted(input.name) + " needs " +
              (expected ? Floats(*expected) : std::string("more floats than fit in memory")) +
              InputShape(input, item_count, query_count) + ", got " + std::to_string(binding.count),
          input.name);
    }
  }
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    const calcjit_session::OutputBinding& binding = s.outputs[k];
    if (binding.bound && binding.count != item_count) {
      return UserError("output " + Quoted(schema.outputs[k]) + " needs " + Floats(item_count) +
                           " for " + std::to_string(item_count) +
                           (item_count == 1 ? " item" : " items") + ", got " +
                           std::to_string(binding.count),
                       schema.outputs[k]);
    }
  }
  // The backends write outputs in blocks while reading inputs: no output may
  // share memory with an input or another output, over the whole call.
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    const calcjit_session::OutputBinding& out = s.outputs[k];
    if (!out.bound) continue;
    for (std::size_t i = 0; i < schema.inputs.size(); ++i) {
      const calcjit_session::InputBinding& in = s.inputs[i];
      if (in.bound && Overlaps(out.data, out.count, in.data, in.count)) {
        return UserError("output " + Quoted(schema.outputs[k]) + " shares memory with input " +
                             Quoted(schema.inputs[i].name) + "; outputs need buffers of their own",
                         schema.outputs[k]);
      }
    }
    for (std::size_t other = 0; other < k; ++other) {
      const calcjit_session::OutputBinding& o = s.outputs[other];
      if (o.bound && Overlaps(out.data, out.count, o.data, o.count)) {
        return UserError("outputs " + Quoted(schema.outputs[other]) + " and " +
                             Quoted(schema.outputs[k]) +
                             " share memory; each output needs a buffer of its own",
                         schema.outputs[k]);
      }
    }
  }
  // Nor may a binding point into a buffer the session is about to overwrite
  // (or reallocate): an unbound output's results from the last evaluation.
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    if (s.outputs[k].bound) continue;
    const std::vector<float>& owned = s.owned[k];
    for (std::size_t i = 0; i < schema.inputs.size(); ++i) {
      const calcjit_session::InputBinding& in = s.inputs[i];
      if (in.bound && Overlaps(owned.data(), owned.size(), in.data, in.count)) {
        return UserError("input " + Quoted(schema.inputs[i].name) +
                             " is bound to the session's own buffer of output " +
                             Quoted(schema.outputs[k]) +
                             ", which evaluating overwrites; copy the values first",
                         schema.inputs[i].name);
      }
    }
    for (std::size_t other = 0; other < schema.outputs.size(); ++other) {
      const calcjit_session::OutputBinding& o = s.outputs[other];
      if (o.bound && Overlaps(owned.data(), owned.size(), o.data, o.count)) {
        return UserError("output " + Quoted(schema.outputs[other]) +
                             " is bound to the session's own buffer of output " +
                             Quoted(schema.outputs[k]) + "; outputs need buffers of their own",
                         schema.outputs[other]);
      }
    }
  }
  return Status::Ok();
}

// The error of query `q`, named when there are several.
Status InQuery(const Status& status, std::size_t q, std::size_t query_count) {
  std::vector<calcjit::Diagnostic> diagnostics = status.diagnostics();
  for (calcjit::Diagnostic& d : diagnostics) {
    if (query_count > 1) {
      d.message.insert(0,
                       "query " + std::to_string(q) + " of " + std::to_string(query_count) + ": ");
    }
  }
  return Status::Errors(status.kind(), std::move(diagnostics));
}

Status EvaluateMany(calcjit_session& s, std::size_t query_count, const std::size_t* item_counts,
                    std::uint64_t* version) {
  s.has_results = false;
  if (query_count == 0) {
    // Nothing to compute: every output has 0 items.
    s.results.assign(s.outputs.size(), nullptr);
    s.result_count = 0;
    s.has_results = true;
    if (version != nullptr) *version = 0;
    return Status::Ok();
  }
  if (item_counts == nullptr) return NullArgument("item_counts");
  std::size_t total = 0;
  for (std::size_t q = 0; q < query_count; ++q) {
    if (__builtin_add_overflow(total, item_counts[q], &total)) {
      return UserError("the item counts add up to more than SIZE_MAX");
    }
  }
  CALCJIT_RETURN_IF_ERROR(CheckBindings(s, query_count, total));

  const calcjit::Schema& schema = s.session.schema();
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    if (!s.outputs[k].bound && s.owned[k].size() < total) s.owned[k].resize(total);
  }
  std::uint64_t first_version = 0;
  std::size_t item_offset = 0;
  for (std::size_t q = 0; q < query_count; ++q) {
    const std::size_t n = item_counts[q];
    for (std::size_t k = 0; k < schema.inputs.size(); ++k) {
      const calcjit_session::InputBinding& binding = s.inputs[k];
      if (!binding.bound) continue;
      const calcjit::InputInfo& input = schema.inputs[k];
      const std::size_t width = input.is_vector() ? input.dimension : 1;
      // The products were checked against the totals in CheckBindings.
      const std::size_t offset = (input.scope == calcjit::Scope::kItem ? item_offset : q) * width;
      const std::size_t count = input.scope == calcjit::Scope::kItem ? n * width : width;
      const std::span<const float> values =
          count == 0 ? std::span<const float>()
                     : std::span<const float>(binding.data + offset, count);
      CALCJIT_RETURN_IF_ERROR(s.session.BindInput(k, values));
    }
    for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
      float* base = s.outputs[k].bound ? s.outputs[k].data : s.owned[k].data();
      const std::span<float> values =
          n == 0 ? std::span<float>() : std::span<float>(base + item_offset, n);
      CALCJIT_RETURN_IF_ERROR(s.session.BindOutput(k, values));
    }
    s.session.SetItemCount(n);
    if (Status status = s.session.Evaluate(); !status.ok()) return InQuery(status, q, query_count);
    const std::uint64_t ran_on = s.session.version();
    if (q == 0) {
      first_version = ran_on;
    } else if (ran_on != first_version) {
      return calcjit::RuntimeError("the set was reloaded during the call (query 0 ran on version " +
                                   std::to_string(first_version) + ", query " + std::to_string(q) +
                                   " on version " + std::to_string(ran_on) + "); evaluate again");
    }
    item_offset += n;
  }
  s.results.resize(schema.outputs.size());
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    s.results[k] = s.outputs[k].bound ? s.outputs[k].data : s.owned[k].data();
  }
  s.result_count = total;
  s.has_results = true;
  if (version != nullptr) *version = first_version;
  return Status::Ok();
}

// After Session::Rebind: the caller's bindings and the owned buffers follow
// their names into the new schema.
void RemapBindings(calcjit_session& s, const calcjit::Schema& old_schema) {
  const calcjit::Schema& schema = s.session.schema();
  std::vector<calcjit_session::InputBinding> inputs(schema.inputs.size());
  std::vector<calcjit_session::OutputBinding> outputs(schema.outputs.size());
  std::vector<std::vector<float>> owned(schema.outputs.size());
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    if (const auto old = old_schema.FindInput(schema.inputs[k].name)) inputs[k] = s.inputs[*old];
  }
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    if (const auto old = old_schema.FindOutput(schema.outputs[k])) {
      outputs[k] = s.outputs[*old];
      owned[k] = std::move(s.owned[*old]);
    }
  }
  s.inputs = std::move(inputs);
  s.outputs = std::move(outputs);
  s.owned = std::move(owned);
  s.has_results = false;
  s.results.clear();
  s.result_count = 0;
}

}  // namespace

// ---------------------------------------------------------------------------
// Errors and version

extern "C" {

const char* calcjit_last_error(void) {
  const LastError& error = ThreadError();
  return error.fallback != nullptr ? error.fallback : error.message.c_str();
}

const char* calcjit_last_error_location(void) {
  const LastError& error = ThreadError();
  return error.fallback != nullptr ? "" : error.location.c_str();
}

const char* calcjit_last_error_details(void) {
  const LastError& error = ThreadError();
  return error.fallback != nullptr ? error.fallback : error.details.c_str();
}

const char* calcjit_version_string(void) {
  return CALCJIT_VERSION_STRING;
}

const char* calcjit_backend_name(calcjit_backend backend) {
  switch (backend) {
    case CALCJIT_BACKEND_REFERENCE:
      return "reference";
    case CALCJIT_BACKEND_VM:
      return "vm";
    case CALCJIT_BACKEND_JIT:
      return "jit";
    case CALCJIT_BACKEND_AUTO:
      return "auto";
    case CALCJIT_BACKEND_INT_:
      break;
  }
  return nullptr;
}

// ---------------------------------------------------------------------------
// Feature sets

calcjit_status calcjit_set_parse(const void* data, size_t size, calcjit_format format,
                                 calcjit_set** out) {
  return Call([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    std::string_view bytes;
    CALCJIT_RETURN_IF_ERROR(CheckBytes(data, size, &bytes));
    calcjit::Format cpp_format{};
    CALCJIT_RETURN_IF_ERROR(CheckFormat(format, &cpp_format));
    calcjit::Result<calcjit::FeatureSet> set = calcjit::FeatureSet::Parse(bytes, cpp_format);
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

// ---------------------------------------------------------------------------
// Engines

void calcjit_options_init(calcjit_options* options) {
  if (options == nullptr) return;
  options->backend = CALCJIT_BACKEND_AUTO;
  options->outputs = nullptr;
  options->output_count = 0;
  options->isa = nullptr;
}

calcjit_status calcjit_engine_create(const calcjit_set* set, const calcjit_options* options,
                                     calcjit_engine** out) {
  return Call([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (set == nullptr) return NullArgument("set");
    calcjit::ServingOptions serving;
    CALCJIT_RETURN_IF_ERROR(EngineOptionsOf(options, &serving.engine));
    calcjit::Result<calcjit::ServingEngine> engine =
        calcjit::ServingEngine::Create(set->set, serving);
    if (!engine.ok()) return engine.status();
    return CreateHandle(std::make_unique<calcjit_engine>(std::move(engine).value()), out);
  });
}

calcjit_status calcjit_engine_reload(calcjit_engine* engine, const calcjit_set* set,
                                     uint64_t* version) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    if (set == nullptr) return NullArgument("set");
    calcjit::Result<std::uint64_t> loaded = engine->engine.Reload(set->set);
    if (!loaded.ok()) return loaded.status();
    if (version != nullptr) *version = *loaded;
    return Status::Ok();
  });
}

calcjit_status calcjit_engine_reload_bytes(calcjit_engine* engine, const void* data, size_t size,
                                           calcjit_format format, uint64_t* version) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    std::string_view bytes;
    CALCJIT_RETURN_IF_ERROR(CheckBytes(data, size, &bytes));
    calcjit::Format cpp_format{};
    CALCJIT_RETURN_IF_ERROR(CheckFormat(format, &cpp_format));
    calcjit::Result<std::uint64_t> loaded = engine->engine.Reload(bytes, cpp_format);
    if (!loaded.ok()) return loaded.status();
    if (version != nullptr) *version = *loaded;
    return Status::Ok();
  });
}

void calcjit_engine_free(calcjit_engine* engine) {
  // The destructor joins the engine's threads; it does not throw.
  delete engine;
}

uint64_t calcjit_engine_version(const calcjit_engine* engine) {
  return CallValue<std::uint64_t>(0, [&](std::uint64_t& version) -> Status {
    if (engine == nullptr) return NullArgument("engine");
    version = engine->engine.version();
    return Status::Ok();
  });
}

calcjit_status calcjit_engine_schema(const calcjit_engine* engine, calcjit_schema** out) {
  return Call([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (engine == nullptr) return NullArgument("engine");
    return CreateHandle(std::make_unique<calcjit_schema>(engine->engine.schema()), out);
  });
}

calcjit_status calcjit_engine_wait_for_jit(const calcjit_engine* engine) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    engine->engine.WaitForJit();
    return Status::Ok();
  });
}

calcjit_status calcjit_engine_stats(const calcjit_engine* engine, calcjit_stats* out) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    if (out == nullptr) return NullArgument("out");
    const calcjit::VersionStats stats = engine->engine.Stats();
    calcjit_stats c{};
    c.version = stats.version;
    c.backend = BackendToC(stats.backend);
    c.jit_pending = stats.jit_pending ? 1 : 0;
    c.parse_ms = stats.parse_ms;
    c.vm_compile_ms = stats.vm_compile_ms;
    c.jit_compile_ms = stats.jit_compile_ms;
    c.evaluations = stats.evaluations;
    c.items = stats.items;
    c.errors = stats.errors;
    c.shadow_evaluations = stats.shadow_evaluations;
    c.shadow_dropped = stats.shadow_dropped;
    c.mismatches = stats.mismatches;
    *out = c;
    return Status::Ok();
  });
}

const char* calcjit_engine_backend_note(const calcjit_engine* engine) {
  return CallValue<const char*>(nullptr, [&](const char*& note) -> Status {
    if (engine == nullptr) return NullArgument("engine");
    thread_local std::string copy;
    copy = engine->engine.Stats().backend_note;
    note = copy.c_str();
    return Status::Ok();
  });
}

calcjit_status calcjit_engine_set_shadow(calcjit_engine* engine, double fraction,
                                         calcjit_backend backend, const calcjit_set* candidate) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    calcjit::ShadowOptions options;
    options.fraction = fraction;
    CALCJIT_RETURN_IF_ERROR(CheckBackend(backend, &options.backend));
    if (candidate != nullptr) {
      options.candidate = std::make_shared<const calcjit::FeatureSet>(candidate->set);
    }
    return engine->engine.SetShadow(options);
  });
}

calcjit_status calcjit_engine_drain_shadow(const calcjit_engine* engine) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    engine->engine.DrainShadow();
    return Status::Ok();
  });
}

size_t calcjit_engine_mismatch_count(const calcjit_engine* engine) {
  return CallValue<std::size_t>(0, [&](std::size_t& count) -> Status {
    if (engine == nullptr) return NullArgument("engine");
    count = engine->engine.Mismatches().size();
    return Status::Ok();
  });
}

calcjit_status calcjit_engine_mismatch(const calcjit_engine* engine, size_t index,
                                       calcjit_mismatch* out) {
  return Call([&]() -> Status {
    if (engine == nullptr) return NullArgument("engine");
    if (out == nullptr) return NullArgument("out");
    const std::vector<calcjit::Mismatch> mismatches = engine->engine.Mismatches();
    if (index >= mismatches.size()) {
      return UserError("mismatch index " + std::to_string(index) + " is out of range (" +
                       std::to_string(mismatches.size()) + " recorded)");
    }
    const calcjit::Mismatch& m = mismatches[index];
    thread_local std::string output;
    output = m.output;
    calcjit_mismatch c{};
    c.version = m.version;
    c.output = output.c_str();
    c.item = m.item;
    c.served_bits = m.served_bits;
    c.shadow_bits = m.shadow_bits;
    *out = c;
    return Status::Ok();
  });
}

// ---------------------------------------------------------------------------
// Sessions

calcjit_status calcjit_session_create(const calcjit_engine* engine, calcjit_session** out) {
  return Call([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (engine == nullptr) return NullArgument("engine");
    return CreateHandle(std::make_unique<calcjit_session>(engine->engine), out);
  });
}

void calcjit_session_free(calcjit_session* session) {
  delete session;
}

calcjit_status calcjit_session_schema(const calcjit_session* session, calcjit_schema** out) {
  return Call([&]() -> Status {
    if (out == nullptr) return NullArgument("out");
    *out = nullptr;
    if (session == nullptr) return NullArgument("session");
    return CreateHandle(std::make_unique<calcjit_schema>(session->session.schema()), out);
  });
}

calcjit_status calcjit_session_bind_input(calcjit_session* session, const char* name,
                                          const float* data, size_t count) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    if (name == nullptr) return NullArgument("name");
    if (data == nullptr && count > 0) {
      return UserError(
          "the data of input " + Quoted(name) + " is NULL but count is " + std::to_string(count),
          name);
    }
    // The session checks the name (and says which version's schema lacks it).
    const std::span<const float> values =
        count == 0 ? std::span<const float>() : std::span<const float>(data, count);
    CALCJIT_RETURN_IF_ERROR(session->session.BindInput(name, values));
    const std::optional<std::size_t> index = session->session.schema().FindInput(name);
    if (!index) return calcjit::InternalError("input " + Quoted(name) + " vanished", name);
    session->inputs[*index] = {true, data, count};
    return Status::Ok();
  });
}

calcjit_status calcjit_session_bind_output(calcjit_session* session, const char* name, float* data,
                                           size_t count) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    if (name == nullptr) return NullArgument("name");
    if (data == nullptr && count > 0) {
      return UserError(
          "the data of output " + Quoted(name) + " is NULL but count is " + std::to_string(count),
          name);
    }
    const std::span<float> values = count == 0 ? std::span<float>() : std::span<float>(data, count);
    CALCJIT_RETURN_IF_ERROR(session->session.BindOutput(name, values));
    const std::optional<std::size_t> index = session->session.schema().FindOutput(name);
    if (!index) return calcjit::InternalError("output " + Quoted(name) + " vanished", name);
    session->outputs[*index] = {true, data, count};
    return Status::Ok();
  });
}

calcjit_status calcjit_session_clear(calcjit_session* session) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    session->session.Clear();
    for (auto& input : session->inputs) input = {};
    for (auto& output : session->outputs) output = {};
    return Status::Ok();
  });
}

calcjit_status calcjit_session_rebind(calcjit_session* session) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    const calcjit::Schema old_schema = session->session.schema();
    session->session.Rebind();
    RemapBindings(*session, old_schema);
    return Status::Ok();
  });
}

calcjit_status calcjit_session_evaluate(calcjit_session* session, size_t item_count,
                                        uint64_t* version) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    return EvaluateMany(*session, 1, &item_count, version);
  });
}

calcjit_status calcjit_session_evaluate_many(calcjit_session* session, size_t query_count,
                                             const size_t* item_counts, uint64_t* version) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    return EvaluateMany(*session, query_count, item_counts, version);
  });
}

calcjit_status calcjit_session_output(const calcjit_session* session, const char* name,
                                      const float** data, size_t* count) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    if (name == nullptr) return NullArgument("name");
    if (data == nullptr) return NullArgument("data");
    if (count == nullptr) return NullArgument("count");
    const std::optional<std::size_t> index = session->session.schema().FindOutput(name);
    if (!index) {
      return UserError("unknown output " + Quoted(name) + " (the session's schema lacks it)", name);
    }
    if (!session->has_results) {
      return UserError(
          "no results: the session has not evaluated successfully since it was "
          "created, rebound or its last evaluation failed",
          name);
    }
    *data = session->results[*index];
    *count = session->result_count;
    return Status::Ok();
  });
}

}  // extern "C"
