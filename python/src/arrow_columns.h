// Arrow columns for Python (calcjit/_arrow.py): a column handed over through
// the Arrow PyCapsule interface (`__arrow_c_array__` of pyarrow and polars)
// read by calcjit's one Arrow reader (calcjit/arrow.h) into a numpy float32
// array: a view of the Arrow buffer when it is float32 without nulls, else
// one converted copy.
#ifndef CALCJIT_PYTHON_ARROW_COLUMNS_H_
#define CALCJIT_PYTHON_ARROW_COLUMNS_H_

#include <pybind11/pybind11.h>

namespace calcjit::python {

// Defines _calcjit._arrow_floats.
void DefineArrowColumns(pybind11::module_& module);

}  // namespace calcjit::python

#endif  // CALCJIT_PYTHON_ARROW_COLUMNS_H_
