// The C API's sessions: binding the caller's memory and evaluating, one query
// or many per call. Every binding rule and the many-query evaluation are
// calcjit::Session's (runtime/bindings.cc, runtime/session.cc); here are only
// the C-specific checks (NULL pointers).
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "calcjit/arrow.h"
#include "calcjit/calcjit.h"
#include "capi/arguments.h"
#include "capi/errors.h"
#include "capi/handles.h"
#include "capi/rows.h"

using calcjit::Extent;
using calcjit::Status;
using calcjit::UserError;
using calcjit::capi::Call;
using calcjit::capi::CreateHandle;
using calcjit::capi::NullArgument;
using calcjit::capi::Quoted;

namespace {

Status BindInput(calcjit_session* session, const char* name, const float* data, size_t count,
                 Extent extent) {
  if (session == nullptr) return NullArgument("session");
  if (name == nullptr) return NullArgument("name");
  if (data == nullptr && count > 0) {
    return UserError(
        "the data of input " + Quoted(name) + " is NULL but count is " + std::to_string(count),
        name);
  }
  const std::span<const float> values =
      count == 0 ? std::span<const float>() : std::span<const float>(data, count);
  return session->session.BindInput(name, values, extent);
}

Status BindOutput(calcjit_session* session, const char* name, float* data, size_t count,
                  Extent extent) {
  if (session == nullptr) return NullArgument("session");
  if (name == nullptr) return NullArgument("name");
  if (data == nullptr && count > 0) {
    return UserError(
        "the data of output " + Quoted(name) + " is NULL but count is " + std::to_string(count),
        name);
  }
  const std::span<float> values = count == 0 ? std::span<float>() : std::span<float>(data, count);
  return session->session.BindOutput(name, values, extent);
}

// The input's dimension from the session's schema; an unknown name is the
// runtime's error (binding it fails with the message every frontend gives).
Status BindInputArrow(calcjit_session* session, const char* name, const ArrowArray* array,
                      const ArrowSchema* schema, int* copied) {
  if (session == nullptr) return NullArgument("session");
  if (name == nullptr) return NullArgument("name");
  if (array == nullptr) return NullArgument("array");
  if (schema == nullptr) return NullArgument("schema");
  const calcjit::Schema& inputs = session->session.schema();
  const std::optional<std::size_t> slot = inputs.FindInput(name);
  if (!slot) return session->session.BindInput(name, {}, Extent::kExact);
  std::vector<float> converted;
  const calcjit::Result<calcjit::ArrowFloats> floats = calcjit::ReadArrowFloats(
      *array, *schema, inputs.inputs[*slot].dimension, name, [&](std::size_t count) {
        converted.resize(count);
        return std::span<float>(converted);
      });
  if (!floats.ok()) return floats.status();
  CALCJIT_RETURN_IF_ERROR(session->session.BindInput(name, floats->values, Extent::kExact));
  // Bound: the previous copy of this name (if any) is no longer read. A moved
  // vector keeps its buffer, so the binding stays valid.
  if (floats->copied) {
    session->arrow_copies[name] = std::move(converted);
  } else {
    const auto previous = session->arrow_copies.find(std::string_view(name));
    if (previous != session->arrow_copies.end()) session->arrow_copies.erase(previous);
  }
  if (copied != nullptr) *copied = floats->copied ? 1 : 0;
  return Status::Ok();
}

Status Evaluate(calcjit_session* session, std::span<const std::size_t> item_counts,
                uint64_t* version) {
  session->has_results = false;
  CALCJIT_RETURN_IF_ERROR(calcjit::capi::BindRowsForCall(session, item_counts));
  CALCJIT_RETURN_IF_ERROR(session->session.EvaluateQueries(item_counts));
  session->has_results = true;
  if (version != nullptr) *version = session->session.version();
  return Status::Ok();
}

}  // namespace

extern "C" {

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
  return Call([&] { return BindInput(session, name, data, count, Extent::kExact); });
}

calcjit_status calcjit_session_bind_input_prefix(calcjit_session* session, const char* name,
                                                 const float* data, size_t capacity) {
  return Call([&] { return BindInput(session, name, data, capacity, Extent::kPrefix); });
}

calcjit_status calcjit_session_bind_output(calcjit_session* session, const char* name, float* data,
                                           size_t count) {
  return Call([&] { return BindOutput(session, name, data, count, Extent::kExact); });
}

calcjit_status calcjit_session_bind_output_prefix(calcjit_session* session, const char* name,
                                                  float* data, size_t capacity) {
  return Call([&] { return BindOutput(session, name, data, capacity, Extent::kPrefix); });
}

calcjit_status calcjit_session_bind_input_arrow(calcjit_session* session, const char* name,
                                                const struct ArrowArray* array,
                                                const struct ArrowSchema* schema, int* copied) {
  return Call([&] { return BindInputArrow(session, name, array, schema, copied); });
}

calcjit_status calcjit_session_clear(calcjit_session* session) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    session->session.Clear();
    session->rows.reset();
    session->arrow_copies.clear();
    return Status::Ok();
  });
}

calcjit_status calcjit_session_rebind(calcjit_session* session) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    session->session.Rebind();
    session->has_results = false;
    return Status::Ok();
  });
}

calcjit_status calcjit_session_evaluate(calcjit_session* session, size_t item_count,
                                        uint64_t* version) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    return Evaluate(session, std::span<const std::size_t>(&item_count, 1), version);
  });
}

calcjit_status calcjit_session_evaluate_many(calcjit_session* session, size_t query_count,
                                             const size_t* item_counts, uint64_t* version) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    if (item_counts == nullptr && query_count > 0) return NullArgument("item_counts");
    const std::span<const std::size_t> counts =
        query_count == 0 ? std::span<const std::size_t>()
                         : std::span<const std::size_t>(item_counts, query_count);
    return Evaluate(session, counts, version);
  });
}

calcjit_status calcjit_session_output(const calcjit_session* session, const char* name,
                                      const float** data, size_t* count) {
  return Call([&]() -> Status {
    if (session == nullptr) return NullArgument("session");
    if (name == nullptr) return NullArgument("name");
    if (data == nullptr) return NullArgument("data");
    if (count == nullptr) return NullArgument("count");
    const calcjit::Result<std::span<const float>> output = session->session.Output(name);
    if (!output.ok()) return output.status();
    if (!session->has_results) {
      return UserError(
          "no results: the session has not evaluated successfully since it was "
          "created, rebound or its last evaluation failed",
          name);
    }
    *data = output->data();
    *count = output->size();
    return Status::Ok();
  });
}

}  // extern "C"
