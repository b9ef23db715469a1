#include "matrix.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "calcjit/matrix.h"
#include "errors.h"

namespace calcjit::python {

namespace py = pybind11;

namespace {

// The float32 matrix X as columns: X itself when its columns are contiguous
// (Fortran order), else a new Fortran-order array of the same values, copied
// by the runtime's CopyMatrixColumns with the GIL released. X must be a 2-D
// float32 array of native byte order, aligned, with non-negative strides
// (calcjit/_matrix.py makes sure of it).
py::array MatrixColumns(const py::array& x) {
  if (x.ndim() != 2 || !py::isinstance<py::array_t<float>>(x) ||
      (x.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) == 0 || x.strides(0) < 0 ||
      x.strides(1) < 0 || x.strides(0) % 4 != 0 || x.strides(1) % 4 != 0) {
    RaiseUserError("internal: _matrix_columns takes an aligned 2-D float32 array");
  }
  const auto rows = static_cast<std::size_t>(x.shape(0));
  const auto columns = static_cast<std::size_t>(x.shape(1));
  MatrixView view{static_cast<const float*>(x.data()), rows, columns,
                  static_cast<std::size_t>(x.strides(0)) / sizeof(float),
                  static_cast<std::size_t>(x.strides(1)) / sizeof(float)};
  if (view.row_stride == 1 || rows <= 1) return x;  // columns already contiguous
  ThrowIfError(CheckMatrix(view));
  py::array_t<float, py::array::f_style> out({x.shape(0), x.shape(1)});
  float* data = out.mutable_data();
  {
    const py::gil_scoped_release release;
    CopyMatrixColumns(view, rows, data);
  }
  return out;
}

void CheckInputs(const std::vector<InputInfo>& inputs, std::size_t columns) {
  Schema schema;
  schema.inputs = inputs;
  ThrowIfError(CheckMatrixInputs(schema, columns));
}

}  // namespace

void DefineMatrix(py::module_& module) {
  module.def("_matrix_columns", &MatrixColumns, py::arg("x").noconvert(),
             "Low level; use evaluate(X). The columns of a 2-D float32 array as a "
             "Fortran-order array (X itself when it is one).");
  module.def("_check_matrix_inputs", &CheckInputs, py::arg("inputs"), py::arg("columns"),
             "Low level: raises calcjit.Error unless a matrix of `columns` columns can bind "
             "`inputs` in order (each an item scalar).");
}

}  // namespace calcjit::python
