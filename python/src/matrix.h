// Rows as input from Python (calcjit/matrix.h): the native half of
// engine.evaluate(X) and predict(X) (Engine._evaluate_rows, through
// EvaluateCall); calcjit/_matrix.py is the other.
#ifndef CALCJIT_PYTHON_MATRIX_H_
#define CALCJIT_PYTHON_MATRIX_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>

#include "calcjit/calcjit.hpp"

namespace calcjit::python {

class EvaluationTarget;

// The rows of a 2-D float32 array as a MatrixView; raises calcjit.Error for
// one the native code cannot read in place (calcjit/_matrix.py hands over
// only aligned float32 arrays with non-negative strides).
MatrixView RowsOf(const pybind11::array& x);

// Binds the columns of `rows` (the first `items` of them) to the schema's
// inputs in order, through `columns` (which the caller keeps until the
// evaluation ends); the copy of a C-order matrix runs without the GIL.
void BindRows(EvaluationTarget& target, const Schema& schema, const MatrixView& rows,
              std::size_t items, MatrixColumns& columns);

}  // namespace calcjit::python

#endif  // CALCJIT_PYTHON_MATRIX_H_
