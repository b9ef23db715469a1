package io.calcjit.bench;

import io.calcjit.Backend;
import io.calcjit.Engine;
import io.calcjit.EngineOptions;
import io.calcjit.FeatureSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Checks {@link AsmCompiler} against calcjit's reference backend, so that the
 * benchmark's yardstick cannot rot (CTest java_asm_compiler): the seed
 * formulas (f_qux, the ten-input sum) and every exact operator it compiles
 * must give calcjit's bits, over data full of NaN, ±0, ±inf, subnormals and
 * halfway cases; the transcendentals and POW (java.lang.Math in double, not
 * correctly rounded) at most 1 ulp from calcjit's; bench/ranking_like_30.calc
 * on the benchmark's data within {@link #RANKING_TOLERANCE_ULPS}; the
 * operators the per-item design lacks are refused with an exception. The
 * sets' JSON form comes from {@code calcjit print --format json}.
 *
 * <p>With {@code --exhaustive}, it runs instead every one of the 2^32 floats
 * through the five correctly rounded functions in both (minutes, not a test)
 * and prints, per function, how many results differ and by how many ulps.
 *
 * <pre>
 *   java -cp build/java/calcjit.jar:build/java/calcjit-bench.jar \
 *       io.calcjit.bench.AsmCompilerCheck --cli build/cli/calcjit --source . [--exhaustive]
 * </pre>
 */
public final class AsmCompilerCheck {
  /**
   * The largest distance allowed on the 30-feature set: one transcendental a
   * ulp off moves a feature built on it by a few ulps more where later
   * arithmetic cancels (`ctr_logit` subtracts two logarithms); measured: see
   * docs/PERFORMANCE.md, run JA.
   */
  static final long RANKING_TOLERANCE_ULPS = 64;

  private static final float[] SPECIALS = {0f, -0f, 1f, -1f, 0.5f, -0.5f, 1.5f, -2.5f, 2.5f,
      0.49999997f, 8388609f, -8388609f, 1e-30f, Float.MIN_VALUE, -Float.MIN_VALUE,
      Float.MIN_NORMAL, Float.MAX_VALUE, -Float.MAX_VALUE, Float.NaN, Float.POSITIVE_INFINITY,
      Float.NEGATIVE_INFINITY, 3f, 100f, -100f};

  private static Path cli;
  private static Path scratch;

  private AsmCompilerCheck() {}

  public static void main(String[] args) throws Exception {
    Path source = Path.of(".");
    boolean exhaustive = false;
    for (int k = 0; k < args.length; ++k) {
      switch (args[k]) {
        case "--cli" -> cli = Path.of(args[++k]);
        case "--source" -> source = Path.of(args[++k]);
        case "--exhaustive" -> exhaustive = true;
        default -> throw new IllegalArgumentException("unknown argument " + args[k]);
      }
    }
    if (cli == null) {
      throw new IllegalArgumentException(
          "usage: AsmCompilerCheck --cli CALCJIT [--source DIR] [--exhaustive]");
    }
    scratch = Files.createTempDirectory("calcjit-asm-check");
    try {
      if (exhaustive) {
        exhaustive();
        return;
      }
      run(source);
    } finally {
      try (java.util.stream.Stream<Path> files = Files.list(scratch)) {
        for (Path file : (Iterable<Path>) files::iterator) Files.delete(file);
      }
      Files.delete(scratch);
    }
    System.out.println("asm compiler check: ok");
  }

  private static void run(Path source) throws Exception {
    int items = 1000;
    exact("f_qux", "input f_foo;\ninput f_bar;\ninput f_baz;\nf_qux = f_foo / (f_bar + f_baz);\n",
        items);
    StringBuilder sum = new StringBuilder();
    for (int k = 0; k < 10; ++k) sum.append("input x").append(k).append(";\n");
    sum.append("s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9;\n");
    exact("sum10", sum.toString(), items);
    exact("exact operators", String.join("\n",
        "input a;", "input b;", "input c;", "input q: query = 2.5;", "input d = -1.5;",
        "f_add = a + b;", "f_sub = a - b;", "f_mul = a * b;", "f_div = a / b;",
        "f_min = min(a, b);", "f_max = max(a, b);",
        "f_eq = a == b;", "f_ne = a != b;", "f_lt = a < b;", "f_le = a <= b;", "f_gt = a > b;",
        "f_ge = a >= b;", "f_and = a && b;", "f_or = a || b;", "f_not = !a;",
        "f_nested = !(a < b || (c && !is_nan(b)));", "f_bool_value = (a > b) + (a || c) * 2;",
        "f_if = if(a, b, c);", "f_if_condition = if(a >= b && c != 0, a - b, c * 2);",
        "f_if_or = if(is_nan(a) || b <= c, -a, if(!c, b, 7));",
        "f_neg = -a;", "f_abs = abs(a);", "f_sign = sign(a);", "f_is_nan = is_nan(a);",
        "f_floor = floor(a);", "f_ceil = ceil(a);", "f_round = round(a);", "f_sqrt = sqrt(a);",
        "f_sum = sum(a, b, c, q);", "f_product = product(a, b, c);", "f_nmin = min(a, b, c);",
        "f_nmax = max(a, b, c);", "f_mean = mean(a, b, c);",
        "f_weighted = weighted_sum([0.5, -2, 3], a, b, c);", "f_defaults = a * q + d;",
        "f_constants = if(a, nan, -0) + inf * b;", "f_implicit = a + undeclared;",
        "f_forward = f_add * f_sub - f_later;", "f_later = f_mul + 1;", ""), items);
    transcendentals(items);
    ranking(source, 2000);
    refused("input p;\nr = rank(p);\n", "batch aggregate RANK");
    refused("input p;\nz = p / batch_sum(p);\n", "batch aggregate SUM");
    refused("input u: item[4];\ninput v: item[4];\nd = dot(u, v);\n", "vector operator DOT");
  }

  /** Every output bit-equal to calcjit's reference backend, at two batch sizes. */
  private static void exact(String name, String text, int items) throws Exception {
    for (int n : new int[] {items, 7}) {
      Ulps ulps = compare(text, n);
      if (ulps.bitEqual() != ulps.values()) {
        throw new AssertionError(name + " (" + n + " items): not bit-identical to calcjit: "
            + ulps.summary() + "; outputs: " + ulps.differingOutputs());
      }
      if (n == items) System.out.println(name + ": " + ulps.summary());
    }
  }

  private static void transcendentals(int items) throws Exception {
    String text = "input a;\ninput b;\nf_exp = exp(a);\nf_log = log(a);\nf_log1p = log1p(a);\n"
        + "f_sigmoid = sigmoid(a);\nf_tanh = tanh(a);\nf_pow = pow(a, b);\n"
        + "f_small_pow = pow(abs(a), 0.5) + pow(2, floor(b));\n";
    Ulps ulps = compare(text, items);
    if (ulps.maxUlps() > 1) {
      throw new AssertionError("transcendentals: more than 1 ulp from calcjit: "
          + ulps.summary() + "; outputs: " + ulps.differingOutputs());
    }
    System.out.println("transcendentals and pow (java.lang.Math in double): " + ulps.summary());
  }

  private static void ranking(Path source, int items) throws Exception {
    Path file = source.resolve("bench/ranking_like_30.calc");
    Ulps ulps = compare(Files.readString(file), JavaBench.ranking30Inputs(items), items);
    if (ulps.maxUlps() > RANKING_TOLERANCE_ULPS) {
      throw new AssertionError("ranking_like_30: more than " + RANKING_TOLERANCE_ULPS
          + " ulps from calcjit: " + ulps.summary() + "; outputs: " + ulps.differingOutputs());
    }
    System.out.println("ranking_like_30 (" + items + " items): " + ulps.summary());
  }

  private static void refused(String text, String reason) throws Exception {
    JavaInterpreter tree = JavaInterpreter.fromJson(json(text));
    try {
      AsmCompiler.compile(tree);
    } catch (IllegalArgumentException e) {
      if (!e.getMessage().contains(reason)) {
        throw new AssertionError("refused for another reason: " + e.getMessage(), e);
      }
      System.out.println("refused, as it should be: " + e.getMessage());
      return;
    }
    throw new AssertionError("compiled a set the per-item design cannot evaluate: " + text);
  }

  /**
   * Every float through EXP, LOG, LOG1P, SIGMOID and TANH, the ASM design
   * (java.lang.Math in double, rounded to float) against calcjit's JIT
   * (correctly rounded, as the exhaustive ulpcheck proves), 2^16 floats at a time.
   */
  private static void exhaustive() throws Exception {
    String text = "input a;\nf_exp = exp(a);\nf_log = log(a);\nf_log1p = log1p(a);\n"
        + "f_sigmoid = sigmoid(a);\nf_tanh = tanh(a);\n";
    AsmCompiler.CompiledSet asm = AsmCompiler.compile(JavaInterpreter.fromJson(json(text)));
    List<String> names = asm.outputs();
    int chunk = 1 << 16;
    float[] a = new float[chunk];
    asm.bind("a", a);
    long[] differing = new long[names.size()];
    long[] maxUlps = new long[names.size()];
    int[] example = new int[names.size()];
    try (FeatureSet set = FeatureSet.fromText(text);
        Engine engine = Engine.create(set, EngineOptions.of(Backend.JIT));
        io.calcjit.Session session = engine.newSession()) {
      session.bindInput("a", a);
      float[][] expected = new float[names.size()][chunk];
      for (int k = 0; k < names.size(); ++k) session.bindOutput(names.get(k), expected[k]);
      for (long start = 0; start < (1L << 32); start += chunk) {
        for (int i = 0; i < chunk; ++i) a[i] = Float.intBitsToFloat((int) (start + i));
        float[][] actual = asm.evaluate(chunk);
        session.evaluate(chunk);
        for (int k = 0; k < names.size(); ++k) {
          for (int i = 0; i < chunk; ++i) {
            if (Ulps.bitEqual(actual[k][i], expected[k][i])) continue;
            long d = Math.max(1, Ulps.distance(actual[k][i], expected[k][i]));
            if (differing[k]++ == 0 || d > maxUlps[k]) example[k] = (int) (start + i);
            maxUlps[k] = Math.max(maxUlps[k], d);
          }
        }
      }
      for (int k = 0; k < names.size(); ++k) {
        float x = Float.intBitsToFloat(example[k]);
        String where = differing[k] == 0 ? "" : String.format(
            "; e.g. x = %s (0x%08x): ASM %s, calcjit %s", Float.toString(x), example[k],
            Float.toString(evaluateOne(asm, a, x, k)),
            Float.toString(evaluateOne(session, a, x, expected[k])));
        System.out.printf("%s: %d of 2^32 floats differ from calcjit's correctly rounded"
            + " result, max %d ulp%s%n", names.get(k), differing[k], maxUlps[k], where);
      }
    }
  }

  private static float evaluateOne(AsmCompiler.CompiledSet asm, float[] a, float x, int k) {
    a[0] = x;
    return asm.evaluate(1)[k][0];
  }

  private static float evaluateOne(io.calcjit.Session session, float[] a, float x, float[] out) {
    a[0] = x;
    session.evaluate(1);
    return out[0];
  }

  // ---------------------------------------------------------------------------

  /** The set on generated data (specials mixed in), ASM against calcjit's reference. */
  private static Ulps compare(String text, int items) throws Exception {
    SplittableRandom random = new SplittableRandom(text.hashCode());
    Map<String, float[]> inputs = new LinkedHashMap<>();
    try (FeatureSet set = FeatureSet.fromText(text)) {
      for (io.calcjit.InputInfo input : set.schema().inputs()) {
        if (input.hasDefault()) continue;  // left unbound: the default must apply
        float[] column = new float[input.scope() == io.calcjit.Scope.QUERY ? 1 : items];
        for (int i = 0; i < column.length; ++i) column[i] = sample(random);
        inputs.put(input.name(), column);
      }
    }
    return compare(text, inputs, items);
  }

  private static Ulps compare(String text, Map<String, float[]> inputs, int items)
      throws Exception {
    AsmCompiler.CompiledSet compiled = AsmCompiler.compile(JavaInterpreter.fromJson(json(text)));
    for (Map.Entry<String, float[]> e : inputs.entrySet()) compiled.bind(e.getKey(), e.getValue());
    float[][] actual = compiled.evaluate(items);
    List<String> names = compiled.outputs();
    float[][] expected = new float[names.size()][];
    try (FeatureSet set = FeatureSet.fromText(text);
        Engine engine = Engine.create(set, EngineOptions.of(Backend.REFERENCE));
        io.calcjit.Session session = engine.newSession()) {
      if (!set.schema().outputs().equals(names)) {
        throw new AssertionError("outputs differ: " + names + " against " + set.schema().outputs());
      }
      for (Map.Entry<String, float[]> e : inputs.entrySet()) {
        session.bindInput(e.getKey(), e.getValue());
      }
      session.evaluate(items);
      for (int k = 0; k < names.size(); ++k) expected[k] = session.output(names.get(k));
    }
    Ulps ulps = new Ulps();
    ulps.add(names, actual, expected, items);
    return ulps;
  }

  /** A special value a third of the time; else uniform in (-10, 10) or any float's bits. */
  private static float sample(SplittableRandom random) {
    int kind = random.nextInt(10);
    if (kind < 3) return SPECIALS[random.nextInt(SPECIALS.length)];
    if (kind < 4) return Float.intBitsToFloat(random.nextInt());
    return (float) (random.nextDouble() * 20 - 10);
  }

  private static String json(String text) throws Exception {
    Path file = Files.createTempFile(scratch, "set", ".calc");
    Files.writeString(file, text);
    return JavaBench.jsonForm(cli, file, scratch);
  }
}
