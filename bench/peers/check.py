"""How each peer's outputs must agree with the model's own library.

The reference of a model is its own library: XGBoost 1.7.4's margins (float32)
for an XGBoost model, LightGBM's raw scores (float64) for a LightGBM model,
CatBoost's RawFormulaVal (float64) for a CatBoost model. Each runner is
held to the strictest rule its library's semantics allow, and the rule is
printed with its reason:

- bit-exact in float32: the runner sums the same float32 leaves in the same
  order from the same base (calcjit on XGBoost models; XGBoost 3.4.1; the
  native row);
- bit-exact after rounding once to float32: calcjit's outputs are float32
  and its LightGBM and CatBoost sums are float64 in the file's order, so its
  output is the library's float64 rounded once;
- bit-exact in float64: treelite on LightGBM models sums the same float64
  leaves in order;
- within float64 rounding: lleaves sums a row's trees in blocks (fblocksize,
  34 trees by default), then the blocks' sums, so beyond 34 trees its raw
  score may differ from LightGBM's by the rounding of a float64 sum: at most
  trees x 2^-53 x (|reference| + 1) per row (measured: a few 1e-15);
- within the library's own rounding: treelite's code for XGBoost models
  (tl2cgen's generated sum is not XGBoost's: measured 1-2 ulp apart on most
  rows, whether or not its trees are split across files) and ONNX Runtime's
  TreeEnsembleRegressor, which
  holds thresholds and leaves as float32 and sums in its own order. Either
  margin may differ from the reference by the rounding of a float32 sum of
  `trees` terms: at most trees x 2^-24 x the largest partial sum, bounded
  here by trees x 2^-24 x (|reference| + 1) per row; rows whose decisions
  differ (a float64 LightGBM threshold held as float32) exceed it and fail.
"""

import numpy as np

# (runner, family) -> rule; a pair that is not listed uses the family's default.
EXACT32 = "bit-exact float32"
ROUNDED32 = "bit-exact after rounding to float32"
EXACT64 = "bit-exact float64"
ROUNDING64 = "within float64 rounding of the sum"
ROUNDING = "within float32 rounding of the sum"

RULES = {
    ("xgboost", "xgboost"): (EXACT32, "the reference itself"),
    ("lightgbm", "lightgbm"): (EXACT64, "the reference itself"),
    ("catboost", "catboost"): (EXACT64, "the reference itself"),
    ("xgboost3", "xgboost"): (EXACT32, "the same float32 leaves in tree order"),
    ("treelite", "xgboost"): (ROUNDING, "tl2cgen's generated sum, not XGBoost's: 1-2 ulp "
                                        "apart on most rows"),
    ("native", "xgboost"): (EXACT32, "float32 leaves summed in tree order"),
    ("calcjit-vm", "xgboost"): (EXACT32, "calcjit's contract (spec 6)"),
    ("calcjit-jit", "xgboost"): (EXACT32, "calcjit's contract (spec 6)"),
    ("calcjit-vm", "lightgbm"): (ROUNDED32, "calcjit sums in float64, outputs float32"),
    ("calcjit-jit", "lightgbm"): (ROUNDED32, "calcjit sums in float64, outputs float32"),
    ("calcjit-vm", "catboost"): (ROUNDED32, "calcjit sums in float64, outputs float32"),
    ("calcjit-jit", "catboost"): (ROUNDED32, "calcjit sums in float64, outputs float32"),
    ("lleaves", "lightgbm"): (ROUNDING64, "float64 sums of blocks of 34 trees"),
    ("treelite", "lightgbm"): (EXACT64, "float64 leaves summed in tree order"),
    ("onnxruntime", "xgboost"): (ROUNDING, "float32 sums in ONNX Runtime's own order"),
    ("onnxruntime", "lightgbm"): (ROUNDING, "float32 thresholds and sums (LightGBM's are "
                                            "float64)"),
}


def rule_of(runner, family):
    return RULES.get((runner, family), (EXACT32, "unlisted pair: held to bits"))


def agree(runner, family, got, reference, trees):
    """(ok, what was checked): got and reference are each runner's outputs."""
    rule, reason = rule_of(runner, family)
    got = np.asarray(got).reshape(-1)
    reference = np.asarray(reference).reshape(-1)
    if got.shape != reference.shape:
        return False, "%d outputs, the reference has %d" % (got.size, reference.size)
    if rule == EXACT32:
        a, b = got.astype(np.float32), reference.astype(np.float32)
        ok = (got.dtype == np.float32 and np.array_equal(a.view(np.uint32), b.view(np.uint32)))
    elif rule == ROUNDED32:
        a, b = got, reference.astype(np.float64).astype(np.float32)
        ok = got.dtype == np.float32 and np.array_equal(a.view(np.uint32), b.view(np.uint32))
    elif rule == EXACT64:
        a, b = got.astype(np.float64), reference.astype(np.float64)
        ok = got.dtype == np.float64 and np.array_equal(a.view(np.uint64), b.view(np.uint64))
    else:
        a, b = got.astype(np.float64), reference.astype(np.float64)
        epsilon = 2.0 ** -53 if rule == ROUNDING64 else 2.0 ** -24
        bound = trees * epsilon * (np.abs(b) + 1)
        ok = bool(np.all(np.abs(a - b) <= bound))
    differ = int(np.count_nonzero(a.astype(np.float64) != b.astype(np.float64)))
    worst = float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)), initial=0.0))
    detail = "%s (%s): %d of %d rows differ, at most by %.3g" % (rule, reason, differ, got.size,
                                                                  worst)
    if not ok and rule in (EXACT32, ROUNDED32, EXACT64) and got.dtype != a.dtype:
        detail += "; output type %s" % got.dtype
    return ok, detail
