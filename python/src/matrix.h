// Rows as input from Python (calcjit/matrix.h): the native half of
// engine.evaluate(X) and predict(X); calcjit/_matrix.py is the other.
#ifndef CALCJIT_PYTHON_MATRIX_H_
#define CALCJIT_PYTHON_MATRIX_H_

#include <pybind11/pybind11.h>

namespace calcjit::python {

// Adds _matrix_columns and _check_matrix_inputs to the module.
void DefineMatrix(pybind11::module_& module);

}  // namespace calcjit::python

#endif  // CALCJIT_PYTHON_MATRIX_H_
