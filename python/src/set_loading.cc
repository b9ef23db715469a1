#include "set_loading.h"

#include <pybind11/stl.h>

#include <map>
#include <string_view>
#include <utility>

#include "errors.h"

namespace calcjit::python {

Format ParseFormat(const std::string& name) {
  const std::optional<Format> format = FormatFromName(name);
  if (!format) RaiseUserError("unknown format '" + name + "' (calc, json or pb)");
  return *format;
}

namespace {

std::string TypeName(const py::handle& value) {
  return py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>();
}

}  // namespace

// The bytes of a set given as str (text, JSON) or bytes (any format).
std::string SetData(const py::object& data) {
  if (py::isinstance<py::bytes>(data)) return data.cast<std::string>();
  if (py::isinstance<py::str>(data)) return Utf8(data, "data");
  throw py::type_error("data: a feature set is given as str (text or JSON) or bytes, not " +
                       TypeName(data));
}

// The format of data given without one: binary protobuf for bytes, text for str.
Format DefaultFormat(const py::object& data, const std::optional<std::string>& format) {
  if (format) return ParseFormat(*format);
  return py::isinstance<py::bytes>(data) ? Format::kProto : Format::kText;
}

namespace {

// The file system's bytes of a path (os.fsencode: str, bytes or os.PathLike,
// as Python's own os functions take them). A NUL would end the path early in
// the C library: refused as os.open refuses it.
std::string PathOf(const py::object& path, const char* argument) {
  if (!py::isinstance<py::str>(path) && !py::isinstance<py::bytes>(path) &&
      !py::hasattr(path, "__fspath__")) {
    throw py::type_error(std::string(argument) + ": a path is str, bytes or os.PathLike, not " +
                         TypeName(path));
  }
  const py::object encoded = py::module_::import("os").attr("fsencode")(path);
  std::string bytes = encoded.cast<std::string>();
  if (bytes.find('\0') != std::string::npos) {
    throw py::value_error(std::string(argument) + ": the path contains a NUL character");
  }
  return bytes;
}

// A name for a message: a NUL shown as \x00 (Python strings could hold it,
// but the message must not carry it raw).
std::string ShownName(const std::string& name) {
  std::string shown;
  for (char c : name) shown += c == '\0' ? std::string("\\x00") : std::string(1, c);
  return shown;
}

// Model bytes by name, owned here while the set is read (LoadOptions holds views).
struct ModelBytesArgument {
  std::map<std::string, std::string, std::less<>> bytes;
};

LoadOptions OptionsOf(const py::object& model_root, const py::object& models,
                      bool allow_any_model_path, ModelBytesArgument& storage) {
  LoadOptions options;
  if (!model_root.is_none()) options.model_root = PathOf(model_root, "model_root");
  if (!models.is_none()) {
    if (!py::isinstance<py::dict>(models)) {
      throw py::type_error("models: a dict of model name to bytes, not " + TypeName(models));
    }
    for (const auto& [key, value] : models.cast<py::dict>()) {
      if (!py::isinstance<py::str>(key)) {
        throw py::type_error("models: keys are model names (str), not " + TypeName(key));
      }
      if (!py::isinstance<py::bytes>(value)) {
        throw py::type_error("models['" + Utf8(key, "models: a model name") +
                             "']: a model's bytes (bytes), not " + TypeName(value));
      }
      std::string name = Utf8(key, "models: a model name");
      if (name.find('\0') != std::string::npos) {
        throw py::value_error("models: the model name '" + ShownName(name) +
                              "' contains a NUL character, which no name can hold");
      }
      storage.bytes[std::move(name)] = value.cast<std::string>();
    }
    for (const auto& [name, bytes] : storage.bytes) options.model_bytes[name] = bytes;
  }
  options.allow_any_model_path = allow_any_model_path;
  return options;
}

}  // namespace

FeatureSet ParseSet(const py::object& data, const std::optional<std::string>& format,
                    const py::object& model_root, const py::object& models,
                    bool allow_any_model_path) {
  const Format parsed_format = DefaultFormat(data, format);
  const std::string bytes = SetData(data);
  ModelBytesArgument storage;
  const LoadOptions options = OptionsOf(model_root, models, allow_any_model_path, storage);
  Result<FeatureSet> set = [&] {
    py::gil_scoped_release release;
    return FeatureSet::Parse(bytes, parsed_format, options);
  }();
  return ValueOrThrow(std::move(set));
}

FeatureSet ReadSet(const py::object& path, const std::optional<std::string>& format,
                   const py::object& model_root, bool allow_any_model_path) {
  const std::string file = PathOf(path, "path");
  const std::optional<Format> parsed_format =
      format ? std::optional<Format>(ParseFormat(*format)) : std::nullopt;
  ModelBytesArgument storage;
  const LoadOptions options = OptionsOf(model_root, py::none(), allow_any_model_path, storage);
  Result<FeatureSet> set = [&] {
    py::gil_scoped_release release;
    return FeatureSet::ReadFile(file, parsed_format, options);
  }();
  return ValueOrThrow(std::move(set));
}

FeatureSet SetFromModel(const py::object& model, const std::optional<std::string>& format) {
  std::optional<ModelFormat> parsed;
  if (format) {
    parsed = ModelFormatFromName(*format);
    if (!parsed)
      RaiseUserError("unknown model format '" + *format + "' (" + ModelFormatNameList() + ")");
  }
  if (py::isinstance<py::bytes>(model)) {
    const std::string bytes = model.cast<std::string>();
    if (!parsed) parsed = DetectModelFormat("", bytes);
    if (!parsed) {
      throw py::value_error(
          "format: the bytes are of no model format calcjit recognizes by "
          "content; name it (" +
          ModelFormatNameList() + ")");
    }
    Result<FeatureSet> set = [&] {
      py::gil_scoped_release release;
      return FeatureSet::FromModel(bytes, *parsed);
    }();
    return ValueOrThrow(std::move(set));
  }
  const std::string file = PathOf(model, "model");
  Result<FeatureSet> set = [&] {
    py::gil_scoped_release release;
    return FeatureSet::ReadModel(file, parsed);
  }();
  return ValueOrThrow(std::move(set));
}

py::list ModelsOf(const FeatureSet& set) {
  py::list models;
  for (const DeclaredModel& m : set.Models()) {
    py::dict entry;
    entry["name"] = m.name;
    entry["format"] = std::string(ModelFormatName(m.format));
    entry["path"] = m.path;
    entry["description"] = m.description;
    entry["features"] = m.feature_count;
    entry["outputs"] = m.output_count;
    entry["feature_names"] = m.feature_names;
    models.append(std::move(entry));
  }
  return models;
}

py::tuple SetState(const FeatureSet& set) {
  py::dict models;
  const std::vector<DeclaredModel> declared = set.Models();
  for (std::size_t m = 0; m < declared.size(); ++m) {
    const std::string_view bytes = set.ModelBytes(m);
    models[py::str(declared[m].name)] = py::bytes(bytes.data(), bytes.size());
  }
  return py::make_tuple(py::bytes(set.Serialize(Format::kProto)), std::move(models));
}

FeatureSet SetFromState(const py::tuple& state) {
  if (state.size() != 2) throw py::value_error("a pickled calcjit.FeatureSet has two parts");
  return ParseSet(state[0], std::string("pb"), py::none(), state[1], false);
}

}  // namespace calcjit::python
