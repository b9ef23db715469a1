package io.calcjit.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A pure-Java recursive interpreter of the whole calcjit language (contract
 * v1, shared/spec/DSL.md), the classic design calcjit replaces: the feature
 * set, read from its proto3 JSON form, becomes a tree of nodes; an evaluation
 * walks each definition's tree recursively, and every operator node returns
 * a <b>new {@code float[n]}</b> column (allocated per node per evaluation),
 * computed from its children's columns with one loop. Leaves: a constant or
 * a query scalar is a new column filled with its value; an item scalar input
 * is the caller's array itself (not copied); a reference to another
 * definition is that definition's column, computed once per evaluation
 * (memoized: each of the set's definitions is evaluated exactly once).
 *
 * <p>Semantics follow the contract where it is cheap: NaN propagation,
 * truthiness, {@code if} computes both branches for every item, aggregates
 * see the whole batch and skip NaN items, float64 striped sums for SUM, MEAN,
 * STD and SOFTMAX, the rank tie and NaN rules, the vector sums' eight partial
 * sums, IEEE minimum/maximum. Not bit for bit: EXP, LOG, LOG1P, SIGMOID, TANH
 * and POW are computed with java.lang.Math in double and rounded to float
 * (almost always the correctly rounded result, not always; calcjit's POW has
 * its own algorithm).
 */
final class JavaInterpreter {
  // Operator numbers of the wire format, per message (AsmCompiler reads them too).
  static final String[] UNARY = {"UNSPECIFIED", "NEG", "ABS", "EXP", "LOG", "LOG1P",
      "SQRT", "SIGMOID", "TANH", "FLOOR", "CEIL", "ROUND", "SIGN", "NOT", "IS_NAN"};
  static final String[] BINARY = {"UNSPECIFIED", "SUM", "SUB", "MUL", "DIV", "POW",
      "MIN", "MAX", "EQ", "NE", "LT", "LE", "GT", "GE", "AND", "OR"};
  static final String[] NARY = {"UNSPECIFIED", "SUM", "PRODUCT", "MIN", "MAX", "MEAN",
      "WEIGHTED_SUM"};
  static final String[] VECTOR = {"UNSPECIFIED", "DOT", "COSINE", "L2_DISTANCE", "NORM"};
  static final String[] AGGREGATE = {"UNSPECIFIED", "MIN", "MAX", "SUM", "MEAN", "STD",
      "COUNT", "RANK", "SOFTMAX", "MIN_MAX_SCALE", "ZSCORE"};

  /** A declared or implicit input. */
  static final class Input {
    final String name;
    final boolean query;
    final int dimension;
    final boolean hasDefault;
    final float defaultValue;
    float[] data;  // bound by the caller, or null

    Input(String name, boolean query, int dimension, boolean hasDefault, float defaultValue) {
      this.name = name;
      this.query = query;
      this.dimension = dimension;
      this.hasDefault = hasDefault;
      this.defaultValue = defaultValue;
    }
  }

  private final List<Input> inputs = new ArrayList<>();
  private final Map<String, Input> inputByName = new HashMap<>();
  private final List<String> featureNames = new ArrayList<>();
  private final Map<String, Integer> featureIndex = new HashMap<>();
  private final Node[] roots;

  // The evaluation in progress.
  private int n;
  private float[][] memo;

  private JavaInterpreter(Map<String, Object> set) {
    for (Object o : list(set.get("inputs"))) {
      Map<String, Object> in = map(o);
      String name = (String) in.get("name");
      Object scope = field(in, "scope", "scope");
      boolean query = scope != null && (scope.equals("SCOPE_QUERY")
          || (scope instanceof Double d && d == 1));
      Object dimension = field(in, "dimension", "dimension");
      Object def = field(in, "default_value", "defaultValue");
      addInput(new Input(name, query, dimension == null ? 0 : ((Double) dimension).intValue(),
          def != null, def == null ? Float.NaN : toFloat(def)));
    }
    if (set.get("models") != null && !list(set.get("models")).isEmpty()) {
      throw new IllegalArgumentException("models are not part of contract v1");
    }
    List<Object> features = list(set.get("features"));
    for (Object o : features) {
      String name = (String) map(o).get("name");
      featureIndex.put(name, featureNames.size());
      featureNames.add(name);
    }
    roots = new Node[features.size()];
    for (int k = 0; k < roots.length; ++k) roots[k] = build(map(map(features.get(k)).get("expression")));
  }

  /** Reads a set from its proto3 JSON form (what {@code calcjit print --format json} writes). */
  @SuppressWarnings("unchecked")
  static JavaInterpreter fromJson(String json) {
    return new JavaInterpreter((Map<String, Object>) MiniJson.parse(json));
  }

  /** The definitions, in order: the columns {@link #evaluate} returns. */
  List<String> outputs() {
    return featureNames;
  }

  /** Every input, declared then implicit (AsmCompiler compiles the same tree). */
  List<Input> inputs() {
    return inputs;
  }

  /** Definition k's expression tree (AsmCompiler compiles the same tree). */
  Node root(int k) {
    return roots[k];
  }

  /** Binds an input: n floats (item scalar), 1 (query scalar), n*d or d (vectors). */
  void bind(String name, float[] data) {
    Input input = inputByName.get(name);
    if (input == null) throw new IllegalArgumentException("unknown input " + name);
    input.data = data;
  }

  /** Evaluates every definition for a batch of n items: one new column per definition. */
  float[][] evaluate(int items) {
    for (Input input : inputs) {
      long need = (long) (input.query ? 1 : items) * Math.max(1, input.dimension);
      if (input.data == null ? !input.hasDefault : input.data.length < need) {
        throw new IllegalArgumentException("input " + input.name + ": needs " + need + " floats");
      }
    }
    n = items;
    memo = new float[roots.length][];
    for (int k = 0; k < roots.length; ++k) feature(k);
    float[][] out = memo;
    memo = null;
    return out;
  }

  private float[] feature(int k) {
    if (memo[k] == null) memo[k] = roots[k].eval(this);
    return memo[k];
  }

  // ---------------------------------------------------------------------------
  // Building the tree

  private void addInput(Input input) {
    inputs.add(input);
    inputByName.put(input.name, input);
  }

  private Node build(Map<String, Object> e) {
    if (e.size() != 1) throw new IllegalArgumentException("an expression needs one kind: " + e);
    Map.Entry<String, Object> kind = e.entrySet().iterator().next();
    Object v = kind.getValue();
    switch (kind.getKey()) {
      case "constant":
        return new Constant(toFloat(v));
      case "feature": {
        String name = (String) v;
        Integer k = featureIndex.get(name);
        if (k != null) return new FeatureRef(k);
        Input input = inputByName.get(name);
        if (input == null) {
          input = new Input(name, false, 0, false, Float.NaN);  // implicit item scalar
          addInput(input);
        }
        if (input.dimension != 0) throw new IllegalArgumentException(name + " is a vector");
        return new InputRef(input);
      }
      case "unary": {
        Map<String, Object> m = map(v);
        return new Unary(op(m, UNARY), build(map(m.get("operand"))));
      }
      case "binary": {
        Map<String, Object> m = map(v);
        return new Binary(op(m, BINARY), build(map(m.get("lhs"))), build(map(m.get("rhs"))));
      }
      case "conditional": {
        Map<String, Object> m = map(v);
        return new Conditional(build(map(m.get("condition"))), build(map(m.get("then"))),
            build(map(m.get("otherwise"))));
      }
      case "nary": {
        Map<String, Object> m = map(v);
        List<Object> operands = list(m.get("operands"));
        Node[] children = new Node[operands.size()];
        for (int k = 0; k < children.length; ++k) children[k] = build(map(operands.get(k)));
        List<Object> w = list(m.get("weights"));
        float[] weights = new float[w.size()];
        for (int k = 0; k < weights.length; ++k) weights[k] = toFloat(w.get(k));
        int op = op(m, NARY);
        if (children.length == 0 || (op == 6 ? weights.length != children.length
            : weights.length != 0)) {
          throw new IllegalArgumentException("bad nary operands or weights: " + m);
        }
        return new Nary(op, children, weights);
      }
      case "vector": {
        Map<String, Object> m = map(v);
        int op = op(m, VECTOR);
        Input lhs = inputByName.get((String) m.get("lhs"));
        Input rhs = op == 4 ? lhs : inputByName.get((String) m.get("rhs"));
        if (lhs == null || rhs == null || lhs.dimension == 0 || rhs.dimension != lhs.dimension) {
          throw new IllegalArgumentException("bad vector operands: " + m);
        }
        return new VectorOp(op, lhs, rhs);
      }
      case "aggregate": {
        Map<String, Object> m = map(v);
        return new Aggregate(op(m, AGGREGATE), build(map(m.get("operand"))));
      }
      default:
        throw new IllegalArgumentException("unsupported expression kind " + kind.getKey());
    }
  }

  private static int op(Map<String, Object> m, String[] names) {
    Object o = m.get("operator");
    int op = -1;
    if (o instanceof Double d) {
      op = d.intValue();
    } else if (o instanceof String s && s.startsWith("OPERATOR_")) {
      op = Arrays.asList(names).indexOf(s.substring(9));
    }
    if (op <= 0 || op >= names.length) throw new IllegalArgumentException("bad operator " + o);
    return op;
  }

  private static Object field(Map<String, Object> m, String name, String camel) {
    Object o = m.get(name);
    return o != null ? o : m.get(camel);
  }

  /** A float field: a number (to double, then to float, as protobuf does) or a string. */
  private static float toFloat(Object o) {
    if (o instanceof Double d) return (float) (double) d;
    String s = (String) o;
    switch (s) {
      case "NaN":
        return Float.NaN;
      case "Infinity":
        return Float.POSITIVE_INFINITY;
      case "-Infinity":
        return Float.NEGATIVE_INFINITY;
      default:
        return (float) Double.parseDouble(s);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    if (!(o instanceof Map)) throw new IllegalArgumentException("expected an object: " + o);
    return (Map<String, Object>) o;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object o) {
    return o == null ? List.of() : (List<Object>) o;
  }

  // ---------------------------------------------------------------------------
  // The nodes

  abstract static class Node {
    abstract float[] eval(JavaInterpreter in);
  }

  static boolean truthy(float x) {
    return x != 0 && x == x;
  }

  static float[] filled(int n, float value) {
    float[] out = new float[n];
    Arrays.fill(out, value);
    return out;
  }

  static final class Constant extends Node {
    final float value;

    Constant(float value) {
      this.value = value;
    }

    @Override
    float[] eval(JavaInterpreter in) {
      return filled(in.n, value);
    }
  }

  static final class FeatureRef extends Node {
    final int index;

    FeatureRef(int index) {
      this.index = index;
    }

    @Override
    float[] eval(JavaInterpreter in) {
      return in.feature(index);
    }
  }

  static final class InputRef extends Node {
    final Input input;

    InputRef(Input input) {
      this.input = input;
    }

    @Override
    float[] eval(JavaInterpreter in) {
      if (input.data == null) return filled(in.n, input.defaultValue);
      if (input.query) return filled(in.n, input.data[0]);
      return input.data;  // the caller's column, read only
    }
  }

  static final class Unary extends Node {
    final int op;
    final Node operand;

    Unary(int op, Node operand) {
      this.op = op;
      this.operand = operand;
    }

    @Override
    float[] eval(JavaInterpreter in) {
      float[] x = operand.eval(in);
      int n = in.n;
      float[] out = new float[n];
      switch (op) {
        case 1 -> { for (int i = 0; i < n; ++i) out[i] = -x[i]; }
        case 2 -> { for (int i = 0; i < n; ++i) out[i] = Math.abs(x[i]); }
        case 3 -> { for (int i = 0; i < n; ++i) out[i] = (float) Math.exp(x[i]); }
        case 4 -> { for (int i = 0; i < n; ++i) out[i] = (float) Math.log(x[i]); }
        case 5 -> { for (int i = 0; i < n; ++i) out[i] = (float) Math.log1p(x[i]); }
        case 6 -> { for (int i = 0; i < n; ++i) out[i] = (float) Math.sqrt(x[i]); }
        case 7 -> {
          for (int i = 0; i < n; ++i) out[i] = (float) (1.0 / (1.0 + Math.exp(-(double) x[i])));
        }
        case 8 -> { for (int i = 0; i < n; ++i) out[i] = (float) Math.tanh(x[i]); }
        case 9 -> { for (int i = 0; i < n; ++i) out[i] = (float) Math.floor(x[i]); }
        case 10 -> { for (int i = 0; i < n; ++i) out[i] = (float) Math.ceil(x[i]); }
        case 11 -> {  // half away from zero, as C roundf (exact in double)
          for (int i = 0; i < n; ++i) {
            out[i] = (float) Math.copySign(Math.floor(Math.abs((double) x[i]) + 0.5), x[i]);
          }
        }
        case 12 -> {
          for (int i = 0; i < n; ++i) out[i] = x[i] > 0 ? 1f : x[i] < 0 ? -1f : x[i];
        }
        case 13 -> { for (int i = 0; i < n; ++i) out[i] = truthy(x[i]) ? 0f : 1f; }
        default -> { for (int i = 0; i < n; ++i) out[i] = x[i] != x[i] ? 1f : 0f; }
      }
      return out;
    }
  }

  /** C99 powf's special cases that java.lang.Math.pow does not share. */
  static float pow(float a, float b) {
    if (a == 1f) return 1f;                                    // pow(1, NaN) = 1
    if (a == -1f && Float.isInfinite(b)) return 1f;            // pow(-1, ±inf) = 1
    return (float) Math.pow(a, b);
  }

  static final class Binary extends Node {
    final int op;
    final Node lhs;
    final Node rhs;

    Binary(int op, Node lhs, Node rhs) {
      this.op = op;
      this.lhs = lhs;
      this.rhs = rhs;
    }

    @Override
    float[] eval(JavaInterpreter in) {
      float[] a = lhs.eval(in);
      float[] b = rhs.eval(in);
      int n = in.n;
      float[] out = new float[n];
      switch (op) {
        case 1 -> { for (int i = 0; i < n; ++i) out[i] = a[i] + b[i]; }
        case 2 -> { for (int i = 0; i < n; ++i) out[i] = a[i] - b[i]; }
        case 3 -> { for (int i = 0; i < n; ++i) out[i] = a[i] * b[i]; }
        case 4 -> { for (int i = 0; i < n; ++i) out[i] = a[i] / b[i]; }
        case 5 -> { for (int i = 0; i < n; ++i) out[i] = pow(a[i], b[i]); }
        case 6 -> { for (int i = 0; i < n; ++i) out[i] = Math.min(a[i], b[i]); }
        case 7 -> { for (int i = 0; i < n; ++i) out[i] = Math.max(a[i], b[i]); }
        case 8 -> { for (int i = 0; i < n; ++i) out[i] = a[i] == b[i] ? 1f : 0f; }
        case 9 -> { for (int i = 0; i < n; ++i) out[i] = a[i] != b[i] ? 1f : 0f; }
        case 10 -> { for (int i = 0; i < n; ++i) out[i] = a[i] < b[i] ? 1f : 0f; }
        case 11 -> { for (int i = 0; i < n; ++i) out[i] = a[i] <= b[i] ? 1f : 0f; }
        case 12 -> { for (int i = 0; i < n; ++i) out[i] = a[i] > b[i] ? 1f : 0f; }
        case 13 -> { for (int i = 0; i < n; ++i) out[i] = a[i] >= b[i] ? 1f : 0f; }
        case 14 -> {
          for (int i = 0; i < n; ++i) out[i] = truthy(a[i]) && truthy(b[i]) ? 1f : 0f;
        }
        default -> {
          for (int i = 0; i < n; ++i) out[i] = truthy(a[i]) || truthy(b[i]) ? 1f : 0f;
        }
      }
      return out;
    }
  }

  static final class Conditional extends Node {
    final Node condition;
    final Node then;
    final Node otherwise;

    Conditional(Node condition, Node then, Node otherwise) {
      this.condition = condition;
      this.then = then;
      this.otherwise = otherwise;
    }

    @Override
    float[] eval(JavaInterpreter in) {
      float[] c = condition.eval(in);
      float[] a = then.eval(in);        // both branches, for every item
      float[] b = otherwise.eval(in);
      float[] out = new float[in.n];
      for (int i = 0; i < out.length; ++i) out[i] = truthy(c[i]) ? a[i] : b[i];
      return out;
    }
  }

  static final class Nary extends Node {
    final int op;
    final Node[] operands;
    final float[] weights;

    Nary(int op, Node[] operands, float[] weights) {
      this.op = op;
      this.operands = operands;
      this.weights = weights;
    }

    @Override
    float[] eval(JavaInterpreter in) {
      int n = in.n;
      float[] out = new float[n];
      float[] x0 = operands[0].eval(in);
      if (op == 6) {
        float w = weights[0];
        for (int i = 0; i < n; ++i) out[i] = w * x0[i];
      } else {
        System.arraycopy(x0, 0, out, 0, n);
      }
      for (int k = 1; k < operands.length; ++k) {
        float[] x = operands[k].eval(in);
        switch (op) {
          case 1, 5 -> { for (int i = 0; i < n; ++i) out[i] = out[i] + x[i]; }
          case 2 -> { for (int i = 0; i < n; ++i) out[i] = out[i] * x[i]; }
          case 3 -> { for (int i = 0; i < n; ++i) out[i] = Math.min(out[i], x[i]); }
          case 4 -> { for (int i = 0; i < n; ++i) out[i] = Math.max(out[i], x[i]); }
          default -> {
            float w = weights[k];
            for (int i = 0; i < n; ++i) out[i] = out[i] + w * x[i];
          }
        }
      }
      if (op == 5) {
        float count = operands.length;
        for (int i = 0; i < n; ++i) out[i] = out[i] / count;
      }
      return out;
    }
  }

  static final class VectorOp extends Node {
    final int op;
    final Input lhs;
    final Input rhs;

    VectorOp(int op, Input lhs, Input rhs) {
      this.op = op;
      this.lhs = lhs;
      this.rhs = rhs;
    }

    /** The contract's DOT: eight partial sums by k mod 8, then a fixed tree. */
    static float dot(float[] a, int aAt, float[] b, int bAt, int d, boolean difference) {
      float s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
      for (int k = 0; k < d; ++k) {
        float t;
        if (difference) {
          float u = a[aAt + k] - b[bAt + k];
          t = u * u;
        } else {
          t = a[aAt + k] * b[bAt + k];
        }
        switch (k & 7) {
          case 0 -> s0 += t;
          case 1 -> s1 += t;
          case 2 -> s2 += t;
          case 3 -> s3 += t;
          case 4 -> s4 += t;
          case 5 -> s5 += t;
          case 6 -> s6 += t;
          default -> s7 += t;
        }
      }
      return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
    }

    static float sqrt(float x) {
      return (float) Math.sqrt(x);
    }

    @Override
    float[] eval(JavaInterpreter in) {
      int n = in.n;
      int d = lhs.dimension;
      float[] a = lhs.data;
      float[] b = rhs.data;
      float[] out = new float[n];
      for (int i = 0; i < n; ++i) {
        int aAt = lhs.query ? 0 : i * d;
        int bAt = rhs.query ? 0 : i * d;
        switch (op) {
          case 1 -> out[i] = dot(a, aAt, b, bAt, d, false);
          case 2 -> {
            float denominator = sqrt(dot(a, aAt, a, aAt, d, false))
                * sqrt(dot(b, bAt, b, bAt, d, false));
            out[i] = denominator == 0 ? 0f : dot(a, aAt, b, bAt, d, false) / denominator;
          }
          case 3 -> out[i] = sqrt(dot(a, aAt, b, bAt, d, true));
          default -> out[i] = sqrt(dot(a, aAt, a, aAt, d, false));
        }
      }
      return out;
    }
  }

  static final class Aggregate extends Node {
    final int op;
    final Node operand;

    Aggregate(int op, Node operand) {
      this.op = op;
      this.operand = operand;
    }

    /** MIN (max == false) or MAX folded over the non-NaN items; NaN if none. */
    static float extreme(float[] x, boolean max) {
      float m = Float.NaN;
      for (float v : x) {
        if (v != v) continue;
        m = m != m ? v : max ? Math.max(m, v) : Math.min(m, v);
      }
      return m;
    }

    /** {sum, count}: the float64 striped sum of the non-NaN items (of x - center if given). */
    static double[] stripedSum(float[] x, double center, boolean squares) {
      double[] s = new double[8];
      int count = 0;
      for (int i = 0; i < x.length; ++i) {
        if (x[i] != x[i]) continue;
        double v = squares ? (x[i] - center) * (x[i] - center) : x[i];
        s[i & 7] += v;
        ++count;
      }
      return new double[] {((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])),
          count};
    }

    static double mean(float[] x) {
      double[] s = stripedSum(x, 0, false);
      return s[1] == 0 ? Double.NaN : s[0] / s[1];
    }

    static double std(float[] x, double mean) {
      double[] s = stripedSum(x, mean, true);
      return s[1] == 0 ? Double.NaN : Math.sqrt(s[0] / s[1]);
    }

    @Override
    float[] eval(JavaInterpreter in) {
      float[] x = operand.eval(in);
      int n = in.n;
      switch (op) {
        case 1:
          return filled(n, extreme(x, false));
        case 2:
          return filled(n, extreme(x, true));
        case 3:
          return filled(n, (float) stripedSum(x, 0, false)[0]);
        case 4:
          return filled(n, (float) mean(x));
        case 5:
          return filled(n, (float) std(x, mean(x)));
        case 6: {
          int count = 0;
          for (float v : x) if (truthy(v)) ++count;
          return filled(n, count);
        }
        case 7: {  // 1 + the number of non-NaN items greater; -0 ties +0
          float[] sorted = new float[n];
          int m = 0;
          for (float v : x) if (v == v) sorted[m++] = v + 0f;  // -0 + 0 = +0
          Arrays.sort(sorted, 0, m);
          float[] out = new float[n];
          for (int i = 0; i < n; ++i) {
            float v = x[i];
            if (v != v) {
              out[i] = Float.NaN;
              continue;
            }
            v = v + 0f;
            int lo = 0;
            int hi = m;  // the first index whose value is greater than v
            while (lo < hi) {
              int mid = (lo + hi) >>> 1;
              if (sorted[mid] <= v) lo = mid + 1; else hi = mid;
            }
            out[i] = 1 + (m - lo);
          }
          return out;
        }
        case 8: {
          float max = extreme(x, true);
          float[] e = new float[n];
          double[] s = new double[8];
          for (int i = 0; i < n; ++i) {
            e[i] = (float) Math.exp(x[i] - max);
            if (x[i] == x[i]) s[i & 7] += e[i];
          }
          double sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
          float[] out = new float[n];
          for (int i = 0; i < n; ++i) out[i] = x[i] != x[i] ? Float.NaN : (float) (e[i] / sum);
          return out;
        }
        case 9: {
          float min = extreme(x, false);
          float max = extreme(x, true);
          float[] out = new float[n];
          for (int i = 0; i < n; ++i) {
            out[i] = x[i] != x[i] ? Float.NaN : max == min ? 0f : (x[i] - min) / (max - min);
          }
          return out;
        }
        default: {
          double mean = mean(x);
          float meanF = (float) mean;
          float stdF = (float) std(x, mean);
          float[] out = new float[n];
          for (int i = 0; i < n; ++i) {
            out[i] = x[i] != x[i] ? Float.NaN : stdF == 0 ? 0f : (x[i] - meanF) / stdF;
          }
          return out;
        }
      }
    }
  }
}
