#include "arrow_columns.h"

#include <pybind11/numpy.h>

#include <cstdint>
#include <span>
#include <string>

#include "calcjit/arrow.h"
#include "errors.h"
#include "evaluation.h"

namespace calcjit::python {

namespace py = pybind11;

namespace {

template <typename T>
T* CapsulePointer(const py::object& capsule, const char* name) {
  if (!PyCapsule_IsValid(capsule.ptr(), name)) {
    throw py::type_error(std::string("expected a PyCapsule named '") + name +
                         "' (the Arrow PyCapsule interface)");
  }
  return static_cast<T*>(PyCapsule_GetPointer(capsule.ptr(), name));
}

// (array, copied): the column's floats as a read-only float32 array of shape
// (rows,) or (rows, dimension). In place, the array's base is the array
// capsule, so the Arrow buffers live as long as the numpy view.
py::tuple ArrowFloats(const py::object& schema_capsule, const py::object& array_capsule,
                      std::uint32_t dimension, const std::string& name) {
  const auto* schema = CapsulePointer<ArrowSchema>(schema_capsule, "arrow_schema");
  const auto* array = CapsulePointer<ArrowArray>(array_capsule, "arrow_array");
  py::array converted;
  const Result<calcjit::ArrowFloats> floats =
      ReadArrowFloats(*array, *schema, dimension, name, [&](std::size_t count) {
        const std::size_t rows = dimension == 0 ? count : count / dimension;
        converted = NewFloat32Array(rows, dimension);
        return std::span<float>(static_cast<float*>(converted.mutable_data()), count);
      });
  ThrowIfError(floats.status());
  if (floats->copied) return py::make_tuple(converted, true);
  constexpr auto kFloat = static_cast<py::ssize_t>(sizeof(float));
  const auto rows = static_cast<py::ssize_t>(array->length);
  const auto d = static_cast<py::ssize_t>(dimension);
  // An empty column may have no buffer: any aligned address will do.
  static const float kNoData = 0.0f;
  const float* data = floats->values.empty() ? &kNoData : floats->values.data();
  py::array view =
      dimension == 0
          ? py::array(py::dtype::of<float>(), {rows}, {kFloat}, data, array_capsule)
          : py::array(py::dtype::of<float>(), {rows, d}, {d * kFloat, kFloat}, data, array_capsule);
  // Arrow's buffers are immutable.
  view.attr("flags").attr("writeable") = false;
  return py::make_tuple(view, false);
}

}  // namespace

void DefineArrowColumns(py::module_& module) {
  module.def("_arrow_floats", &ArrowFloats, py::arg("schema"), py::arg("array"),
             py::arg("dimension"), py::arg("name"),
             "Low level; used by calcjit._arrow. (float32 array, copied) for the column of an "
             "Arrow PyCapsule pair: a view when it is float32 without nulls, else a copy with "
             "nulls as NaN.");
}

}  // namespace calcjit::python
