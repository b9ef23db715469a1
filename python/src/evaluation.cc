#include "evaluation.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "errors.h"
#include "matrix.h"

namespace calcjit::python {

namespace py = pybind11;

namespace {

// Exactly what the engine can read in place: float32 in native byte order,
// C-contiguous, aligned.
using Float32Array = py::array_t<float, py::array::c_style>;

// numpy 2 changed the layout of a dtype's C struct (PyArray_Descr): Debian's
// pybind11 2.10 reads a dtype's itemsize from that struct, which is wrong
// under numpy 2, and so are the strides it derives from it when an array is
// made without strides. Itemsizes are asked of Python, and arrays are made
// with explicit strides, so that one module works under numpy 1 and 2.
py::ssize_t ItemSize(const py::dtype& dtype) {
  return py::cast<py::ssize_t>(dtype.attr("itemsize"));
}

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
      ItemSize(array.dtype()) == 4 && (array.flags() & py::array::c_style) == 0) {
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

// A masked array's mask is data calcjit cannot honour: refused when anything
// is masked (x.filled(np.nan) says what to evaluate instead), its data taken
// when nothing is. Only ndarray subclasses can be masked: the plain ndarray
// (the hot path) costs one type comparison.
py::object Unmasked(py::handle value, const std::string& what, const std::string& name) {
  if (!py::isinstance<py::array>(value) ||
      Py_TYPE(value.ptr()) ==
          reinterpret_cast<PyTypeObject*>(py::detail::npy_api::get().PyArray_Type_)) {
    return py::reinterpret_borrow<py::object>(value);
  }
  const py::module_ ma = py::module_::import("numpy.ma");
  if (!py::isinstance(value, ma.attr("MaskedArray"))) {
    return py::reinterpret_borrow<py::object>(value);
  }
  const auto masked = py::cast<std::size_t>(ma.attr("count_masked")(value));
  if (masked > 0) {
    RaiseUserError(what + " '" + name + "' is a masked array with " + std::to_string(masked) +
                       " masked element" + (masked == 1 ? "" : "s") +
                       ": calcjit has no missing value but NaN; pass " + name +
                       ".filled(np.nan) to evaluate them as NaN",
                   name);
  }
  return value.attr("data");
}

// Only real numbers are data: complex (the imaginary part would be dropped),
// datetimes, strings and objects are refused, not converted. Values of a
// wider float that round to infinity in float32 are refused as the CLI
// refuses them in a CSV cell; infinities and NaN themselves are values.
void CheckConvertible(const py::object& source, const std::string& what, const std::string& name) {
  const py::dtype dtype = py::reinterpret_borrow<py::array>(source).dtype();
  const char kind = dtype.kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b') {
    const std::string type = py::str(static_cast<py::handle>(dtype)).cast<std::string>();
    const char* what_it_is = kind == 'c'                  ? "complex numbers"
                             : kind == 'M'                ? "datetimes"
                             : kind == 'm'                ? "durations"
                             : kind == 'U' || kind == 'S' ? "strings"
                             : kind == 'O'                ? "Python objects"
                                                          : "not numbers";
    throw py::type_error(what + " '" + name + "' has dtype " + type + " (" + what_it_is +
                         "): calcjit reads real numbers (float, int or bool arrays)");
  }
  if (kind != 'f' || ItemSize(dtype) <= 4) return;
  const py::module_ numpy = py::module_::import("numpy");
  // The smallest magnitude that rounds to infinity: FLT_MAX + half an ulp.
  constexpr double kOverflow = 3.4028235677973366e38;
  const py::object big =
      numpy.attr("logical_and")(numpy.attr("isfinite")(source),
                                numpy.attr("greater_equal")(numpy.attr("abs")(source), kOverflow));
  if (!py::cast<bool>(big.attr("any")())) return;
  const auto index = py::cast<std::size_t>(numpy.attr("argmax")(big.attr("ravel")()));
  const std::string shown = py::repr(source.attr("ravel")()[py::int_(index)]).cast<std::string>();
  RaiseUserError(what + " '" + name + "' holds " + shown + " (at flat index " +
                     std::to_string(index) +
                     "), beyond the float32 range: it would become infinity (pass inf to mean "
                     "infinity)",
                 name);
}

// The value as a float32 array the engine can read in place: the caller's
// own array when it already is one, else (copy=True) one conversion.
py::array AsFloat32(py::handle given, const std::string& what, const std::string& name, bool copy) {
  // Owned: a masked array's data is a new object.
  const py::object value = Unmasked(given, what, name);
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
  py::object source;
  try {
    source = numpy.attr("asarray")(value);
  } catch (py::error_already_set& error) {
    throw py::type_error(
        what + " '" + name + "' (" + Describe(value) +
        ") is not an array of numbers: " + py::str(error.value()).cast<std::string>());
  }
  CheckConvertible(source, what, name);
  try {
    return numpy.attr("require")(source, "float32", "CA");
  } catch (py::error_already_set& error) {
    RaiseUserError(
        what + " '" + name + "' (" + Describe(value) +
            ") cannot be converted to float32: " + py::str(error.value()).cast<std::string>(),
        name);
  }
}

// The queries of the call: their boundaries in the items, once known.
struct Call {
  std::size_t item_count = 0;
  std::vector<std::size_t> offsets;  // query k is the items [offsets[k], offsets[k + 1])
};

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

struct CallInput {
  std::string name;
  const InputInfo* info = nullptr;
  py::array array;  // keeps the floats alive while the GIL is released
};

// The inputs given, converted to float32 arrays the engine reads in place.
std::vector<CallInput> ConvertInputs(EvaluationTarget& target, const Schema& schema,
                                     const Schema* ignorable, const CallArguments& arguments) {
  std::vector<CallInput> inputs;
  if (arguments.inputs.is_none()) return inputs;
  if (!py::hasattr(arguments.inputs, "items")) {
    throw py::type_error("inputs must be a mapping (a dict) from input names to arrays, not " +
                         Describe(arguments.inputs));
  }
  for (py::handle item : arguments.inputs.attr("items")()) {
    const py::tuple pair = py::reinterpret_borrow<py::tuple>(item);
    if (!py::isinstance<py::str>(pair[0])) {
      throw py::type_error("input names must be strings, not " + Describe(pair[0]));
    }
    std::string name = Utf8(pair[0], "an input name");
    if (pair[1].is_none()) continue;  // unbound: the default applies
    const std::optional<std::size_t> slot = schema.FindInput(name);
    if (!slot) {
      if (ignorable != nullptr && ignorable->FindInput(name)) continue;
      // Not an input: the runtime's error for the name (binding it fails).
      ThrowIfError(target.BindInput(name, {}));
      RaiseUserError("unknown input '" + name + "'", name);
    }
    CallInput input;
    input.info = &schema.inputs[*slot];
    input.array = AsFloat32(pair[1], "input", name, arguments.copy);
    input.name = std::move(name);
    inputs.push_back(std::move(input));
  }
  return inputs;
}

// The dimensions an array needs for its input's kind: what a flat length
// cannot tell (the runtime checks the lengths). An item input has a row per
// item; a query input one value (or vector) for every query, or a row per
// query.
void CheckDimensions(const Call& call, const CallInput& input) {
  const InputInfo& info = *input.info;
  const py::array& array = input.array;
  const std::size_t d = info.dimension;
  auto dim = [&](py::ssize_t k) { return static_cast<std::size_t>(array.shape(k)); };
  bool ok = false;
  std::string expected;
  const std::string dimension = std::to_string(d);
  if (info.scope == Scope::kItem) {
    const std::string n = std::to_string(call.item_count);
    ok = d == 0 ? array.ndim() == 1 : array.ndim() == 2 && dim(1) == d;
    expected = d == 0 ? "shape (" + n + ",)" : "shape (" + n + ", " + dimension + ")";
    expected += " for " + n + " items";
  } else {
    const std::string q = std::to_string(call.offsets.size() - 1);
    if (d == 0) {
      ok = array.ndim() <= 1;
      expected = "a number (every query) or shape (" + q + ",) (one per query)";
    } else {
      ok = (array.ndim() == 1 && dim(0) == d) || (array.ndim() == 2 && dim(1) == d);
      expected = "shape (" + dimension + ",) (every query) or (" + q + ", " + dimension +
                 ") (one row per query)";
    }
  }
  if (!ok) {
    RaiseUserError("input '" + info.name + "' is " + ScopeText(info) + ": expected " + expected +
                       ", got shape " + ShapeText(array),
                   info.name);
  }
}

// The out= arrays, and new ones for the other outputs; every output bound.
std::vector<py::array> BindOutputs(EvaluationTarget& target, const Schema& schema,
                                   const CallArguments& arguments, const Call& call) {
  std::vector<std::optional<py::array>> given(schema.outputs.size());
  if (!arguments.out.is_none()) {
    if (!py::hasattr(arguments.out, "items")) {
      throw py::type_error("out must be a mapping (a dict) from output names to arrays, not " +
                           Describe(arguments.out));
    }
    for (py::handle item : arguments.out.attr("items")()) {
      const py::tuple pair = py::reinterpret_borrow<py::tuple>(item);
      if (!py::isinstance<py::str>(pair[0])) {
        throw py::type_error("output names must be strings, not " + Describe(pair[0]));
      }
      const std::string name = Utf8(pair[0], "an output name");
      // Never converted: the results would go to the copy.
      if (!IsUsableInPlace(pair[1])) {
        RaiseUserError("output '" + name + "' is " + Describe(pair[1]) +
                           "; out= takes only C-contiguous, aligned numpy float32 arrays",
                       name);
      }
      auto array = py::reinterpret_borrow<py::array>(pair[1]);
      if (!array.writeable()) RaiseUserError("output '" + name + "' is read-only", name);
      if (array.ndim() != 1) {
        RaiseUserError("output '" + name + "' must have shape (" + std::to_string(call.item_count) +
                           ",), got " + ShapeText(array),
                       name);
      }
      ThrowIfError(target.BindOutput(name, {static_cast<float*>(array.mutable_data()),
                                            static_cast<std::size_t>(array.size())}));
      given[*schema.FindOutput(name)] = array;
    }
  }
  std::vector<py::array> outputs;
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    if (given[k]) {
      outputs.push_back(*given[k]);
      continue;
    }
    py::array array = NewFloat32Array(call.item_count);
    ThrowIfError(target.BindOutput(schema.outputs[k],
                                   {static_cast<float*>(array.mutable_data()), call.item_count}));
    outputs.push_back(std::move(array));
  }
  return outputs;
}

}  // namespace

py::array NewFloat32Array(std::size_t rows, std::size_t columns) {
  constexpr auto kFloat = static_cast<py::ssize_t>(sizeof(float));
  const auto n = static_cast<py::ssize_t>(rows);
  if (columns == 0) return Float32Array({n}, {kFloat});
  const auto d = static_cast<py::ssize_t>(columns);
  return Float32Array({n, d}, {d * kFloat, kFloat});
}

py::dict EvaluateCall(EvaluationTarget& target, const Schema* ignorable,
                      const CallArguments& arguments) {
  // A copy: a session replaces its schema when a reload keeps the shape.
  const Schema schema = target.schema();
  Call call;
  ReadOffsets(arguments, call);
  const std::vector<CallInput> inputs = ConvertInputs(target, schema, ignorable, arguments);
  if (call.offsets.empty()) {
    // One query; its item count from the first item input given as an array.
    const auto source = std::find_if(inputs.begin(), inputs.end(), [](const CallInput& input) {
      return input.info->scope == Scope::kItem && input.array.ndim() >= 1;
    });
    if (source == inputs.end()) {
      RaiseUserError("cannot tell the number of items: give an item input, or n=");
    }
    call.item_count = static_cast<std::size_t>(source->array.shape(0));
    call.offsets = {0, call.item_count};
  }
  for (const CallInput& input : inputs) CheckDimensions(call, input);
  for (const CallInput& input : inputs) {
    ThrowIfError(target.BindInput(input.name, {static_cast<const float*>(input.array.data()),
                                               static_cast<std::size_t>(input.array.size())}));
  }
  // Rows as input (matrix.h): the matrix's columns, alive until the call ends.
  MatrixColumns matrix_columns;
  if (arguments.rows) BindRows(target, schema, *arguments.rows, call.item_count, matrix_columns);
  const std::vector<py::array> outputs = BindOutputs(target, schema, arguments, call);
  std::vector<std::size_t> item_counts(call.offsets.size() - 1);
  for (std::size_t k = 0; k < item_counts.size(); ++k) {
    item_counts[k] = call.offsets[k + 1] - call.offsets[k];
  }

  // Between two queries, every 100 ms: take the GIL and let Python run its
  // signal handlers; one that raised (Ctrl-C) stops the call.
  using Clock = std::chrono::steady_clock;
  constexpr auto kSignalCheckInterval = std::chrono::milliseconds(100);
  Clock::time_point last_check = Clock::now();
  bool interrupted = false;
  const CancelCheck cancelled = [&] {
    if (Clock::now() - last_check < kSignalCheckInterval) return false;
    const py::gil_scoped_acquire gil;
    last_check = Clock::now();
    interrupted = PyErr_CheckSignals() != 0;
    return interrupted;
  };
  Status status;
  {
    const py::gil_scoped_release release;
    status = target.EvaluateQueries(item_counts, cancelled);
  }
  if (interrupted) throw py::error_already_set();  // the handler's exception is pending
  ThrowIfError(status);
  py::dict results;
  for (std::size_t k = 0; k < schema.outputs.size(); ++k) {
    results[py::str(schema.outputs[k])] = outputs[k];
  }
  return results;
}

}  // namespace calcjit::python
