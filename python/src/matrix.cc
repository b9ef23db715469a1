#include "matrix.h"

#include <string>

#include "errors.h"
#include "evaluation.h"

namespace calcjit::python {

namespace py = pybind11;

MatrixView RowsOf(const py::array& x) {
  if (x.ndim() != 2 || !py::isinstance<py::array_t<float>>(x) ||
      (x.flags() & py::detail::npy_api::NPY_ARRAY_ALIGNED_) == 0 || x.strides(0) < 0 ||
      x.strides(1) < 0 || x.strides(0) % 4 != 0 || x.strides(1) % 4 != 0) {
    RaiseUserError("X must be an aligned 2-D float32 array with non-negative strides", "X");
  }
  return MatrixView{static_cast<const float*>(x.data()), static_cast<std::size_t>(x.shape(0)),
                    static_cast<std::size_t>(x.shape(1)),
                    static_cast<std::size_t>(x.strides(0)) / sizeof(float),
                    static_cast<std::size_t>(x.strides(1)) / sizeof(float)};
}

void BindRows(EvaluationTarget& target, const Schema& schema, const MatrixView& rows,
              std::size_t items, MatrixColumns& columns) {
  ThrowIfError(CheckMatrixInputs(schema, rows.columns));
  if (items != rows.rows) {
    RaiseUserError("X has " + std::to_string(rows.rows) + " rows but the call has " +
                       std::to_string(items) + " items",
                   "X");
  }
  Status status;
  {
    const py::gil_scoped_release release;
    status = columns.Assign(rows, items);
  }
  ThrowIfError(status);
  for (std::size_t j = 0; j < schema.inputs.size(); ++j) {
    ThrowIfError(target.BindInput(schema.inputs[j].name, columns.column(j)));
  }
}

}  // namespace calcjit::python
