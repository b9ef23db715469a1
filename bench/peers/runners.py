"""One runner per library: how each predictor is prepared and called.

A runner is made from a model file and the query's rows (float32, row-major,
2,000 x features), prepares itself once (`prepare`: load, convert, compile;
its wall time is reported as the load time), then `run()` computes one query's
outputs with one thread, from that library's fastest input for those rows
(made in `prepare`, not timed), and `outputs()` returns the last query's
outputs as a float32 or float64 vector, as the library gives them (the
checks in check.py decide how they must agree).

Runners import their library lazily, so this file is shared by the driver
(the reference venv: every PyPI peer, Debian's XGBoost 1.7.4 and calcjit's
module) and by worker.py in other interpreters (XGBoost 3.4.1's venv).
"""

import hashlib
import os
import pathlib
import sys
import tempfile

import numpy as np


def file_digest(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()[:16]


class Runner:
    # The library and version, for the table; set by prepare().
    version = ""

    def __init__(self, model_path, rows, cache_dir):
        self.model_path = str(model_path)
        self.rows = rows
        self.cache_dir = pathlib.Path(cache_dir)
        self.out = None

    def outputs(self):
        return np.asarray(self.out).reshape(-1)


def import_debian_xgboost():
    """Debian's python3-xgboost (1.7.4) inside a venv that cannot see Debian's
    packages: only its `xgboost` folder is put on the path (a folder holding a
    link to it), so numpy and scipy stay the venv's."""
    try:
        import xgboost
        return xgboost
    except ImportError:
        pass
    link_dir = pathlib.Path(tempfile.gettempdir()) / "calcjit-peers-debian-xgboost"
    link_dir.mkdir(exist_ok=True)
    link = link_dir / "xgboost"
    if not link.exists():
        link.symlink_to("/usr/lib/python3/dist-packages/xgboost")
    sys.path.append(str(link_dir))
    import xgboost
    return xgboost


class Xgboost(Runner):
    """Booster.inplace_predict(rows, predict_type="margin"), nthread=1: the
    float32 row-major array read in place."""

    def prepare(self):
        xgb = import_debian_xgboost()
        self.version = "xgboost " + xgb.__version__
        self.booster = xgb.Booster(model_file=self.model_path)
        self.booster.set_param({"nthread": 1})

    def run(self):
        self.out = self.booster.inplace_predict(self.rows, predict_type="margin")


class Lightgbm(Runner):
    """Booster.predict(rows, raw_score=True, num_threads=1) on the float32
    array (LightGBM's C API reads float32 rows as they are)."""

    def prepare(self):
        import lightgbm
        self.version = "lightgbm " + lightgbm.__version__
        self.booster = lightgbm.Booster(model_file=self.model_path)

    def run(self):
        self.out = self.booster.predict(self.rows, raw_score=True, num_threads=1)


class Lleaves(Runner):
    """lleaves: the LightGBM model compiled by LLVM into a shared library
    (cached beside the models, by the model's digest), predict(n_jobs=1) on
    float64 rows (its own input type; converted once in prepare)."""

    def prepare(self):
        import importlib.metadata
        import lleaves
        self.version = "lleaves " + importlib.metadata.version("lleaves")
        self.model = lleaves.Model(model_file=self.model_path)
        cache = self.cache_dir / ("lleaves-%s.so" % file_digest(self.model_path))
        self.model.compile(cache=str(cache), raw_score=True)
        self.rows64 = np.ascontiguousarray(self.rows, dtype=np.float64)

    def run(self):
        self.out = self.model.predict(self.rows64, n_jobs=1)


class Treelite(Runner):
    """treelite's import of the model, compiled to C by tl2cgen and built with
    gcc -O3 into a shared library (cached by the model's digest); predict on a
    float32 tl2cgen.DMatrix made once, margins (pred_margin=True), nthread=1."""

    def prepare(self):
        import tl2cgen
        import treelite
        self.version = "treelite %s + tl2cgen %s" % (treelite.__version__, tl2cgen.__version__)
        library = self.cache_dir / ("tl2cgen-%s.so" % file_digest(self.model_path))
        if not library.exists():
            if self.model_path.endswith(".json"):
                model = treelite.frontend.load_xgboost_model(self.model_path,
                                                             format_choice="json")
            else:
                model = treelite.frontend.load_lightgbm_model(self.model_path)
            partial = str(library) + ".part.so"
            tl2cgen.export_lib(model, toolchain="gcc", libpath=partial, nthread=2,
                               params={"parallel_comp": 8}, options=["-O3"])
            os.replace(partial, library)
        self.predictor = tl2cgen.Predictor(str(library), nthread=1)
        self.matrix = tl2cgen.DMatrix(self.rows, dtype="float32")

    def run(self):
        self.out = self.predictor.predict(self.matrix, pred_margin=True)


class Onnxruntime(Runner):
    """The model converted to ONNX's TreeEnsembleRegressor by onnxmltools
    (cached by the model's digest), run by an InferenceSession with one intra-
    and inter-op thread on the float32 rows."""

    def prepare(self):
        import onnxruntime
        self.version = "onnxruntime " + onnxruntime.__version__
        path = self.cache_dir / ("onnx-%s.onnx" % file_digest(self.model_path))
        if not path.exists():
            partial = str(path) + ".part"
            pathlib.Path(partial).write_bytes(self.convert())
            os.replace(partial, path)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
        self.session = onnxruntime.InferenceSession(str(path), options,
                                                    providers=["CPUExecutionProvider"])
        self.input_name = self.session.get_inputs()[0].name
        self.output_names = [self.session.get_outputs()[0].name]

    def convert(self):
        import onnxmltools
        from onnxmltools.convert.common.data_types import FloatTensorType
        types = [("input", FloatTensorType([None, self.rows.shape[1]]))]
        if self.model_path.endswith(".json"):
            xgb = import_debian_xgboost()
            booster = xgb.Booster(model_file=self.model_path)
            model = onnxmltools.convert_xgboost(booster, initial_types=types, target_opset=15)
        else:
            import lightgbm
            booster = lightgbm.Booster(model_file=self.model_path)
            model = onnxmltools.convert_lightgbm(booster, initial_types=types, target_opset=15)
        return model.SerializeToString()

    def run(self):
        self.out = self.session.run(self.output_names, {self.input_name: self.rows})[0]


class Catboost(Runner):
    """CatBoost.predict(rows, prediction_type="RawFormulaVal", thread_count=1)
    on the float32 array (CatBoost builds its pool inside the call, as a caller's
    predict does)."""

    def prepare(self):
        import catboost
        self.version = "catboost " + catboost.__version__
        self.model = catboost.CatBoost()
        self.model.load_model(self.model_path)

    def run(self):
        self.out = self.model.predict(self.rows, prediction_type="RawFormulaVal",
                                      thread_count=1)


class Calcjit(Runner):
    """calcjit's Python module: calcjit.from_model(model bytes).compile(backend=
    ...), Engine.evaluate on the feature columns (read in place) into a
    preallocated float32 output."""

    backend = "auto"

    def prepare(self):
        import calcjit
        data = pathlib.Path(self.model_path).read_bytes()
        feature_set = calcjit.from_model(data)
        self.engine = feature_set.compile(backend=self.backend)
        self.version = "calcjit %s, %s" % (self.engine.backend, self.engine.isa)
        names = [i.name for i in feature_set.inputs]
        self.columns = {n: np.ascontiguousarray(self.rows[:, j]) for j, n in enumerate(names)}
        self.output_name = feature_set.outputs[0]
        self.out = np.empty(len(self.rows), np.float32)
        self.out_map = {self.output_name: self.out}

    def run(self):
        self.engine.evaluate(self.columns, out=self.out_map)


class CalcjitVm(Calcjit):
    backend = "vm"


class CalcjitJit(Calcjit):
    backend = "jit"


# name -> class; the driver and worker.py make runners by these names.
RUNNERS = {
    "xgboost": Xgboost,
    "lightgbm": Lightgbm,
    "lleaves": Lleaves,
    "treelite": Treelite,
    "onnxruntime": Onnxruntime,
    "catboost": Catboost,
    "calcjit-vm": CalcjitVm,
    "calcjit-jit": CalcjitJit,
}
