// Reading feature sets and their models from Python: the keyword arguments of
// parse() / read_file() / from_model() as LoadOptions, and a set's pickled
// state (the set as binary protobuf plus each model's bytes, so a set ships
// to a worker process with its models).
#ifndef CALCJIT_PYTHON_SET_LOADING_H_
#define CALCJIT_PYTHON_SET_LOADING_H_

#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "calcjit/calcjit.hpp"

namespace calcjit::python {

namespace py = pybind11;

// A format's name: calc, json or pb.
Format ParseFormat(const std::string& name);
// The bytes of a set given as str (text, JSON) or bytes (any format).
std::string SetData(const py::object& data);
// The format of data given without one: binary protobuf for bytes, text for str.
Format DefaultFormat(const py::object& data, const std::optional<std::string>& format);

FeatureSet ParseSet(const py::object& data, const std::optional<std::string>& format,
                    const py::object& model_root, const py::object& models,
                    bool allow_any_model_path);
FeatureSet ReadSet(const py::object& path, const std::optional<std::string>& format,
                   const py::object& model_root, bool allow_any_model_path);
// A model file (a path) or its bytes as a set of its own.
FeatureSet SetFromModel(const py::object& model, const std::optional<std::string>& format);

// The declared models, as dicts (name, format, path, description, features,
// outputs, feature_names).
py::list ModelsOf(const FeatureSet& set);

py::tuple SetState(const FeatureSet& set);
FeatureSet SetFromState(const py::tuple& state);

}  // namespace calcjit::python

#endif  // CALCJIT_PYTHON_SET_LOADING_H_
