#!/usr/bin/env python3
"""Generates bench/large_set.calc, the large feature set of the benchmarks.

    python3 bench/gen_large_set.py > bench/large_set.calc

The set imitates a ranking set that grew over years: about 1,000 features over
63 declared inputs, cleaned inputs first, then engagement ratios, then "eras"
of features that build on everything before them (interactions, per-query
normalizations, copies of older formulas with a tweak), a few formulas nested
more than 100 levels deep (calibration tables, polynomials, a legacy linear
model, a piecewise-linear curve...), sub-models and the final score. Every
operator of the language appears (spec/DSL.md sections 3 and 4).

Why it is built the way it is:
  * Deterministic: one random.Random with a fixed seed and no other source of
    variation (no hash ordering, no time), so the checked-in file is exactly
    what this script prints.
  * Mostly finite values: the script tracks a conservative interval for every
    expression (the float32 value of every item lies in it whatever the
    scalar data, because every scalar input is cleaned and clamped once
    before use; the embeddings must have a norm of at most 1, as the
    benchmark's data generator makes them) and guards each operation by it: a log gets a positive operand or log1p(abs),
    a division a denominator away from zero, exp a bounded exponent. So no
    NaN or infinity appears except in the few features that deliberately use
    NaN as "missing" (they feed aggregates that skip NaN). Without this the
    benchmark would time NaN propagation instead of a ranking set.
  * Common subexpressions: features reference earlier ones, inline the same
    idioms (log1p(price_f), clicks over impressions, cosine(item_emb,
    user_emb)...) and copy older formulas whole, as real sets do; the VM's
    optimizer is meant to find these.

Only the standard library is used. The statistics (features, inputs, nodes,
depth, operators) go into the header of the generated file and to stderr.
"""
import argparse
import collections
import math
import random
import re
import sys
import textwrap

SEED = 20240611
TARGET_FEATURES = 1000
# The largest item count the intervals allow for (batch_sum, batch_count,
# rank, zscore depend on it); the benchmark uses 2,000.
MAX_ITEMS = 10000
# A feature whose interval grows beyond this is squashed (signed log), so
# that products of features stay far from float32 overflow.
CAP = 1e9
# Only features bounded by this join the pool later formulas draw from (raw
# counts do not: sets use their logs), and a product inside a formula stays
# below RANDOM_CAP.
POOL_BOUND = 1e4
RANDOM_CAP = 1e6
# Denominators and log operands are kept at least this far from zero. Wider
# than float32 rounding by far, so the guards hold for the float32 values.
MARGIN = 1e-3
# Relative widening of intervals after a rounded operation: float32 rounding
# is monotone and moves a result by at most 2^-24 of itself.
REL = 1e-6

# Text precedence, lowest first (spec section 4).
P_OR, P_AND, P_EQ, P_CMP, P_ADD, P_MUL, P_UNARY, P_POW, P_ATOM = range(1, 10)
BINARY_PREC = {"||": P_OR, "&&": P_AND, "==": P_EQ, "!=": P_EQ, "<": P_CMP, "<=": P_CMP,
               ">": P_CMP, ">=": P_CMP, "+": P_ADD, "-": P_ADD, "*": P_MUL, "/": P_MUL}

# Every operator of the language, by the name the statistics use.
ALL_OPERATORS = {
    "unary": ["neg", "abs", "exp", "log", "log1p", "sqrt", "sigmoid", "tanh", "floor", "ceil",
              "round", "sign", "not", "is_nan"],
    "binary": ["+", "-", "*", "/", "^", "min", "max", "==", "!=", "<", "<=", ">", ">=", "&&",
               "||"],
    "conditional": ["if"],
    "nary": ["sum", "product", "nary_min", "nary_max", "mean", "weighted_sum"],
    "vector": ["dot", "cosine", "l2_distance", "norm"],
    "aggregate": ["batch_min", "batch_max", "batch_sum", "batch_mean", "batch_std",
                  "batch_count", "rank", "softmax", "min_max_scale", "zscore"],
}


def fmt_num(v):
    """A literal as a person writes it: few digits, no trailing zeros."""
    if v == int(v) and abs(v) < 1e6:
        return str(int(v))
    text = f"{v:.6g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = f"{mantissa}e{int(exponent)}"
    return text


def widen(lo, hi):
    return lo - REL * abs(lo), hi + REL * abs(hi)


class E:
    """An expression: its text, precedence, size, depth and value interval."""
    __slots__ = ("text", "prec", "nodes", "depth", "lo", "hi", "nan", "boolean", "ops",
                 "const")

    def __init__(self, text, prec, nodes, depth, lo, hi, nan=False, boolean=False, ops=None,
                 const=None):
        self.text, self.prec, self.nodes, self.depth = text, prec, nodes, depth
        self.lo, self.hi, self.nan, self.boolean = lo, hi, nan, boolean
        self.ops = ops or collections.Counter()
        self.const = const

    def bound(self):
        return max(abs(self.lo), abs(self.hi))

    def is_unit(self):
        return self.lo >= 0 and self.hi <= 1 + 1e-5


def wrap(e, min_prec):
    return e.text if e.prec >= min_prec else f"({e.text})"


def combine(op, text, prec, operands, lo, hi, nan=None, boolean=False):
    ops = collections.Counter()
    for o in operands:
        ops.update(o.ops)
    ops[op] += 1
    if nan is None:
        nan = any(o.nan for o in operands)
    return E(text, prec, 1 + sum(o.nodes for o in operands),
             1 + max((o.depth for o in operands), default=0), lo, hi, nan, boolean, ops)


def c(v):
    """A constant; a negative one is a literal too (spec: `-2` is the constant -2)."""
    prec = P_UNARY if v < 0 or math.copysign(1, v) < 0 else P_ATOM
    return E(fmt_num(v), prec, 1, 1, v, v, boolean=v in (0, 1), const=v)


NAN_CONST = E("nan", P_ATOM, 1, 1, math.inf, -math.inf, nan=True, const=math.nan)


def quote(name):
    return name if all(ch.isalnum() or ch in "_." for ch in name) and not name[0].isdigit() \
        else "`" + name.replace("`", "``") + "`"


def ref(name, lo, hi, nan=False, boolean=False):
    return E(quote(name), P_ATOM, 1, 1, lo, hi, nan, boolean)


# ---------------------------------------------------------------------------
# Operators, each with its interval rule.

def _products(a, b):
    return [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]


def binop(op, a, b):
    prec = BINARY_PREC[op]
    text = f"{wrap(a, prec)} {op} {wrap(b, prec + 1)}"
    if op in ("+", "-"):
        if b.const is not None and b.const < 0 and b.const == b.const:
            # `a - -2` reads badly; a - (-c) and a + c are the same float.
            op, b = ("-" if op == "+" else "+"), c(-b.const)
            text = f"{wrap(a, prec)} {op} {wrap(b, prec + 1)}"
        lo, hi = (a.lo + b.lo, a.hi + b.hi) if op == "+" else (a.lo - b.hi, a.hi - b.lo)
        lo, hi = widen(lo, hi)
        return combine(op, text, prec, [a, b], lo, hi)
    if op == "*":
        p = _products(a, b)
        return combine(op, text, prec, [a, b], *widen(min(p), max(p)))
    if op == "/":
        assert b.lo >= MARGIN or b.hi <= -MARGIN, (a.text, b.text)
        p = [x / y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
        return combine(op, text, prec, [a, b], *widen(min(p), max(p)))
    if op in ("==", "!=", "<", "<=", ">", ">="):
        return combine(op, text, prec, [a, b], 0, 1, nan=False, boolean=True)
    if op in ("&&", "||"):
        return combine(op, text, prec, [a, b], 0, 1, nan=False, boolean=True)
    raise ValueError(op)


def add(a, b):
    return binop("+", a, b)


def sub(a, b):
    return binop("-", a, b)


def mul(a, b):
    return binop("*", a, b)


def div(a, b):
    return binop("/", a, b)


def power(a, b, call_syntax=False):
    """a ^ b for a >= 0 (and a > 0 when b may be negative): the extremes are
    at the corners because a^b is monotone in each argument there. A square
    takes any base."""
    if b.const == 2 and a.lo < 0:
        squares = [a.lo ** 2, a.hi ** 2]
        lo, hi = widen(0 if a.hi >= 0 else min(squares), max(squares))
    else:
        assert a.lo >= 0 and (b.lo >= 0 or a.lo >= MARGIN), (a.text, b.text)
        corners = [x ** y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
        if a.lo == 0 and b.lo <= 0 <= b.hi:
            corners.append(1.0)
        lo, hi = widen(min(corners), max(corners))
    if call_syntax:
        return combine("^", f"pow({a.text}, {b.text})", P_ATOM, [a, b], lo, hi)
    text = f"{wrap(a, P_ATOM)} ^ {wrap(b, P_UNARY)}"
    return combine("^", text, P_POW, [a, b], lo, hi)


def call(op, name, args, lo, hi, nan=None, boolean=False):
    text = f"{name}({', '.join(a.text for a in args)})"
    return combine(op, text, P_ATOM, args, lo, hi, nan, boolean)


def neg(a):
    if a.const is not None and a.const > 0:
        return c(-a.const)
    return combine("neg", f"-{wrap(a, P_POW)}", P_UNARY, [a], -a.hi, -a.lo)


def lnot(a):
    return combine("not", f"!{wrap(a, P_POW)}", P_UNARY, [a], 0, 1, nan=False, boolean=True)


def unary(fn, a):
    lo, hi = a.lo, a.hi
    if fn == "abs":
        r = (0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))
    elif fn == "exp":
        assert hi < 80, a.text
        r = widen(math.exp(lo), math.exp(hi))
    elif fn == "log":
        assert lo >= MARGIN, a.text
        r = widen(math.log(lo), math.log(hi))
    elif fn == "log1p":
        assert lo >= MARGIN - 1, a.text
        r = widen(math.log1p(lo), math.log1p(hi))
    elif fn == "sqrt":
        assert lo >= 0, a.text
        r = widen(math.sqrt(lo), math.sqrt(hi))
    elif fn == "sigmoid":
        s = lambda x: 1 / (1 + math.exp(-x)) if x > -700 else 0.0
        r = (max(0.0, widen(s(lo), 0)[0]), min(1.0, widen(0, s(hi))[1]))
    elif fn == "tanh":
        r = (max(-1.0, widen(math.tanh(lo), 0)[0]), min(1.0, widen(0, math.tanh(hi))[1]))
    elif fn == "floor":
        r = (math.floor(lo), math.floor(hi))
    elif fn == "ceil":
        r = (math.ceil(lo), math.ceil(hi))
    elif fn == "round":
        r = (math.floor(lo), math.ceil(hi))
    elif fn == "sign":
        r = (-1 if lo < 0 else 0, 1 if hi > 0 else 0)
    elif fn == "is_nan":
        return call(fn, fn, [a], 0, 1, nan=False, boolean=True)
    else:
        raise ValueError(fn)
    return call(fn, fn, [a], r[0], r[1], boolean=fn == "sign" and a.boolean)


def fmin(a, b):
    return call("min", "min", [a, b], min(a.lo, b.lo), min(a.hi, b.hi),
                boolean=a.boolean and b.boolean)


def fmax(a, b):
    return call("max", "max", [a, b], max(a.lo, b.lo), max(a.hi, b.hi),
                boolean=a.boolean and b.boolean)


def clamp(a, lo, hi):
    return fmin(fmax(a, c(lo)), c(hi))


def iff(cond, a, b, nan=None):
    """if(cond, a, b). `nan` overrides the NaN flag where the condition
    decides it: if(is_nan(x), prior, clamp(x)) is never NaN."""
    return call("if", "if", [cond, a, b], min(a.lo, b.lo), max(a.hi, b.hi),
                nan=(a.nan or b.nan) if nan is None else nan,
                boolean=a.boolean and b.boolean)


def fill_nan(x, prior, value=None):
    """if(is_nan(x), prior, value): `value` (x by default) is NaN only where x is."""
    return iff(unary("is_nan", x), c(prior), x if value is None else value, nan=False)


def nary(kind, args):
    """sum product mean, and min / max with one or three and more operands."""
    assert args
    if kind == "sum":
        lo, hi = widen(sum(a.lo for a in args), sum(a.hi for a in args))
    elif kind == "mean":
        lo, hi = widen(sum(a.lo for a in args) / len(args), sum(a.hi for a in args) / len(args))
    elif kind == "product":
        lo = hi = 1.0
        for a in args:
            p = [x * y for x in (lo, hi) for y in (a.lo, a.hi)]
            lo, hi = widen(min(p), max(p))
    elif kind == "min":
        assert len(args) != 2
        lo, hi = min(a.lo for a in args), min(a.hi for a in args)
    elif kind == "max":
        assert len(args) != 2
        lo, hi = max(a.lo for a in args), max(a.hi for a in args)
    else:
        raise ValueError(kind)
    op = {"min": "nary_min", "max": "nary_max"}.get(kind, kind)
    return call(op, kind, args, lo, hi,
                boolean=kind in ("min", "max", "product") and all(a.boolean for a in args))


def weighted_sum(weights, args):
    assert len(weights) == len(args) and args
    lo = hi = 0.0
    for w, a in zip(weights, args):
        p = (w * a.lo, w * a.hi)
        lo, hi = widen(lo + min(p), hi + max(p))
    text = "weighted_sum([" + ", ".join(fmt_num(w) for w in weights) + "], " + \
        ", ".join(a.text for a in args) + ")"
    return combine("weighted_sum", text, P_ATOM, args, lo, hi)


def vector(fn, lhs, rhs=None):
    """The set's embeddings are unit vectors (or zero), so these are bounded;
    the features that use them clamp them anyway, as a set must for data it
    does not control."""
    ranges = {"dot": (-1.01, 1.01), "cosine": (-1.01, 1.01), "l2_distance": (0, 2.02),
              "norm": (0, 1.01)}
    args = lhs if rhs is None else f"{lhs}, {rhs}"
    e = E(f"{fn}({args})", P_ATOM, 1, 1, *ranges[fn])
    e.ops[fn] += 1
    return e


def aggregate(fn, a):
    # NaN items are skipped, so the interval of the non-NaN items holds.
    lo, hi, nan = a.lo, a.hi, a.nan
    if fn in ("batch_min", "batch_max"):
        r = (lo, hi)
    elif fn == "batch_mean":
        r = widen(lo, hi)
    elif fn == "batch_sum":
        r = widen(min(0, MAX_ITEMS * lo), max(0, MAX_ITEMS * hi))
        nan = False
    elif fn == "batch_std":
        r = widen(0, hi - lo)
    elif fn == "batch_count":
        return call(fn, fn, [a], 0, MAX_ITEMS, nan=False)
    elif fn == "rank":
        r = (1, MAX_ITEMS)
    elif fn in ("softmax", "min_max_scale"):
        r = (0, 1 + 1e-5)
    elif fn == "zscore":
        r = (-math.sqrt(MAX_ITEMS), math.sqrt(MAX_ITEMS))
    else:
        raise ValueError(fn)
    return call(fn, fn, [a], r[0], r[1], nan=nan)


# ---------------------------------------------------------------------------
# Guards: the forms a careful author writes when the operand's range demands.

def safe_log(a):
    if a.lo >= MARGIN:
        return unary("log", a)
    if a.lo >= 0:
        return unary("log1p", a)
    return unary("log1p", unary("abs", a))


def safe_sqrt(a):
    return unary("sqrt", a if a.lo >= 0 else unary("abs", a))


def safe_div(a, b, smoothing=1.0):
    if b.lo >= MARGIN or b.hi <= -MARGIN:
        return div(a, b)
    if b.lo >= 0:
        return div(a, add(b, c(smoothing)))
    return div(a, add(c(1), unary("abs", b)))


def safe_exp(a):
    return unary("exp", a if a.hi < 20 else fmin(a, c(20)))


def percentile(a, rank_denominator):
    """1 for the best item down to 0 for the worst: rank is in [1, n] and
    the denominator max(n - 1, 1), so the result is in [0, 1], which interval
    arithmetic on rank alone cannot see."""
    e = sub(c(1), div(sub(aggregate("rank", a), c(1)), rank_denominator))
    e.lo, e.hi = 0.0, 1.0
    return e


def signed_log(a):
    return mul(unary("sign", a), unary("log1p", unary("abs", a)))


# ---------------------------------------------------------------------------

class Generator:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.out = []            # lines of the file after the header
        self.exprs = {}          # feature name -> its defining expression
        self.refs = {}           # feature name -> a reference to it
        self.pool = []           # finite features other formulas may use, in order
        self.query_level = []    # features with one value per query
        self.idioms = []         # small expressions inlined again and again
        self.inputs = []         # declared inputs: (name, scope, dimension)
        self.input_names = set()
        self.feature_count = 0
        self.nodes = 0
        self.max_depth = (0, "")
        self.ops = collections.Counter()
        self.deep = []           # (name, depth) of the deliberately deep formulas

    # -- output --------------------------------------------------------------

    def comment(self, *lines):
        for line in lines:
            self.out.append(f"# {line}" if line else "#")

    def blank(self):
        self.out.append("")

    def section(self, title, *lines):
        self.blank()
        self.out.append("# " + "=" * 76)
        self.out.append(f"# {title}")
        self.out.append("# " + "=" * 76)
        self.comment(*lines)

    def declare(self, name, scope="item", dim=0, default=None, note=None):
        text = f"input {name}"
        if scope != "item" or dim:
            text += f": {scope}" + (f"[{dim}]" if dim else "")
        if default is not None:
            text += f" = {'nan' if math.isnan(default) else fmt_num(default)}"
        text += ";"
        if note:
            text = f"{text:<44}# {note}"
        self.out.append(text)
        self.inputs.append((name, scope, dim))
        self.input_names.add(name)

    def define(self, name, e, note=None, pool=True, query=False, allow_nan=False):
        """Writes `name = e;` and returns a reference to the feature."""
        assert name not in self.refs, name
        if e.nan and not allow_nan:
            e = iff(unary("is_nan", e), c(0), e)
        if e.bound() > CAP and not allow_nan:
            e = signed_log(e)
        if note:
            self.comment(note)
        statement = f"{quote(name)} = {e.text};"
        if len(statement) <= 100:
            self.out.append(statement)
        else:
            # Newlines are whitespace: long formulas wrap at spaces, which
            # never fall inside a token (names with spaces are not used).
            self.out.extend(textwrap.wrap(statement, 98, subsequent_indent="    ",
                                          break_long_words=False, break_on_hyphens=False))
        self.exprs[name] = e
        r = ref(name, e.lo, e.hi, e.nan, e.boolean)
        self.refs[name] = r
        self.feature_count += 1
        self.nodes += e.nodes
        self.ops.update(e.ops)
        if e.depth > self.max_depth[0]:
            self.max_depth = (e.depth, name)
        if pool and not e.nan and e.bound() <= POOL_BOUND:
            self.pool.append(name)
            if query:
                self.query_level.append(name)
        return r

    def unique(self, name):
        name = name[:56]
        if name not in self.refs:
            return name
        k = 2
        while f"{name}_v{k}" in self.refs:
            k += 1
        return f"{name}_v{k}"

    # -- picking operands ----------------------------------------------------

    def pick(self, pred=lambda e: True, recent=150):
        """A feature of the pool, more often a recent one (sets grow on
        their newest signals)."""
        for _ in range(200):
            if self.rng.random() < 0.5:
                name = self.rng.choice(self.pool[-recent:])
            else:
                name = self.rng.choice(self.pool)
            if pred(self.refs[name]):
                return name
        return next(n for n in reversed(self.pool) if pred(self.refs[n]))

    def operand(self, pred=lambda e: True):
        """A reference to a feature, or now and then an inlined idiom."""
        if self.idioms and self.rng.random() < 0.25:
            candidates = [i for i in self.idioms if pred(i)]
            if candidates:
                return self.rng.choice(candidates)
        return self.refs[self.pick(pred)]

    def weight(self, scale=1.0):
        return round(self.rng.uniform(-scale, scale), self.rng.choice([2, 3, 3, 4])) or 0.01

    def threshold(self, e):
        lo, hi = max(e.lo, -1e3), min(e.hi, 1e3)
        return round(lo + (hi - lo) * self.rng.uniform(0.2, 0.8), 2)

    # -- the set -------------------------------------------------------------

    def generate(self):
        self.declare_inputs()
        self.query_context()
        self.clean_inputs()
        self.embeddings()
        self.engagement()
        self.price_and_reviews()
        eras = [
            ("2016", "the first learning-to-rank features"),
            ("2017", "search relevance team: text and category interactions"),
            ("2018", "marketplace team: seller and delivery signals"),
            ("2019", "conversion team: per-query normalizations"),
            ("2020", "personalization: user and embedding interactions"),
            ("2021", "re-tuned copies of older features (kept for old models)"),
            ("2022", "quality and trust"),
            ("2023", "experiments that were never removed"),
        ]
        deep_count = 14
        final_count = 50
        remaining = TARGET_FEATURES - self.feature_count - deep_count - final_count
        per_era = [remaining // len(eras) + (1 if k < remaining % len(eras) else 0)
                   for k in range(len(eras))]
        for (year, theme), count in zip(eras, per_era):
            self.era(year, theme, count)
            if year == "2019":
                self.deep_formulas()
        self.final_scores(final_count)
        assert self.feature_count == TARGET_FEATURES, self.feature_count

    def declare_inputs(self):
        self.section("Inputs",
                     "Item scalars first (one value per item), then the query scalars (one",
                     "value per query, with the default the ranking assumes), then the",
                     "embeddings. NaN means missing.")
        self.item_inputs = []
        for name, lo, hi, prior, kind, note in ITEM_INPUTS:
            self.declare(name, note=note)
            self.item_inputs.append((name, lo, hi, prior, kind))
        self.blank()
        for name, default, lo, hi, prior, note in QUERY_INPUTS:
            self.declare(name, "query", default=default, note=note)
        self.blank()
        self.declare("item_emb", "item", 32, note="item tower of the two-tower model")
        self.declare("item_image_emb", "item", 32, note="image model, same space")
        self.declare("user_emb", "query", 32, note="query / user tower")

    def query_context(self):
        self.section("The query", "Values shared by every item of the query.")
        n = self.define("n_items", aggregate("batch_count", c(1)),
                        "batch_count counts truthy items, so counting 1 counts them all.",
                        query=True)
        # A batch with items has at least one, and an empty batch has no
        # values to divide: n_items is a safe denominator.
        n = ref("n_items", 1, MAX_ITEMS)
        self.refs["n_items"] = n
        self.rank_denominator = self.define("rank_denominator", fmax(sub(n, c(1)), c(1)),
                                            query=True)
        self.n_items = n
        self.query_refs = {}
        for name, default, lo, hi, prior, note in QUERY_INPUTS:
            raw = ref(name, -math.inf, math.inf, nan=True)
            e = fill_nan(raw, prior, clamp(raw, lo, hi))
            self.query_refs[name] = self.define(name + "_f", e, query=True)
        hour = self.query_refs["query_hour"]
        hour_f = self.define("hour_of_day", sub(hour, mul(c(24), unary("floor", div(hour, c(24))))),
                             query=True)
        self.define("is_night", binop("<", hour_f, c(6)), query=True)
        self.define("is_work_hours", binop("&&", binop(">=", hour_f, c(9)),
                                           binop("<", hour_f, c(18))), query=True)
        self.define("is_evening", binop(">=", hour_f, c(18)), query=True)
        seg = self.define("segment", unary("round", self.query_refs["user_segment"]), query=True)
        self.define("is_new_user", binop("<=", seg, c(0)), query=True)
        self.define("is_returning_user", binop("==", seg, c(1)), query=True)
        self.define("is_loyal_user", binop(">=", seg, c(2)), query=True)
        self.define("is_mobile", binop("==", self.query_refs["user_is_mobile"], c(1)), query=True)
        ql = self.query_refs["query_length"]
        self.define("is_short_query", binop("<=", ql, c(1)), query=True)
        self.define("is_long_query", binop(">=", ql, c(4)), query=True)
        self.define("query_length_log", unary("log", ql), query=True)
        self.define("hour_angle_cos", unary("tanh", mul(sub(hour_f, c(12)), c(0.2618))),
                    query=True)
        self.define("arm_bucket", unary("ceil", mul(self.query_refs["experiment_arm"], c(4))),
                    query=True)

    def clean_inputs(self):
        self.section("Cleaned inputs",
                     "Every item input is cleaned once: x_missing flags a NaN, x_f fills it",
                     "with a prior and clamps it to its plausible range. Counts get a log",
                     "form; many inputs get a per-query normalization.")
        self.clean = {}
        aggregates = ["zscore", "pct", "min_max_scale", "vs_mean", "softmax", "top", "share"]
        for k, (name, lo, hi, prior, kind) in enumerate(self.item_inputs):
            raw = ref(name, -math.inf, math.inf, nan=True)
            self.blank()
            if kind == "flag":
                f = self.define(name + "_f", binop("==", raw, c(1)))
            else:
                # Later formulas use the flags of the inputs that are often
                # missing; the others' flags only exist for monitoring.
                missing = self.define(name + "_missing", unary("is_nan", raw),
                                      pool=name in OFTEN_MISSING)
                f = self.define(name + "_f", iff(missing, c(prior), clamp(raw, lo, hi),
                                                 nan=False))
            self.clean[name] = f
            base = f
            if kind == "count":
                base = self.define(name + "_log", unary("log1p", f))
                self.idioms.append(unary("log1p", f))
            elif kind == "rate":
                self.idioms.append(mul(c(100), f))
            for what in self.rng.sample(aggregates, 2 if kind != "flag" else 1):
                self.normalize(name, base, what)

    def normalize(self, name, base, what):
        if what == "zscore":
            self.define(f"{name}_z", clamp(aggregate("zscore", base), -5, 5))
        elif what == "pct":
            self.define(f"{name}_pct", percentile(base, self.rank_denominator))
        elif what == "min_max_scale":
            self.define(f"{name}_mm", aggregate("min_max_scale", base))
        elif what == "vs_mean":
            self.define(f"{name}_vs_mean", sub(base, aggregate("batch_mean", base)))
        elif what == "softmax":
            t = self.rng.choice([1, 2, 5])
            scaled = base if base.bound() <= 20 else div(base, c(base.bound() / 10))
            self.define(f"{name}_softmax", aggregate("softmax", mul(c(t), scaled)))
        elif what == "top":
            self.define(f"{name}_is_max", binop(">=", base, aggregate("batch_max", base)))
        elif what == "share":
            # base >= 0, so the share is at most 1; min() says so to readers
            # (and to the interval of the generator).
            total = aggregate("batch_sum", base)
            self.define(f"{name}_share",
                        iff(binop(">", total, c(0)),
                            fmin(safe_div(base, fmax(total, c(MARGIN))), c(1)), c(0)))

    def embeddings(self):
        self.section("Embeddings",
                     "Similarities clamped to their mathematical range: rounding (and",
                     "callers' data) can step slightly outside it.")
        sims = [("sem_cos", vector("cosine", "item_emb", "user_emb"), -1, 1),
                ("sem_dot", vector("dot", "item_emb", "user_emb"), -1, 1),
                ("sem_dist", vector("l2_distance", "item_emb", "user_emb"), 0, 2),
                ("img_cos", vector("cosine", "item_image_emb", "user_emb"), -1, 1),
                ("img_dist", vector("l2_distance", "item_image_emb", "user_emb"), 0, 2),
                ("item_img_agreement", vector("dot", "item_emb", "item_image_emb"), -1, 1),
                ("item_img_dist", vector("l2_distance", "item_emb", "item_image_emb"), 0, 2),
                ("item_emb_norm", vector("norm", "item_emb"), 0, 1),
                ("item_image_emb_norm", vector("norm", "item_image_emb"), 0, 1),
                ("user_emb_norm", vector("norm", "user_emb"), 0, 1)]
        for name, e, lo, hi in sims:
            self.idioms.append(e)
            f = self.define(name, iff(unary("is_nan", e), c(0), clamp(e, lo, hi)),
                            query=name == "user_emb_norm")
            self.clean[name] = f
        self.define("has_item_emb", binop(">", self.clean["item_emb_norm"], c(0.5)))
        self.define("sem_cos_pct", percentile(self.clean["sem_cos"], self.rank_denominator))
        self.define("sem_cos_softmax", aggregate("softmax", mul(c(10), self.clean["sem_cos"])))
        self.define("sem_img_mean", nary("mean", [self.clean["sem_cos"], self.clean["img_cos"]]))
        self.define("sem_sim_sq", power(fmax(self.clean["sem_cos"], c(0)), c(2)))

    def engagement(self):
        self.section("Engagement",
                     "Rates from the 7- and 30-day counts: raw, smoothed towards the",
                     "query's rate, and their trends.")
        cl = self.clean
        for window in ("7d", "30d"):
            impr, clicks = cl[f"impressions_{window}"], cl[f"clicks_{window}"]
            atc, orders = cl[f"add_to_carts_{window}"], cl[f"orders_{window}"]
            # Rates are capped at 1: logs lose impressions now and then, so a
            # count can exceed the one it is a share of.
            ctr_e = fmin(div(clicks, fmax(impr, c(1))), c(1))
            self.idioms.append(ctr_e)
            ctr = self.define(f"ctr_{window}", ctr_e)
            q_ctr = self.define(f"query_ctr_{window}",
                                fmin(div(aggregate("batch_sum", clicks),
                                         fmax(aggregate("batch_sum", impr), c(1))), c(1)),
                                query=True)
            for k in (10, 50, 200):
                self.define(f"ctr_{window}_smooth{k}",
                            fmin(div(add(clicks, mul(c(k), q_ctr)), add(impr, c(k))), c(1)))
            atc_rate = self.define(f"atc_rate_{window}",
                                   fmin(div(atc, fmax(clicks, c(1))), c(1)))
            cvr = self.define(f"cvr_{window}", fmin(div(orders, fmax(clicks, c(1))), c(1)))
            self.define(f"order_rate_{window}", fmin(div(orders, fmax(impr, c(1))), c(1)))
            self.define(f"funnel_{window}", nary("product", [ctr, atc_rate, cvr]))
            # The Wilson lower bound of the click rate at z = 1.96.
            z2 = 1.96 ** 2
            nn = fmax(impr, c(1))
            inner = add(div(mul(ctr, sub(c(1), ctr)), nn), div(c(z2 / 4), power(nn, c(2))))
            wilson = div(sub(add(ctr, div(c(z2 / 2), nn)), mul(c(1.96), safe_sqrt(inner))),
                         add(c(1), div(c(z2), nn)))
            self.define(f"ctr_{window}_wilson", wilson)
            self.define(f"engagement_{window}_log",
                        weighted_sum([1, 2, 4, 8],
                                     [unary("log1p", impr), unary("log1p", clicks),
                                      unary("log1p", atc), unary("log1p", orders)]))
        self.define("ctr_trend", safe_log(div(add(self.refs["ctr_7d"], c(0.01)),
                                              add(self.refs["ctr_30d"], c(0.01)))))
        self.define("cvr_trend", sub(self.refs["cvr_7d"], self.refs["cvr_30d"]))
        self.define("return_rate",
                    fmin(div(cl["returns_30d"], fmax(cl["orders_30d"], c(1))), c(1)))
        self.define("ctr-7d-legacy", self.refs["ctr_7d"],
                    "The name of the first dashboard, kept for its consumers.")
        self.define("is_trending", binop("||", binop(">", self.refs["ctr_trend"], c(0.2)),
                                         binop(">", self.refs["cvr_trend"], c(0.05))))
        self.define("no_traffic", binop("==", cl["impressions_30d"], c(0)))
        self.define("has_orders", binop("!=", cl["orders_30d"], c(0)))
        self.define("clicks_pct", percentile(self.refs["ctr_30d"], self.rank_denominator))
        self.define("orders_std_query", aggregate("batch_std", self.refs["cvr_30d"]), query=True)
        self.define("orders_min_query", aggregate("batch_min", self.refs["cvr_30d"]), query=True)

    def price_and_reviews(self):
        self.section("Price and reviews",
                     "Log prices against the query's typical price; Bayesian ratings.")
        price = ref("price", -math.inf, math.inf, nan=True)
        list_price = ref("list_price", -math.inf, math.inf, nan=True)
        ok = self.define("price_ok", binop("&&", lnot(unary("is_nan", price)),
                                           binop(">", price, c(0))))
        present = self.define("log_price_present",
                              iff(ok, unary("log", clamp(price, 0.01, 1e5)), NAN_CONST),
                              "NaN where the price is missing: the aggregates below skip it.",
                              allow_nan=True)
        center_raw = self.define("log_price_center_raw", aggregate("batch_mean", present),
                                 allow_nan=True, query=True)
        center = self.define("log_price_center", fill_nan(center_raw, 3.5), query=True)
        spread_raw = self.define("log_price_spread_raw", aggregate("batch_std", present),
                                 allow_nan=True, query=True)
        spread = self.define("log_price_spread",
                             fill_nan(spread_raw, 1, fmax(spread_raw, c(0.1))), query=True)
        log_price = self.define("log_price",
                                iff(ok, unary("log", clamp(price, 0.01, 1e5)), center,
                                    nan=False))
        self.idioms.append(unary("log1p", self.clean["price"]))
        vs = self.define("price_vs_center", div(sub(log_price, center), spread))
        self.price_vs_center = vs
        self.define("is_price_outlier", binop(">", unary("abs", vs), c(2.5)))
        total = self.define("total_price", add(self.clean["price"], self.clean["shipping_cost"]))
        self.define("shipping_share", div(self.clean["shipping_cost"], total))
        self.define("cheapness", neg(unary("log", total)))
        self.define("is_cheapest", binop("==", aggregate("rank", self.refs["cheapness"]), c(1)))
        self.define("price_decade",
                    fmax(unary("floor", div(log_price, unary("log", c(10)))), c(0)))
        has_list = self.define("has_list_price",
                               binop("&&", ok, binop(">", self.clean["list_price"],
                                                     self.clean["price"])))
        discount = self.define("discount",
                               iff(has_list, sub(c(1), div(self.clean["price"],
                                                           self.clean["list_price"])), c(0)))
        self.define("discount_trusted", fmin(discount, c(0.7)))
        self.define("is_deep_discount", binop("&&", binop(">=", discount, c(0.3)),
                                              binop("<=", discount, c(0.7))))
        self.define("is_suspicious_discount", binop(">", discount, c(0.7)))
        pref = self.query_refs["user_price_pref"]
        gap = self.define("price_pref_gap", sub(unary("log", total), unary("log", pref)))
        self.define("price_pref_fit", unary("exp", mul(c(-0.5), power(div(gap, c(0.7)), c(2)))))
        above = self.define("price_above_pref", fmax(gap, c(0)))
        self.define("price_penalty",
                    mul(self.query_refs["user_price_sensitivity"], power(above, c(1.5))))
        # Reviews.
        rating = ref("rating", -math.inf, math.inf, nan=True)
        count = self.clean["rating_count"]
        rating_ok = self.define("rating_ok", binop("&&", binop("&&", lnot(unary("is_nan", rating)),
                                                              binop(">=", rating, c(1))),
                                                   binop(">", count, c(0))))
        rating_present = self.define("rating_present", iff(rating_ok, clamp(rating, 1, 5),
                                                           NAN_CONST),
                                     allow_nan=True)
        q_mean = self.define("rating_query_mean_raw", aggregate("batch_mean", rating_present),
                             allow_nan=True, query=True)
        prior = self.define("rating_prior",
                            fill_nan(q_mean, 4.2, add(mul(c(0.5), q_mean), c(2.1))), query=True)
        weighted = self.define("rating_weighted_count", iff(rating_ok, count, c(0)))
        bayes = self.define("rating_bayes",
                            div(add(mul(c(15), prior), mul(self.clean["rating"], weighted)),
                                add(c(15), weighted)))
        norm = self.define("rating_norm", div(sub(bayes, c(1)), c(4)))
        self.idioms.append(div(sub(self.clean["rating"], c(1)), c(4)))
        conf = self.define("rating_confidence", div(weighted, add(weighted, c(15))))
        self.define("rating_quality", mul(power(norm, c(2)), add(c(0.5), mul(c(0.5), conf))))
        self.define("is_top_rated", binop("&&", binop(">=", bayes, c(4.5)),
                                          binop(">=", count, c(50))))
        self.define("rated_share", div(aggregate("batch_count", rating_ok), self.n_items),
                    query=True)

    # -- eras of growth --------------------------------------------------------

    def era(self, year, theme, count):
        self.section(f"{year}: {theme}")
        templates = [(self.t_interaction, 6), (self.t_ratio, 6), (self.t_diff, 3),
                     (self.t_smoothed, 3), (self.t_centered, 3), (self.t_gap_to_best, 2),
                     (self.t_pct, 2), (self.t_zscore, 2), (self.t_mm, 2), (self.t_softmax, 1),
                     (self.t_bucket, 3), (self.t_flag, 4), (self.t_compound_flag, 3),
                     (self.t_conditional, 4), (self.t_clamp, 3), (self.t_squash, 4),
                     (self.t_power, 3), (self.t_decay, 2), (self.t_log_ratio, 2),
                     (self.t_nary, 4), (self.t_model, 3), (self.t_signed_sqrt, 1),
                     (self.t_not, 1), (self.t_share_flagged, 1), (self.t_query_stat, 2),
                     (self.t_is_best, 1), (self.t_variant, 5 if year >= "2021" else 2),
                     (self.t_composed, 5), (self.t_alias, 1), (self.t_foldable, 1)]
        functions = [t for t, _ in templates]
        weights = [w for _, w in templates]
        for _ in range(count):
            template = self.rng.choices(functions, weights)[0]
            name, e, query = template()
            self.define(self.unique(name), e, query=query)

    @staticmethod
    def short(name):
        return name[:20].rstrip("_")

    def t_interaction(self):
        a, b = self.operand(), self.operand()
        return f"{self.short(self.name_of(a))}_x_{self.short(self.name_of(b))}", mul(a, b), False

    def t_ratio(self):
        a, b = self.operand(lambda e: e.lo >= 0), self.operand(lambda e: e.lo >= 0)
        return (f"{self.short(self.name_of(a))}_per_{self.short(self.name_of(b))}",
                safe_div(a, b, self.rng.choice([1, 0.1, 0.01])), False)

    def t_diff(self):
        a, b = self.operand(), self.operand()
        return f"{self.short(self.name_of(a))}_minus_{self.short(self.name_of(b))}", sub(a, b), \
            False

    def t_smoothed(self):
        a = self.operand(lambda e: e.lo >= 0)
        b = self.operand(lambda e: e.lo >= 0)
        k = self.rng.choice([5, 10, 20, 100])
        prior = round(self.rng.uniform(0.01, 0.3), 3)
        return (f"{self.short(self.name_of(a))}_rate_smooth",
                div(add(a, c(k * prior)), add(b, c(k))), False)

    def t_centered(self):
        a = self.operand()
        return f"{self.short(self.name_of(a))}_centered", sub(a, aggregate("batch_mean", a)), \
            False

    def t_gap_to_best(self):
        a = self.operand()
        if self.rng.random() < 0.5:
            return f"{self.short(self.name_of(a))}_gap_to_best", \
                sub(aggregate("batch_max", a), a), False
        return f"{self.short(self.name_of(a))}_above_worst", \
            sub(a, aggregate("batch_min", a)), False

    def t_pct(self):
        a = self.operand()
        key = a if self.rng.random() < 0.7 else neg(a)
        return f"{self.short(self.name_of(a))}_pct", percentile(key, self.rank_denominator), \
            False

    def t_zscore(self):
        a = self.operand()
        e = aggregate("zscore", a)
        if self.rng.random() < 0.6:
            e = clamp(e, -3, 3)
        return f"{self.short(self.name_of(a))}_z", e, False

    def t_mm(self):
        a = self.operand()
        return f"{self.short(self.name_of(a))}_mm", aggregate("min_max_scale", a), False

    def t_softmax(self):
        a = self.operand(lambda e: e.bound() <= 50)
        return f"{self.short(self.name_of(a))}_softmax", \
            aggregate("softmax", mul(c(self.rng.choice([0.5, 1, 3])), a)), False

    def t_bucket(self):
        a = self.operand(lambda e: e.bound() <= 1e4)
        k = self.rng.choice([2, 4, 5, 10, 20])
        fn = self.rng.choice(["floor", "floor", "round", "ceil"])
        return f"{self.short(self.name_of(a))}_bucket{k}", \
            div(unary(fn, mul(a, c(k))), c(k)), False

    def t_flag(self):
        a = self.operand(lambda e: not e.boolean)
        op = self.rng.choice([">", ">=", "<", "<="])
        word = {">": "above", ">=": "atleast", "<": "below", "<=": "atmost"}[op]
        return f"{self.short(self.name_of(a))}_{word}", binop(op, a, c(self.threshold(a))), False

    def t_compound_flag(self):
        a = self.operand(lambda e: not e.boolean)
        b = self.operand(lambda e: not e.boolean)
        fa = binop(self.rng.choice([">", ">="]), a, c(self.threshold(a)))
        fb = binop(self.rng.choice(["<", "<="]), b, c(self.threshold(b)))
        op = self.rng.choice(["&&", "&&", "||"])
        word = "and" if op == "&&" else "or"
        return f"{self.short(self.name_of(a))}_{word}_{self.short(self.name_of(b))}", \
            binop(op, fa, fb), False

    def t_conditional(self):
        cond = self.operand(lambda e: e.boolean)
        a, b = self.operand(), self.operand()
        if self.rng.random() < 0.3:
            b = c(0)
        return f"{self.short(self.name_of(a))}_if_{self.short(self.name_of(cond))}", \
            iff(cond, a, b), False

    def t_clamp(self):
        a = self.operand(lambda e: not e.boolean)
        lo = self.threshold(a)
        hi = round(lo + (min(a.hi, 1e3) - lo) * self.rng.uniform(0.3, 0.9), 2)
        if hi <= lo:
            hi = lo + 1
        return f"{self.short(self.name_of(a))}_clamped", clamp(a, lo, hi), False

    def t_squash(self):
        a = self.operand(lambda e: not e.boolean)
        center = self.threshold(a)
        scale = max(round((min(a.hi, 1e3) - max(a.lo, -1e3)) / 4, 2), 0.01)
        if self.rng.random() < 0.5:
            return f"{self.short(self.name_of(a))}_sig", \
                unary("sigmoid", div(sub(a, c(center)), c(scale))), False
        return f"{self.short(self.name_of(a))}_tanh", unary("tanh", div(a, c(scale))), False

    def t_power(self):
        a = self.operand(lambda e: e.lo >= 0 and e.hi <= 1e3)
        form = self.rng.randrange(3)
        if form == 0:
            p = self.rng.choice([0.5, 1.5, 2, 3, 0.25])
            return f"{self.short(self.name_of(a))}_pow", power(a, c(p)), False
        if form == 1:
            p = self.rng.choice([0.3, 0.7, 1.2])
            return f"{self.short(self.name_of(a))}_pow", power(a, c(p), call_syntax=True), False
        return f"{self.short(self.name_of(a))}_inv_sqrt", power(add(c(1), a), c(-0.5)), False

    def t_decay(self):
        a = self.operand(lambda e: e.lo >= 0 and not e.boolean)
        tau = self.rng.choice([1, 7, 30, 90])
        return f"{self.short(self.name_of(a))}_decay{tau}", \
            unary("exp", div(neg(a), c(tau))), False

    def t_log_ratio(self):
        a = self.operand(lambda e: e.lo >= 0)
        b = self.operand(lambda e: e.lo >= 0)
        eps = self.rng.choice([1, 0.1, 0.01])
        return f"{self.short(self.name_of(a))}_lr_{self.short(self.name_of(b))}", \
            sub(unary("log", add(a, c(eps))), unary("log", add(b, c(eps)))), False

    def t_nary(self):
        kind = self.rng.choice(["mean", "max", "min", "sum", "product"])
        k = self.rng.choice([1, 3, 3, 4, 5, 6]) if kind in ("min", "max") else \
            self.rng.randint(2, 6)
        pred = (lambda e: e.is_unit()) if kind == "product" else (lambda e: True)
        args = [self.operand(pred) for _ in range(k)]
        return f"{kind}_of_{self.short(self.name_of(args[0]))}_{k}", nary(kind, args), False

    def t_model(self):
        k = self.rng.randint(4, 16)
        args = [self.operand(lambda e: e.bound() <= 100) for _ in range(k)]
        ws = [self.weight(2) for _ in args]
        e = add(weighted_sum(ws, args), c(self.weight(1)))
        e = unary("sigmoid", e) if self.rng.random() < 0.7 else unary("tanh", e)
        return "submodel_" + self.short(self.name_of(args[0])), e, False

    def t_signed_sqrt(self):
        a, b = self.operand(), self.operand()
        d = sub(a, b)
        return f"{self.short(self.name_of(a))}_ssqrt", \
            mul(unary("sign", d), unary("sqrt", unary("abs", d))), False

    def t_not(self):
        a = self.operand(lambda e: e.boolean)
        return f"not_{self.short(self.name_of(a))}", lnot(a), False

    def t_share_flagged(self):
        a = self.operand(lambda e: not e.boolean)
        return f"{self.short(self.name_of(a))}_high_share", \
            div(aggregate("batch_count", binop(">", a, c(self.threshold(a)))), self.n_items), True

    def t_query_stat(self):
        a = self.operand()
        fn = self.rng.choice(["batch_mean", "batch_std", "batch_min", "batch_max", "batch_sum"])
        e = aggregate(fn, a)
        if fn == "batch_sum":
            e = div(e, self.n_items)
        return f"{self.short(self.name_of(a))}_{fn[6:]}_q", e, True

    def t_is_best(self):
        a = self.operand(lambda e: not e.boolean)
        if self.rng.random() < 0.5:
            return f"{self.short(self.name_of(a))}_is_best", \
                binop("==", a, aggregate("batch_max", a)), False
        return f"{self.short(self.name_of(a))}_nonzero", binop("!=", a, c(0)), False

    def t_variant(self):
        """An older formula copied whole and re-tuned: the copy and the
        original share everything but the tweak."""
        for _ in range(50):
            name = self.pick(lambda e: True, recent=400)
            e = self.exprs[name]
            if 3 <= e.nodes <= 60:
                break
        b = self.operand()
        w = round(self.rng.uniform(0.5, 0.95), 2)
        return f"{name}_retuned", add(mul(c(w), e), mul(c(round(1 - w, 2)), b)), False

    def t_composed(self):
        return f"f{self.feature_count:04d}", self.random_expr(self.rng.randint(2, 4)), False

    def t_alias(self):
        a = self.refs[self.pick()]
        return f"{self.name_of(a)}_legacy", a, False

    def t_foldable(self):
        """Written as people write them: constant factors, x * 1, if(1, ...).
        The optimizer folds these; the reference computes them as written."""
        a = self.operand()
        form = self.rng.randrange(4)
        if form == 0:
            e = mul(mul(c(2), c(0.5)), a)
        elif form == 1:
            e = add(mul(a, c(1)), c(0))
        elif form == 2:
            e = iff(binop(">", c(1), c(0)), a, c(0))
        else:
            e = mul(div(c(100), c(60)), a)
        return f"{self.short(self.name_of(a))}_scaled", e, False

    def random_expr(self, depth):
        """A random but guarded formula: what an engineer writes by hand."""
        if depth <= 0 or self.rng.random() < 0.15:
            return self.operand()
        kind = self.rng.randrange(12)
        x = self.random_expr(depth - 1)
        if kind == 0:
            return add(x, self.random_expr(depth - 1))
        if kind == 1:
            w = self.weight()
            op = sub if w > 0 else add
            return op(x, mul(c(abs(w)), self.random_expr(depth - 1)))
        if kind == 2:
            y = self.random_expr(depth - 1)
            e = mul(x, y)
            return e if e.bound() <= RANDOM_CAP else mul(unary("tanh", x), y)
        if kind == 3:
            return safe_div(x, unary("abs", self.random_expr(depth - 1)) if self.rng.random() < 0.5
                            else add(c(1), unary("abs", self.random_expr(depth - 1))))
        if kind == 4:
            return unary(self.rng.choice(["sigmoid", "tanh"]), x)
        if kind == 5:
            return safe_log(x)
        if kind == 6:
            return safe_sqrt(x)
        if kind == 7:
            return iff(binop(self.rng.choice(["<", ">", "<=", ">=", "==", "!="]), x,
                             c(self.threshold(x))), self.random_expr(depth - 1),
                       self.random_expr(depth - 1))
        if kind == 8:
            return self.rng.choice([fmin, fmax])(x, self.random_expr(depth - 1))
        if kind == 9:
            return unary(self.rng.choice(["floor", "ceil", "round", "sign", "abs"]), x)
        if kind == 10:
            return safe_exp(neg(unary("abs", x)))
        return nary(self.rng.choice(["sum", "mean", "max", "min"]),
                    [x, self.random_expr(depth - 1), self.random_expr(depth - 1)])

    def name_of(self, e):
        """A readable name for an operand (for naming the new feature): the
        feature itself, or its outer function and first feature."""
        if e.text.strip("`") in self.refs:
            return e.text.strip("`")
        words = re.findall(r"([A-Za-z_][A-Za-z0-9_.]*)(\(?)", e.text)
        function = next((w for w, paren in words if paren), "expr")
        names = [w for w, paren in words if not paren and (w in self.refs or w in self.input_names)]
        return f"{function}_{names[0]}" if names else function

    # -- deep formulas ---------------------------------------------------------

    def deep_formulas(self):
        self.section("Deep formulas",
                     "Tables and curves written out as single expressions, each nested",
                     "more than 100 levels deep: calibration tables, a polynomial, the",
                     "legacy linear model, a piecewise-linear curve, long guards.")
        rng = self.rng
        x = self.price_vs_center
        # 1. A calibration table: 120 thresholds in one if-chain.
        thresholds = sorted(round(rng.uniform(-4, 4), 3) for _ in range(120))
        values = sorted(round(rng.uniform(0, 1), 4) for _ in range(121))
        e = c(values[-1])
        for t, v in reversed(list(zip(thresholds, values))):
            e = iff(binop("<", x, c(t)), c(v), e)
        self.deep_define("price_calibration", e)
        # 2. A polynomial of degree 64 in Horner form.
        ctr = self.refs["ctr_30d_smooth50"]
        e = c(round(rng.uniform(-1, 1), 3))
        for _ in range(64):
            e = add(mul(e, ctr), c(round(rng.uniform(-1, 1) / 4, 4)))
        self.deep_define("ctr_polynomial", e)
        # 3. The legacy linear model: 160 terms, left-nested as typed.
        terms = [self.refs[self.pick(lambda e: e.bound() <= 100)] for _ in range(160)]
        e = mul(c(self.weight()), terms[0])
        for t in terms[1:]:
            w = self.weight()
            e = sub(e, mul(c(-w), t)) if w < 0 else add(e, mul(c(w), t))
        self.deep_define("legacy_linear_score", e)
        # 4. A piecewise-linear freshness curve over 110 knots.
        age = self.refs["days_since_listed_log"]
        knots = [i * 0.1 for i in range(111)]
        ys = [round(math.exp(-k / 3) + rng.uniform(-0.02, 0.02), 4) for k in knots]
        e = c(ys[-1])
        for i in range(len(knots) - 1, 0, -1):
            slope = round((ys[i] - ys[i - 1]) / 0.1, 4)
            piece = add(c(ys[i - 1]), mul(sub(age, c(round(knots[i - 1], 1))), c(slope)))
            e = iff(binop("<", age, c(round(knots[i], 1))), piece, e)
        self.deep_define("freshness_curve", e)
        # 5. A quality gate: 110 conditions joined by &&.
        # Range validations of 110 features (true on sane data), and-ed.
        e = None
        for _ in range(110):
            a = self.refs[self.pick(lambda e: not e.boolean)]
            form = rng.randrange(3)
            if form == 0:
                cond = binop(">=", a, c(math.floor(a.lo) - 1))
            elif form == 1:
                cond = binop("<=", a, c(math.ceil(a.hi) + 1))
            else:
                cond = lnot(unary("is_nan", a))
            e = cond if e is None else binop("&&", e, cond)
        self.deep_define("passes_quality_gate", e)
        # 6. Exponential smoothing over 200 features (depth 3 per step).
        e = self.refs[self.pick(lambda e: e.is_unit())]
        for _ in range(200):
            f = self.refs[self.pick(lambda e: e.is_unit())]
            e = add(mul(c(0.9), e), mul(c(0.1), f))
        self.deep_define("smoothed_signal", e)
        # 7. A clamp chain: an affine map and a clamp per step.
        e = self.refs["rating_norm"]
        for _ in range(80):
            affine = add(mul(c(round(rng.uniform(0.8, 1.25), 3)), e),
                         c(round(rng.uniform(-0.05, 0.05), 3)))
            e = fmin(c(1), fmax(c(0), affine))
        self.deep_define("clamp_chain", e)
        # 8. An unrolled recurrent cell: h = tanh(w * h + u * x_k + b).
        e = c(0)
        for _ in range(100):
            xk = self.refs[self.pick(lambda e: e.bound() <= 10)]
            e = unary("tanh", add(add(mul(c(self.weight()), e), mul(c(self.weight()), xk)),
                                  c(self.weight(0.1))))
        self.deep_define("recurrent_cell", e)
        # 9. A long OR of alerts with mixed comparisons and a NOT.
        e = None
        for _ in range(105):
            a = self.refs[self.pick(lambda e: not e.boolean)]
            cond = binop(rng.choice(["==", "!="]), unary("round", a),
                         c(math.floor(a.hi) + 7)) if rng.random() < 0.5 else \
                lnot(binop("<=", a, c(a.hi + 1)))
            e = cond if e is None else binop("||", e, cond)
        self.deep_define("any_alert", e)
        # 10. A rating re-rounded and re-smoothed by successive pipelines
        # (each kept the previous one's output and added its own step).
        e = self.clean["rating"]
        for k in range(120):
            e = unary("sqrt", add(c(round(rng.uniform(0, 0.01), 4)), power(e, c(2)))) \
                if k % 2 else div(unary("round", mul(c(100), e)), c(100))
        self.deep_define("rating_rounded_deep", e)
        # Not deep but large: a boosted-trees model exported as formulas,
        # three trees of depth 7 (127 decisions each), summed.
        trees = []
        for t in range(3):
            trees.append(self.define(f"gbdt_tree_{t}", self.tree(7)))
        self.define("gbdt_score", nary("sum", trees))

    def tree(self, depth):
        if depth == 0:
            return c(round(self.rng.uniform(-0.3, 0.3), 4))
        a = self.refs[self.pick(lambda e: e.bound() <= 100 and not e.boolean, recent=400)]
        return iff(binop("<", a, c(self.threshold(a))), self.tree(depth - 1),
                   self.tree(depth - 1))

    def deep_define(self, name, e):
        self.deep.append((name, e.depth))
        self.define(name, e)

    # -- final -----------------------------------------------------------------

    def final_scores(self, count):
        self.section("Sub-models and the score",
                     "Sub-models over everything above, the score the results are sorted",
                     "by, and what the serving layer reads about it (aggregates of the",
                     "computed score).")
        start = self.feature_count
        topics = ["relevance", "engagement", "conversion", "quality", "seller", "delivery",
                  "price", "freshness", "personalization", "trust", "novelty", "margin"]
        probs = []
        for topic in topics:
            k = self.rng.randint(12, 30)
            args = [self.refs[self.pick(lambda e: e.bound() <= 10 and not e.boolean)]
                    for _ in range(k)]
            logit = self.define(f"{topic}_logit",
                                add(weighted_sum([self.weight(0.5) for _ in args], args),
                                    c(self.weight())))
            probs.append(self.define(f"{topic}_prob", unary("sigmoid", logit)))
        # The bias centres the score: each probability is about 0.5 on
        # average, so minus half the weights puts the logit around 0.
        weights = [round(self.rng.uniform(0.2, 1.5), 2) for _ in probs]
        logit = self.define("score_logit", add(weighted_sum(weights, probs),
                                               c(-round(sum(weights) / 2, 2))))
        score = self.define("score", unary("sigmoid", logit),
                            "In [0, 1]: the benchmark checks it.")
        n = self.n_items
        rank = self.define("score_rank", aggregate("rank", score))
        self.define("score_pct", sub(c(1), div(sub(rank, c(1)), self.rank_denominator)))
        self.define("score_softmax", aggregate("softmax", mul(c(10), score)))
        self.define("score_z", aggregate("zscore", score))
        self.define("score_mm", aggregate("min_max_scale", score))
        self.define("score_mean_q", aggregate("batch_mean", score), query=True)
        self.define("score_std_q", aggregate("batch_std", score), query=True)
        self.define("score_max_q", aggregate("batch_max", score), query=True)
        self.define("score_min_q", aggregate("batch_min", score), query=True)
        self.define("score_share", div(score, fmax(aggregate("batch_sum", score), c(MARGIN))))
        self.define("is_top10", binop("<=", rank, c(10)))
        self.define("top10_mean_score",
                    div(aggregate("batch_sum", iff(self.refs["is_top10"], score, c(0))),
                        fmin(n, c(10))), query=True)
        self.define("confident_items", aggregate("batch_count", binop(">", score, c(0.8))),
                    query=True)
        self.define("score_gap_to_best", sub(self.refs["score_max_q"], score))
        self.define("sponsored_adjusted",
                    mul(score, sub(c(1), mul(c(0.1), self.clean["is_sponsored"]))))
        self.define("diversity_penalty",
                    mul(c(0.05), aggregate("rank", self.refs["sponsored_adjusted"])))
        self.define("final_score", sub(self.refs["sponsored_adjusted"],
                                       div(self.refs["diversity_penalty"], fmax(n, c(1)))))
        self.define("final_rank", aggregate("rank", self.refs["final_score"]))
        while self.feature_count < start + count:
            a = self.refs[self.pick(lambda e: e.bound() <= 100, recent=60)]
            self.define(self.unique(f"debug_{self.short(self.name_of(a))}"),
                        mul(score, a) if self.rng.random() < 0.5 else
                        aggregate("min_max_scale", add(score, mul(c(0.01), a))))

    # -- header ----------------------------------------------------------------

    def header(self):
        scopes = collections.Counter((s, d > 0) for _, s, d in self.inputs)
        lines = [
            "Generated by bench/gen_large_set.py; do not edit. Regenerate with",
            "    python3 bench/gen_large_set.py > bench/large_set.calc",
            "",
            "A large synthetic ranking set for the benchmarks (BM_Large, BM_Prepare,",
            "BM_Parse in bench/bench_main.cc): it imitates a set grown over years, with",
            "layers of features that build on earlier ones, repeated idioms, re-tuned",
            "copies of older formulas and a few formulas nested 100+ levels deep.",
            "Every value is finite, whatever the scalar inputs (embeddings of norm 1 or",
            "0 assumed), except in the *_present and *_raw features that hold NaN for",
            "\"missing\" on purpose; `score` is in [0, 1].",
            "",
        ]
        summary = (
            f"Seed {SEED}. {self.feature_count} features; {len(self.inputs)} declared inputs "
            f"({scopes[('item', False)]} item scalars, {scopes[('query', False)]} query "
            f"scalars, {scopes[('item', True)]} item vectors and {scopes[('query', True)]} "
            f"query vector of dimension 32); {self.nodes} expression nodes; maximum depth "
            f"{self.max_depth[0]} ({self.max_depth[1]}). Formulas nested 100+ levels deep "
            "(depth): " + ", ".join(f"{n} {d}" for n, d in self.deep) + ".")
        lines += textwrap.wrap(summary, 76) + ["Operators (occurrences):"]
        for group, names in ALL_OPERATORS.items():
            text = ", ".join(f"{n} {self.ops[n]}" for n in names)
            for k, line in enumerate(textwrap.wrap(f"{group}: {text}", 74)):
                lines.append(("  " if k == 0 else "    ") + line)
        return [f"# {line}" if line else "#" for line in lines]

    def check_coverage(self):
        missing = [n for names in ALL_OPERATORS.values() for n in names if self.ops[n] == 0]
        if missing:
            raise SystemExit(f"gen_large_set.py: operators never used: {missing}")


# name, lo, hi (the clamp of x_f), prior (for NaN), kind, note
ITEM_INPUTS = [
    ("price", 0.01, 1e5, 20, "count", "what the buyer pays now"),
    ("list_price", 0.01, 1e6, 20, "count", "the \"was\" price; NaN when none"),
    ("shipping_cost", 0, 100, 0, "plain", "0 for free shipping"),
    ("rating", 1, 5, 4.2, "plain", "mean star rating; NaN while unrated"),
    ("rating_count", 0, 1e7, 0, "count", None),
    ("delivery_days", 0, 60, 7, "plain", "NaN when unknown"),
    ("stock", 0, 1e6, 0, "count", None),
    ("fulfilled_by_platform", 0, 1, 0, "flag", None),
    ("seller_rating", 1, 5, 4, "plain", None),
    ("seller_cancel_rate", 0, 1, 0.05, "rate", None),
    ("seller_late_rate", 0, 1, 0.1, "rate", None),
    ("seller_age_days", 0, 2e4, 365, "count", None),
    ("impressions_7d", 0, 1e8, 0, "count", None),
    ("clicks_7d", 0, 1e8, 0, "count", None),
    ("add_to_carts_7d", 0, 1e8, 0, "count", None),
    ("orders_7d", 0, 1e8, 0, "count", None),
    ("impressions_30d", 0, 1e8, 0, "count", None),
    ("clicks_30d", 0, 1e8, 0, "count", None),
    ("add_to_carts_30d", 0, 1e8, 0, "count", None),
    ("orders_30d", 0, 1e8, 0, "count", None),
    ("returns_30d", 0, 1e8, 0, "count", None),
    ("bm25", 0, 100, 0, "plain", "text relevance from retrieval"),
    ("title_match", 0, 1, 0, "rate", None),
    ("category_match", 0, 1, 0.5, "rate", None),
    ("brand_match", 0, 1, 0, "flag", None),
    ("days_since_listed", 0, 1e5, 365, "count", None),
    ("days_since_price_change", 0, 1e5, 30, "count", None),
    ("image_count", 0, 100, 1, "plain", None),
    ("is_sponsored", 0, 1, 0, "flag", None),
    # Scores in [0, 1] added by later teams.
    ("desc_match", 0, 1, 0, "rate", "scores in [0, 1] from other systems"),
    ("attribute_match", 0, 1, 0, "rate", None),
    ("color_match", 0, 1, 0.5, "rate", None),
    ("size_match", 0, 1, 0.5, "rate", None),
    ("material_match", 0, 1, 0.5, "rate", None),
    ("synonym_match", 0, 1, 0, "rate", None),
    ("spell_corrected_match", 0, 1, 0, "rate", None),
    ("image_quality", 0, 1, 0.5, "rate", None),
    ("title_quality", 0, 1, 0.5, "rate", None),
    ("description_quality", 0, 1, 0.5, "rate", None),
    ("brand_popularity", 0, 1, 0.1, "rate", None),
    ("brand_affinity", 0, 1, 0, "rate", None),
    ("seller_affinity", 0, 1, 0, "rate", None),
    ("repeat_purchase_rate", 0, 1, 0.05, "rate", None),
    ("wishlist_rate", 0, 1, 0.01, "rate", None),
    ("cart_abandon_rate", 0, 1, 0.5, "rate", None),
    ("price_competitiveness", 0, 1, 0.5, "rate", None),
    ("fraud_risk", 0, 1, 0, "rate", None),
    ("return_propensity", 0, 1, 0.1, "rate", None),
    ("geo_affinity", 0, 1, 0.5, "rate", None),
    ("stock_health", 0, 1, 0.5, "rate", None),
    ("category_depth_share", 0, 1, 0.5, "rate", None),
]

# The inputs that are missing often enough for their flag to be a signal.
OFTEN_MISSING = {"list_price", "rating", "delivery_days", "seller_rating", "impressions_7d",
                 "bm25", "category_match", "days_since_price_change"}

# name, default, lo, hi (the clamp), prior (for NaN), note
QUERY_INPUTS = [
    ("user_price_pref", math.nan, 1, 1e5, 50, "the user's typical price; NaN: unknown"),
    ("user_price_sensitivity", 0.5, 0, 1, 0.5, "0 ignores price .. 1 bargain hunter"),
    ("user_segment", 0, 0, 2, 0, "0 new, 1 returning, 2 loyal"),
    ("user_is_mobile", 0, 0, 1, 0, None),
    ("query_hour", 12, 0, 23, 12, "local hour"),
    ("query_length", 2, 1, 20, 2, "number of terms"),
    ("query_has_brand", 0, 0, 1, 0, None),
    ("experiment_arm", 0, 0, 1, 0, None),
    ("season_boost", 1, 0, 2, 1, None),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", metavar="PATH",
                        help="instead of printing the set, exit 1 unless PATH holds exactly it "
                             "(a test runs this on the checked-in bench/large_set.calc)")
    args = parser.parse_args()
    generator = Generator(SEED)
    generator.generate()
    generator.check_coverage()
    header = generator.header()
    text = "\n".join(header + generator.out) + "\n"
    if args.check:
        with open(args.check, encoding="utf-8", newline="") as f:
            if f.read() != text:
                sys.exit(f"{args.check} is not what bench/gen_large_set.py prints; regenerate "
                         "it: python3 bench/gen_large_set.py > bench/large_set.calc")
        return
    sys.stdout.write(text)
    start = next(k for k, line in enumerate(header) if line.startswith("# Seed"))
    for line in header[start:]:
        print(line[2:], file=sys.stderr)


if __name__ == "__main__":
    main()
