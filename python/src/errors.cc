#include "errors.h"

#include <pybind11/stl.h>

#include <cstdio>

namespace calcjit::python {

namespace py = pybind11;

namespace {

// calcjit.Error; created once at import and never freed (the interpreter
// owns the module that holds it; a static py::object would be destroyed
// after the interpreter at exit).
PyObject* error_type = nullptr;

const char* KindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kOk:
      return "ok";
    case ErrorKind::kUser:
      return "user";
    case ErrorKind::kRuntime:
      return "runtime";
    case ErrorKind::kInternal:
      return "internal";
  }
  return "internal";
}

}  // namespace

std::string Utf8(py::handle text, const std::string& what) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(text.ptr(), &size);
  if (data != nullptr) return std::string(data, static_cast<std::size_t>(size));
  PyErr_Clear();
  const Py_ssize_t length = PyUnicode_GetLength(text.ptr());
  for (Py_ssize_t k = 0; k < length; ++k) {
    const Py_UCS4 c = PyUnicode_ReadChar(text.ptr(), k);
    if (c >= 0xD800 && c <= 0xDFFF) {
      char unit[8];
      std::snprintf(unit, sizeof unit, "\\u%04x", static_cast<unsigned>(c));
      throw py::value_error(what + " has an unpaired surrogate (" + unit + ") at index " +
                            std::to_string(k) + ": it is not valid Unicode");
    }
  }
  PyErr_Clear();
  throw py::value_error(what + " is not valid Unicode");
}

void RegisterError(py::module_& module) {
  error_type = PyErr_NewExceptionWithDoc(
      "calcjit.Error",
      "A calcjit error: a feature set that does not parse or check, wrong input data or "
      "arguments (kind 'user'), a failing environment such as a missing file (kind "
      "'runtime'), or a bug in calcjit (kind 'internal').\n\n"
      "str(e) lists every problem as 'location: message', one per line. Attributes:\n"
      "  kind        'user', 'runtime' or 'internal'\n"
      "  location    where the first problem is: 'line:column' in the text syntax, a field\n"
      "              path in JSON and protobuf, 'byte N' in malformed protobuf, an input or\n"
      "              output name at evaluation; '' when there is none\n"
      "  message     the first problem, without its location\n"
      "  diagnostics every problem, as Diagnostic objects (.location, .message)",
      PyExc_ValueError, nullptr);
  if (error_type == nullptr) throw py::error_already_set();
  py::handle type(error_type);
  // Defaults, so that an Error raised from Python code has the attributes too.
  type.attr("kind") = "user";
  type.attr("location") = "";
  type.attr("message") = "";
  type.attr("diagnostics") = py::list();
  module.attr("Error") = type;  // the module holds a reference of its own

  py::class_<Diagnostic>(module, "Diagnostic", "One problem of an Error and where it is.")
      .def_readonly("location", &Diagnostic::location)
      .def_readonly("message", &Diagnostic::message)
      .def("__str__", &Diagnostic::ToString)
      .def("__repr__", [](const Diagnostic& d) {
        return "Diagnostic(location=" + py::repr(py::str(d.location)).cast<std::string>() +
               ", message=" + py::repr(py::str(d.message)).cast<std::string>() + ")";
      });
}

void Raise(const Status& status) {
  py::object exception = py::handle(error_type)(status.ToString());
  exception.attr("kind") = KindName(status.kind());
  exception.attr("location") = status.location();
  exception.attr("message") = status.message();
  exception.attr("diagnostics") = py::cast(status.diagnostics());
  PyErr_SetObject(error_type, exception.ptr());
  throw py::error_already_set();
}

}  // namespace calcjit::python
