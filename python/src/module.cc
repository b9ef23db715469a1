// calcjit._calcjit: the public C++ API (include/calcjit/calcjit.hpp) for
// Python. The package calcjit (python/calcjit/__init__.py) re-exports it and
// adds what is easier in Python: group keys and pandas DataFrames.
//
// Threads: FeatureSet and Engine are immutable; evaluate() releases the GIL
// while it runs, so several Python threads evaluate at once (each call takes
// a Batch of its own from a small pool). Compiling, reloading and waiting
// release the GIL too.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "arrow_columns.h"
#include "calcjit/calcjit.hpp"
#include "errors.h"
#include "evaluation.h"
#include "matrix.h"
#include "set_loading.h"

namespace calcjit::python {

namespace py = pybind11;

namespace {

Backend ParseBackend(const std::string& name) {
  const std::optional<Backend> backend = BackendFromName(name);
  if (!backend) RaiseUserError("unknown backend '" + name + "' (reference, vm, jit or auto)");
  return *backend;
}

std::string ScopeName(Scope scope) {
  return scope == Scope::kItem ? "item" : "query";
}

py::object Serialize(const FeatureSet& set, const std::string& format_name) {
  const Format format = ParseFormat(format_name);
  std::string data = set.Serialize(format);
  if (format == Format::kProto) return py::bytes(data);
  return py::str(data);
}

EngineOptions MakeOptions(const std::string& backend, const py::object& outputs,
                          const std::string& isa, const std::vector<std::string>& disabled_passes,
                          std::uint32_t block_size, std::size_t jit_node_limit, bool jit_parallel,
                          std::uint32_t jit_piece_nodes, bool reuse_compiled) {
  EngineOptions options;
  options.backend = ParseBackend(backend);
  // None: every definition; one name or a sequence of names.
  if (py::isinstance<py::str>(outputs)) {
    options.outputs = {outputs.cast<std::string>()};
  } else if (!outputs.is_none()) {
    try {
      options.outputs = outputs.cast<std::vector<std::string>>();
    } catch (const py::cast_error&) {
      RaiseUserError("outputs must be a list of output names");
    }
  }
  const std::optional<Isa> parsed_isa = IsaFromName(isa);
  if (!parsed_isa) RaiseUserError("unknown isa '" + isa + "' (auto, x86-64, avx2 or avx512)");
  options.isa = *parsed_isa;
  options.disabled_passes = disabled_passes;
  options.block_size = block_size;
  options.jit_node_limit = jit_node_limit;
  options.jit_parallel = jit_parallel;
  options.jit_piece_nodes = jit_piece_nodes;
  options.reuse_compiled = reuse_compiled;
  return options;
}

// The keyword arguments that make EngineOptions, shared by compile() and
// ServingEngine().
#define CALCJIT_ENGINE_OPTION_ARGS                                                                \
  py::kw_only(),                                                                                  \
      py::arg("backend") = "auto", py::arg("outputs") = py::none(), py::arg("isa") = "auto",      \
      py::arg("disabled_passes") = std::vector<std::string>(), py::arg("block_size") = 0,         \
      py::arg("jit_node_limit") = EngineOptions().jit_node_limit, py::arg("jit_parallel") = true, \
      py::arg("jit_piece_nodes") = 0, py::arg("reuse_compiled") = true

// An Engine with the set it came from (to tell an input these outputs do not
// need from a typo) and a pool of Batches: evaluate() takes one for the call,
// so concurrent calls from several threads each have their own, and a call
// after another reuses the scratch memory. Engine and ServingEngine evaluate
// through the same function (EvaluateCall, evaluation.h).
class PyEngine {
 public:
  PyEngine(FeatureSet set, EngineOptions options, Engine engine)
      : set_(std::move(set)), options_(std::move(options)), engine_(std::move(engine)) {}

  const FeatureSet& set() const { return set_; }
  // What it was compiled with (to compile it again when unpickled).
  const EngineOptions& options() const { return options_; }
  const Engine& engine() const { return engine_; }

  py::dict Evaluate(const CallArguments& arguments) {
    const BatchLease lease(*this);
    EngineTarget target(engine_, *lease.batch);
    return EvaluateCall(target, &set_.schema(), arguments);
  }

 private:
  static constexpr std::size_t kMaxPooledBatches = 16;

  // A Batch of the pool for one call, given back cleared (so that no span
  // over the call's arrays outlives it), also when the call raises.
  struct BatchLease {
    explicit BatchLease(PyEngine& engine) : owner(engine), batch(engine.TakeBatch()) {}
    ~BatchLease() {
      batch->Clear();
      owner.ReturnBatch(std::move(batch));
    }
    BatchLease(const BatchLease&) = delete;
    BatchLease& operator=(const BatchLease&) = delete;
    PyEngine& owner;
    std::unique_ptr<Batch> batch;
  };

  std::unique_ptr<Batch> TakeBatch() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!pool_.empty()) {
        std::unique_ptr<Batch> batch = std::move(pool_.back());
        pool_.pop_back();
        return batch;
      }
    }
    return std::make_unique<Batch>(engine_);
  }

  void ReturnBatch(std::unique_ptr<Batch> batch) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pool_.size() < kMaxPooledBatches) pool_.push_back(std::move(batch));
  }

  FeatureSet set_;
  EngineOptions options_;
  Engine engine_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Batch>> pool_;
};

std::shared_ptr<PyEngine> Compile(const FeatureSet& set, const EngineOptions& options) {
  Result<Engine> engine = [&] {
    py::gil_scoped_release release;
    return Engine::Compile(set, options);
  }();
  return std::make_shared<PyEngine>(set, options, ValueOrThrow(std::move(engine)));
}

// A ServingEngine. Each evaluate() call uses a Session of its own, made for
// the version serving then.
class PyServing {
 public:
  explicit PyServing(ServingEngine serving) : serving_(std::move(serving)) {}

  ServingEngine& serving() { return serving_; }

  py::dict Evaluate(const CallArguments& arguments) {
    Session session(serving_);
    SessionTarget target(session);
    return EvaluateCall(target, nullptr, arguments);
  }

 private:
  ServingEngine serving_;
};

CallArguments MakeArguments(py::object inputs, std::optional<std::size_t> n, py::object offsets,
                            py::object out, bool copy) {
  return CallArguments{std::move(inputs), n, std::move(offsets), std::move(out), copy};
}

// Rows as input: X's column j is input j (matrix.h); X stays alive in the
// caller's frame for the call.
CallArguments RowArguments(const py::array& x, py::object offsets, py::object out) {
  CallArguments arguments = MakeArguments(py::none(), static_cast<std::size_t>(x.shape(0)),
                                          std::move(offsets), std::move(out), false);
  arguments.rows = RowsOf(x);
  return arguments;
}

constexpr const char* kEvaluateRowsDoc =
    "Low level; use evaluate(X). x: a 2-D float32 array (column j is input j); offsets: None "
    "or query boundaries; out: None or dict name -> float32 array.";

std::string InputRepr(const InputInfo& input) {
  std::string text = "Input(name='" + input.name + "', scope='" + ScopeName(input.scope) + "'";
  if (input.is_vector()) text += ", dimension=" + std::to_string(input.dimension);
  if (input.default_value) {
    text += ", default=" + py::repr(py::float_(*input.default_value)).cast<std::string>();
  }
  if (!input.declared) text += ", declared=False";
  return text + ")";
}

constexpr const char* kEvaluateDoc =
    "Low level; use evaluate(). inputs: dict name -> array; n: item count or None; offsets: "
    "None or query boundaries; out: None or dict name -> float32 array; copy: convert inputs "
    "that are not C-contiguous float32 (True) or refuse them (False).";

}  // namespace

void DefineModule(py::module_& module) {
  module.doc() = "calcjit: ranking feature sets, compiled, with the same bits in every backend.";
  RegisterError(module);

  py::class_<InputInfo>(module, "Input", "An input of a feature set or engine.")
      .def_readonly("name", &InputInfo::name)
      .def_property_readonly(
          "scope", [](const InputInfo& input) { return ScopeName(input.scope); },
          "'item' (a value per item) or 'query' (one value for the whole query)")
      .def_readonly("dimension", &InputInfo::dimension,
                    "0 for a scalar, d for a vector of d floats")
      .def_readonly("default", &InputInfo::default_value, "the declared default, or None")
      .def_readonly("declared", &InputInfo::declared,
                    "False for an implicit input (used but neither declared nor defined)")
      .def_property_readonly("is_vector", &InputInfo::is_vector)
      .def("__repr__", &InputRepr);

  // dynamic_attr: predict() keeps the engine it compiles on the set
  // (calcjit/_matrix.py), so that calling it again compiles nothing.
  py::class_<FeatureSet>(module, "FeatureSet", py::dynamic_attr(),
                         "A checked, immutable feature set. Make one with calcjit.read_file() "
                         "or calcjit.parse().")
      .def_static("read_file", &ReadSet, py::arg("path"), py::arg("format") = py::none(),
                  py::kw_only(), py::arg("model_root") = py::none(),
                  py::arg("allow_any_model_path") = false,
                  "Reads a set from a file; the format comes from the extension (.calc, .json, "
                  ".pb, .binpb) unless given ('calc', 'json', 'pb'). Its models are read from "
                  "the file's folder unless model_root names another.")
      .def_static("parse", &ParseSet, py::arg("data"), py::arg("format") = py::none(),
                  py::kw_only(), py::arg("model_root") = py::none(), py::arg("models") = py::none(),
                  py::arg("allow_any_model_path") = false,
                  "Parses a set from str (text syntax, or JSON with format='json') or bytes "
                  "(binary protobuf unless format says otherwise). Models: their bytes by "
                  "name in models (dict of str to bytes), else files under model_root.")
      .def_static("from_model", &SetFromModel, py::arg("model"), py::arg("format") = py::none(),
                  "A model on its own as a set: a path or bytes, its format (one of "
                  "calcjit.model_formats()) from its content or extension unless given. Inputs "
                  "are the model's features, outputs named as its library names them (margin, "
                  "raw_score, ...; _0, _1, ... when several).")
      .def_property_readonly("models", &ModelsOf,
                             "The declared models, as dicts: name, format, path, description, "
                             "features, outputs, feature_names.")
      .def_property_readonly(
          "inputs", [](const FeatureSet& set) { return set.schema().inputs; },
          "Declared inputs in order, then implicit ones in order of first use.")
      .def_property_readonly(
          "outputs", [](const FeatureSet& set) { return set.schema().outputs; },
          "Every definition, in order.")
      .def_property_readonly("implicit_inputs", &FeatureSet::ImplicitInputs)
      .def("serialize", &Serialize, py::arg("format"),
           "The set as 'calc' text or 'json' (str), or 'pb' binary protobuf (bytes).")
      .def("to_text", &FeatureSet::ToText)
      // Pickled as binary protobuf with its models' bytes (for multiprocessing,
      // joblib, Dask): the worker needs no model files.
      .def(py::pickle(&SetState, &SetFromState))
      .def("__str__", &FeatureSet::ToText)
      .def("__repr__",
           [](const FeatureSet& set) {
             return "<calcjit.FeatureSet: " + std::to_string(set.schema().inputs.size()) +
                    " inputs, " + std::to_string(set.schema().outputs.size()) + " outputs>";
           })
      .def(
          "compile",
          [](const FeatureSet& set, const std::string& backend, const py::object& outputs,
             const std::string& isa, const std::vector<std::string>& disabled_passes,
             std::uint32_t block_size, std::size_t jit_node_limit, bool jit_parallel,
             std::uint32_t jit_piece_nodes, bool reuse_compiled) {
            return Compile(
                set, MakeOptions(backend, outputs, isa, disabled_passes, block_size, jit_node_limit,
                                 jit_parallel, jit_piece_nodes, reuse_compiled));
          },
          CALCJIT_ENGINE_OPTION_ARGS,
          "Compiles the set for a backend ('auto', 'vm', 'jit', 'reference'); outputs: the "
          "outputs to compute (default: every definition).");

  py::class_<PyEngine, std::shared_ptr<PyEngine>>(
      module, "Engine",
      "A feature set compiled for one backend. Make one with FeatureSet.compile().")
      .def_property_readonly("set", &PyEngine::set)
      // Pickled as its set and options; unpickling compiles it (again).
      .def(py::pickle(
          [](const PyEngine& e) {
            const EngineOptions& o = e.options();
            return py::make_tuple(e.set(), std::string(BackendName(o.backend)), o.outputs,
                                  std::string(IsaName(o.isa)), o.disabled_passes, o.block_size,
                                  o.jit_node_limit, o.jit_parallel, o.jit_piece_nodes,
                                  o.reuse_compiled);
          },
          [](const py::tuple& state) {
            if (state.size() != 10) RaiseUserError("not a pickled calcjit.Engine");
            return Compile(
                state[0].cast<const FeatureSet&>(),
                MakeOptions(state[1].cast<std::string>(), state[2], state[3].cast<std::string>(),
                            state[4].cast<std::vector<std::string>>(),
                            state[5].cast<std::uint32_t>(), state[6].cast<std::size_t>(),
                            state[7].cast<bool>(), state[8].cast<std::uint32_t>(),
                            state[9].cast<bool>()));
          }))
      .def_property_readonly(
          "inputs", [](const PyEngine& e) { return e.engine().schema().inputs; },
          "The inputs the engine's outputs need, in the set's order.")
      .def_property_readonly("outputs",
                             [](const PyEngine& e) { return e.engine().schema().outputs; })
      .def_property_readonly(
          "backend",
          [](const PyEngine& e) { return std::string(BackendName(e.engine().backend())); },
          "The backend that runs (never 'auto').")
      .def_property_readonly(
          "isa", [](const PyEngine& e) { return std::string(IsaName(e.engine().isa())); })
      .def_property_readonly(
          "backend_note", [](const PyEngine& e) { return e.engine().backend_note(); },
          "Why 'auto' did not pick the JIT, or ''.")
      .def(
          "_evaluate",
          [](PyEngine& e, py::object inputs, std::optional<std::size_t> n, py::object offsets,
             py::object out, bool copy) {
            return e.Evaluate(
                MakeArguments(std::move(inputs), n, std::move(offsets), std::move(out), copy));
          },
          py::arg("inputs"), py::arg("n"), py::arg("offsets"), py::arg("out"), py::arg("copy"),
          kEvaluateDoc)
      .def(
          "_evaluate_rows",
          [](PyEngine& e, const py::array& x, py::object offsets, py::object out) {
            return e.Evaluate(RowArguments(x, std::move(offsets), std::move(out)));
          },
          py::arg("x").noconvert(), py::arg("offsets"), py::arg("out"), kEvaluateRowsDoc)
      .def("__repr__", [](const PyEngine& e) {
        return "<calcjit.Engine " + std::string(BackendName(e.engine().backend())) + ": " +
               std::to_string(e.engine().schema().inputs.size()) + " inputs, " +
               std::to_string(e.engine().schema().outputs.size()) + " outputs>";
      });

  py::class_<TierMeasurement>(module, "TierMeasurement",
                              "The VM and the JIT of one version timed on the same synthetic "
                              "batch: the faster serves (tier choice).")
      .def_readonly("measured", &TierMeasurement::measured, "False until the JIT has compiled")
      .def_readonly("items", &TierMeasurement::items, "items in the batch timed")
      .def_readonly("vm_ns_per_item", &TierMeasurement::vm_ns_per_item)
      .def_readonly("jit_ns_per_item", &TierMeasurement::jit_ns_per_item)
      .def_property_readonly(
          "chosen", [](const TierMeasurement& t) { return std::string(BackendName(t.chosen)); },
          "'vm' or 'jit'")
      .def_readonly("note", &TierMeasurement::note, "the timings and the choice, in words")
      .def("__repr__", [](const TierMeasurement& t) {
        return "TierMeasurement(" + (t.measured ? t.note : "measured=False: " + t.note) + ")";
      });

  py::class_<VersionStats>(module, "VersionStats", "Counters of one version since it was loaded.")
      .def_readonly("version", &VersionStats::version)
      .def_property_readonly(
          "backend", [](const VersionStats& s) { return std::string(BackendName(s.backend)); },
          "what serves the version now")
      .def_readonly("backend_note", &VersionStats::backend_note)
      .def_readonly("jit_pending", &VersionStats::jit_pending)
      .def_readonly("parse_ms", &VersionStats::parse_ms)
      .def_readonly("vm_compile_ms", &VersionStats::vm_compile_ms)
      .def_readonly("jit_compile_ms", &VersionStats::jit_compile_ms)
      .def_readonly("evaluations", &VersionStats::evaluations)
      .def_readonly("items", &VersionStats::items)
      .def_readonly("errors", &VersionStats::errors)
      .def_readonly("shadow_evaluations", &VersionStats::shadow_evaluations)
      .def_readonly("shadow_dropped", &VersionStats::shadow_dropped)
      .def_readonly("mismatches", &VersionStats::mismatches)
      .def_readonly("tiers", &VersionStats::tiers,
                    "the VM and the JIT timed once the JIT compiled (TierMeasurement)")
      .def("__repr__", [](const VersionStats& s) {
        return "VersionStats(version=" + std::to_string(s.version) + ", backend='" +
               std::string(BackendName(s.backend)) +
               "', evaluations=" + std::to_string(s.evaluations) +
               ", items=" + std::to_string(s.items) + ", errors=" + std::to_string(s.errors) +
               ", mismatches=" + std::to_string(s.mismatches) + ")";
      });

  auto bits_to_float = [](std::uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  };
  py::class_<Mismatch>(module, "Mismatch", "A value that differed between serving and shadow.")
      .def_readonly("version", &Mismatch::version)
      .def_readonly("output", &Mismatch::output)
      .def_readonly("item", &Mismatch::item, "the item's index within its query")
      .def_readonly("served_bits", &Mismatch::served_bits)
      .def_readonly("shadow_bits", &Mismatch::shadow_bits)
      .def_property_readonly("served",
                             [=](const Mismatch& m) { return bits_to_float(m.served_bits); })
      .def_property_readonly("shadow",
                             [=](const Mismatch& m) { return bits_to_float(m.shadow_bits); })
      .def("__str__", &Mismatch::ToString)
      .def("__repr__", [](const Mismatch& m) { return "<calcjit.Mismatch " + m.ToString() + ">"; });

  py::class_<PyServing, std::shared_ptr<PyServing>>(
      module, "ServingEngine",
      "The current version of a set, replaced by reload() while other threads evaluate.")
      .def(py::init([](const py::object& set, const std::optional<std::string>& format,
                       const std::string& backend, const py::object& outputs,
                       const std::string& isa, const std::vector<std::string>& disabled_passes,
                       std::uint32_t block_size, std::size_t jit_node_limit, bool jit_parallel,
                       std::uint32_t jit_piece_nodes, bool reuse_compiled) {
             ServingOptions options;
             options.engine =
                 MakeOptions(backend, outputs, isa, disabled_passes, block_size, jit_node_limit,
                             jit_parallel, jit_piece_nodes, reuse_compiled);
             std::optional<Result<ServingEngine>> created;
             if (py::isinstance<FeatureSet>(set)) {
               const FeatureSet& feature_set = set.cast<const FeatureSet&>();
               py::gil_scoped_release release;
               created.emplace(ServingEngine::Create(feature_set, options));
             } else {
               const Format parsed_format = DefaultFormat(set, format);
               const std::string bytes = SetData(set);
               py::gil_scoped_release release;
               created.emplace(ServingEngine::Load(bytes, parsed_format, options));
             }
             return std::make_shared<PyServing>(ValueOrThrow(std::move(*created)));
           }),
           py::arg("set"), py::arg("format") = py::none(), CALCJIT_ENGINE_OPTION_ARGS,
           "Serves a FeatureSet, or a set given as str/bytes (parsed here: parse_ms in stats).")
      .def(
          "reload",
          [](PyServing& s, const py::object& set, const std::optional<std::string>& format) {
            std::optional<Result<std::uint64_t>> version;
            if (py::isinstance<FeatureSet>(set)) {
              const FeatureSet& feature_set = set.cast<const FeatureSet&>();
              py::gil_scoped_release release;
              version.emplace(s.serving().Reload(feature_set));
            } else {
              const Format parsed_format = DefaultFormat(set, format);
              const std::string bytes = SetData(set);
              py::gil_scoped_release release;
              version.emplace(s.serving().Reload(bytes, parsed_format));
            }
            return ValueOrThrow(std::move(*version));
          },
          py::arg("set"), py::arg("format") = py::none(),
          "Checks and compiles a new version, then swaps it in; returns its number. On error the "
          "current version keeps serving and calcjit.Error is raised.")
      .def_property_readonly("version", [](PyServing& s) { return s.serving().version(); })
      .def_property_readonly("inputs", [](PyServing& s) { return s.serving().schema().inputs; })
      .def_property_readonly("outputs", [](PyServing& s) { return s.serving().schema().outputs; })
      .def(
          "stats", [](PyServing& s) { return s.serving().Stats(); },
          "The current version's counters.")
      .def(
          "wait_for_jit",
          [](PyServing& s) {
            py::gil_scoped_release release;
            s.serving().WaitForJit();
          },
          "Waits until the current version's background JIT compilation has finished.")
      .def(
          "set_shadow",
          [](PyServing& s, double fraction, const std::string& backend,
             const std::optional<FeatureSet>& candidate, std::size_t max_recorded) {
            ShadowOptions options;
            options.fraction = fraction;
            options.backend = ParseBackend(backend);
            if (candidate) options.candidate = std::make_shared<const FeatureSet>(*candidate);
            options.max_recorded = max_recorded;
            ThrowIfError(s.serving().SetShadow(options));
          },
          py::arg("fraction"), py::kw_only(), py::arg("backend") = "reference",
          py::arg("candidate") = py::none(), py::arg("max_recorded") = 32,
          "Also computes a fraction (0 to 1) of evaluations with another backend, or with a "
          "candidate set, off the caller's thread, and compares them bit for bit. 0 stops it.")
      .def(
          "drain_shadow",
          [](PyServing& s) {
            py::gil_scoped_release release;
            s.serving().DrainShadow();
          },
          "Waits until every sampled shadow evaluation so far has been compared.")
      .def(
          "mismatches", [](PyServing& s) { return s.serving().Mismatches(); },
          "The first mismatches recorded (at most max_recorded).")
      .def(
          "_evaluate",
          [](PyServing& s, py::object inputs, std::optional<std::size_t> n, py::object offsets,
             py::object out, bool copy) {
            return s.Evaluate(
                MakeArguments(std::move(inputs), n, std::move(offsets), std::move(out), copy));
          },
          py::arg("inputs"), py::arg("n"), py::arg("offsets"), py::arg("out"), py::arg("copy"),
          kEvaluateDoc)
      .def(
          "_evaluate_rows",
          [](PyServing& s, const py::array& x, py::object offsets, py::object out) {
            return s.Evaluate(RowArguments(x, std::move(offsets), std::move(out)));
          },
          py::arg("x").noconvert(), py::arg("offsets"), py::arg("out"), kEvaluateRowsDoc)
      .def("__repr__", [](PyServing& s) {
        return "<calcjit.ServingEngine version " + std::to_string(s.serving().version()) + ">";
      });

  module.def(
      "is_backend_available",
      [](const std::string& name) { return IsBackendAvailable(ParseBackend(name)); },
      py::arg("backend"), "Whether this build and machine can run the backend.");
  module.def(
      "model_formats",
      [] {
        std::vector<std::string> names;
        for (ModelFormat format : ModelFormats()) names.emplace_back(ModelFormatName(format));
        return names;
      },
      "The model formats calcjit reads, by name (include/calcjit/model_formats.def).");
  module.def("is_isa_supported", [](const std::string& name) {
    const std::optional<Isa> isa = IsaFromName(name);
    if (!isa) RaiseUserError("unknown isa '" + name + "' (auto, x86-64, avx2 or avx512)");
    return IsIsaSupported(*isa);
  });
  DefineArrowColumns(module);
#ifdef CALCJIT_VERSION
  module.attr("__version__") = CALCJIT_VERSION;
#endif
}

}  // namespace calcjit::python

PYBIND11_MODULE(_calcjit, module) {
  calcjit::python::DefineModule(module);
}
