#include "evaluation.h"

#include <algorithm>
#include <cstdint>

#include "errors.h"

namespace calcjit::python {

namespace py = pybind11;

namespace {

// Exactly what the engine can read in place: float32 in native byte order,
// C-contiguous, aligned.
using Float32Array = py::array_t<float, py::array::c_style>;

bool IsUsableInPlace(py::handle value) {
  return py::isinstance<Float32Array>(value) && (py::reinterpret_borrow<py::array>(value).flags() &
                                                 py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
}

std::string TypeName(py::handle value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

// "a float64 array", "a non-contiguous float32 array", "a Python list".
std::string Describe(py::handle value) {
  if (!py::isinstance<py::array>(value)) return "a Python " + TypeName(value);
  const auto array = py::reinterpret_borrow<py::array>(value);
  const std::string dtype = py::str(array.dtype()).cast<std::string>();
  if (!py::isinstance<Float32Array>(value) && array.dtype().kind() == 'f' &&
      array.dtype().itemsize() == 4 && (array.flags() & py::array::c_style) == 0) {
    return "a non-contiguous " + dtype + " array";
  }
  if (py::isinstance<Float32Array>(value)) return "an unaligned " + dtype + " array";
  return "a " + dtype + " array";
}

std::string ShapeText(const py::array& array) {
  std::string text = "(";
  for (py::ssize_t k = 0; k < array.ndim(); ++k) {
    if (k > 0) text += ", ";
    text += std::to_string(array.shape(k));
  }
  return text + (array.ndim() == 1 ? ",)" : ")");
}

std::string ScopeText(const InputInfo& input) {
  std::string text = input.scope == Scope::kItem ? "an item " : "a query ";
  return text + (input.is_vector() ? "vector of dimension " + std::to_string(input.dimension)
                                   : std::string("scalar"));
}

// The value as a float32 array the engine can read in place: the caller's
// own array when it already is one, else (copy=True) one conversion.
py::array AsFloat32(py::handle value, const std::string& what, const std::string& name, bool copy) {
  if (IsUsableInPlace(value)) return py::reinterpret_borrow<py::array>(value);
  const py::module_ numpy = py::module_::import("numpy");
  // A single number (a query scalar) is no data to copy: copy=False takes it.
  const bool number = py::isinstance<py::float_>(value) || py::isinstance<py::int_>(value) ||
                      py::isinstance(value, numpy.attr("generic"));
  if (!copy && !number) {
    RaiseUserError(what + " '" + name + "' is " + Describe(value) +
                       "; with copy=False only C-contiguous, aligned numpy float32 arrays are "
                       "accepted (np.ascontiguousarray(x, dtype=np.float32) makes one)",
                   name);
  }
  try {
    return numpy.attr("require")(value, "float32", "CA");
  } catch (py::error_already_set& error) {
    RaiseUserError(
        what + " '" + name + "' (" + Describe(value) +
            ") cannot be converted to float32: " + py::str(error.value()).cast<std::string>(),
        name);
  }
}

void ReadOffsets(const CallArguments& arguments, Call& call) {
  if (arguments.offsets.is_none()) {
    if (!arguments.item_count) return;
    call.item_count = *arguments.item_count;
    call.offsets = {0, call.item_count};
    return;
  }
  const auto offsets = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(
      arguments.offsets);
  if (!offsets || offsets.ndim() != 1 || offsets.size() < 1 || offsets.at(0) != 0) {
    PyErr_Clear();
    RaiseUserError("query offsets must be a 1-D array of ascending item indices starting at 0");
  }
  call.offsets.reserve(static_cast<std::size_t>(offsets.size()));
  for (py::ssize_t k = 0; k < offsets.size(); ++k) {
    const std::int64_t offset = offsets.at(k);
    if (offset < 0 || (k > 0 && offset < offsets.at(k - 1))) {
      RaiseUserError("query offsets must be ascending item indices starting at 0");
    }
    call.offsets.push_back(static_cast<std::size_t>(offset));
  }
  call.item_count = call.offsets.back();
  if (arguments.item_count && *arguments.item_count != call.item_count) {
    RaiseUserError("n=" + std::to_string(*arguments.item_count) + " but the queries have " +
                   std::to_string(call.item_count) + " items");
  }
}

// Checks an input's shape for `item_count` items in `query_count` queries.
void CheckShape(const Call& call, CallInput& input) {
  const InputInfo& info = *input.info;
  const py::array& array = input.array;
  const std::size_t d = info.dimension;
  input.width = d > 0 ? d : 1;
  auto fail = [&](const std::string& expected) {
    RaiseUserError("input '" + info.name + "' is " + ScopeText(info) + ": expected " + expected +
                       ", got shape " + ShapeText(array),
                   info.name);
  };
  auto dim = [&](py::ssize_t k) { return static_cast<std::size_t>(array.shape(k)); };
  const std::size_t n = call.item_count;
  const std::string items = std::to_string(n);
  if (info.scope == Scope::kItem) {
    if (!call.item_count_source.empty() && array.ndim() == (d > 0 ? 2 : 1) && dim(0) != n) {
      RaiseUserError("input '" + info.name + "' has " + std::to_string(dim(0)) +
                         " items but input '" + call.item_count_source + "' has " + items +
                         ": item inputs need one row per item",
                     info.name);
    }
    if (d == 0 && (array.ndim() != 1 || dim(0) != n)) {
      fail("shape (" + items + ",) for " + items + " items");
    }
    if (d > 0 && (array.ndim() != 2 || dim(0) != n || dim(1) != d)) {
      fail("shape (" + items + ", " + std::to_string(d) + ") for " + items + " items");
    }
    return;
  }
  const std::size_t q = call.query_count();
  const std::string queries = std::to_string(q);
  const std::string one = d == 0 ? "a scalar" : "shape (" + std::to_string(d) + ",)";
  const std::string per_query =
      d == 0 ? "shape (" + queries + ",)" : "shape (" + queries + ", " + std::to_string(d) + ")";
  const std::string expected = one + " (every query) or " + per_query + " (one row per query)";
  if (d == 0) {
    if (array.ndim() == 0) return;
    if (array.ndim() == 1 && dim(0) == q) {
      input.per_query = true;
      return;
    }
  } else {
    if (array.ndim() == 1 && dim(0) == d) return;
    if (array.ndim() == 2 && dim(0) == q && dim(1) == d) {
      input.per_query = true;
      return;
    }
  }
  fail(expected);
}

void BindInputs(const Schema& schema, const Schema* ignorable, const CallArguments& arguments,
                Call& call) {
  if (arguments.inputs.is_none()) return;
  if (!py::hasattr(arguments.inputs, "items")) {
    RaiseUserError("inputs must be a mapping (a dict) from input names to arrays, not " +
                   Describe(arguments.inputs));
  }
  for (py::handle item : arguments.inputs.attr("items")()) {
    const py::tuple pair = py::reinterpret_borrow<py::tuple>(item);
    if (!py::isinstance<py::str>(pair[0])) {
      RaiseUserError("input names must be strings, not " + Describe(pair[0]));
    }
    const std::string name = pair[0].cast<std::string>();
    if (pair[1].is_none()) continue;  // unbound: the default applies
    const std::optional<std::size_t> slot = schema.FindInput(name);
    if (!slot) {
      if (ignorable != nullptr && ignorable->FindInput(name)) continue;
      RaiseUserError("unknown input '" + name + "': the set has no input of that name", name);
    }
    CallInput input;
    input.slot = *slot;
    input.info = &schema.inputs[*slot];
    input.array = AsFloat32(pair[1], "input", name, arguments.copy);
    input.data = static_cast<const float*>(input.array.data());
    call.inputs.push_back(std::move(input));
  }
}

void BindOutputs(const Schema& schema, const CallArguments& arguments, Call& call) {
  std::vector<std::optional<py::array>> given(schema.outputs.size());
  if (!arguments.out.is_none()) {
    if (!py::hasattr(arguments.out, "items")) {
      RaiseUserError("out must be a mapping (a dict) from output names to arrays, not " +
                     Describe(arguments.out));
    }
    for (py::handle item : arguments.out.attr("items")()) {
      const py::tuple pair = py::reinterpret_borrow<py::tuple>(item);
      if (!py::isinstance<py::str>(pair[0])) {
        RaiseUserError("output names must be strings, not " + Describe(pair[0]));
      }
      const std::string name = pair[0].cast<std::string>();
      const std::optional<std::size_t> slot = schema.FindOutput(name);
      if (!slot) {
        RaiseUserError("unknown output '" + name + "': the engine does not compute it", name);
      }
      // Never converted: the results would go to the copy.
      if (!IsUsableInPlace(pair[1])) {
        RaiseUserError("output '" + name + "' is " + Describe(pair[1]) +
                           "; out= takes only C-contiguous, aligned numpy float32 arrays",
                       name);
      }
      const auto array = py::reinterpret_borrow<py::array>(pair[1]);
      if (!array.writeable()) RaiseUserError("output '" + name + "' is read-only", name);
      if (array.ndim() != 1 || static_cast<std::size_t>(array.shape(0)) != call.item_count) {
        RaiseUserError("output '" + name + "' must have shape (" + std::to_string(call.item_count) +
                           ",), got " + ShapeText(array),
                       name);
      }
      given[*slot] = array;
    }
  }
  for (std::size_t slot = 0; slot < schema.outputs.size(); ++slot) {
    CallOutput output;
    output.slot = slot;
    output.array = given[slot] ? *given[slot]
                               : py::array(Float32Array(static_cast<py::ssize_t>(call.item_count)));
    output.data = static_cast<float*>(output.array.mutable_data());
    call.outputs.push_back(std::move(output));
  }
}

}  // namespace

Call PrepareCall(const Schema& schema, const Schema* ignorable, const CallArguments& arguments) {
  Call call;
  ReadOffsets(arguments, call);
  BindInputs(schema, ignorable, arguments, call);
  if (call.offsets.empty()) {
    // The item count from the first item input given as an array.
    const auto source =
        std::find_if(call.inputs.begin(), call.inputs.end(), [](const CallInput& input) {
          return input.info->scope == Scope::kItem && input.array.ndim() >= 1;
        });
    if (source == call.inputs.end()) {
      RaiseUserError("cannot tell the number of items: give an item input, or n=");
    }
    call.item_count = static_cast<std::size_t>(source->array.shape(0));
    call.item_count_source = source->info->name;
    call.offsets = {0, call.item_count};
  }
  for (CallInput& input : call.inputs) CheckShape(call, input);
  BindOutputs(schema, arguments, call);
  return call;
}

py::dict Call::Results(const Schema& schema) const {
  py::dict results;
  for (const CallOutput& output : outputs) {
    results[py::str(schema.outputs[output.slot])] = output.array;
  }
  return results;
}

std::span<const float> QueryInput(const Call& call, const CallInput& input, std::size_t query) {
  if (input.info->scope == Scope::kItem) {
    const std::size_t begin = call.offsets[query];
    const std::size_t end = call.offsets[query + 1];
    return {input.data + begin * input.width, (end - begin) * input.width};
  }
  return {input.data + (input.per_query ? query * input.width : 0), input.width};
}

std::span<float> QueryOutput(const Call& call, const CallOutput& output, std::size_t query) {
  const std::size_t begin = call.offsets[query];
  return {output.data + begin, call.offsets[query + 1] - begin};
}

}  // namespace calcjit::python
