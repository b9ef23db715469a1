package io.calcjit.bench;

import io.calcjit.Backend;
import io.calcjit.Engine;
import io.calcjit.EngineOptions;
import io.calcjit.FeatureSet;
import io.calcjit.InputInfo;
import io.calcjit.Scope;
import io.calcjit.Session;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * calcjit from Java against hand-written Java loops, a pure-Java recursive
 * interpreter of the same formulas (the classic design calcjit replaces), and
 * the same evaluation from C++ through the C API (calcjit_c_api_bench, run as
 * a child process on the same data with the same timing method).
 *
 * <p>Timing: each case is warmed up for 0.3 s (so that HotSpot has compiled
 * the Java loops and the interpreter), a batch is sized to about 10 ms, and
 * the median of 11 batches is reported: the thread's CPU time
 * (ThreadMXBean.getCurrentThreadCpuTime; the machine is shared, and CPU time
 * does not count the time spent waiting for a core) and the wall time
 * (System.nanoTime).
 * Bytes allocated on the Java heap per evaluation come from
 * com.sun.management.ThreadMXBean.getThreadAllocatedBytes over one more batch.
 * Every case's result is checked, bit for bit, against the hand-written loop
 * (or, for the example set, between the variants and the C++ run).
 *
 * <p>The example set also runs in {@link JavaInterpreter}, a pure-Java
 * recursive interpreter of the whole language (a new float[n] per node per
 * evaluation), which reads the set's JSON form: {@code --set-json FILE}, or
 * what {@code calcjit print --format json} writes ({@code --cli PATH}, by
 * default {@code build/cli/calcjit} under {@code --source}; the case is
 * skipped, with a note, when neither exists). Its every output is compared
 * with calcjit's reference backend (the share within 1e-4 relative error is
 * printed) and it is timed after an 8 s warm-up (HotSpot needs 3-4 s to
 * reach its steady speed on it).
 *
 * <p>The ASM-compiled JVM design ({@link AsmCompiler}: each set's formulas
 * compiled to one JVM class, a loop over the items of straight-line features,
 * the system calcjit replaces) runs on f_qux, the sum and the 30-feature
 * ranking-like set bench/ranking_like_30.calc ("ranking30", per-item
 * formulas only, its data generated with a fixed seed), after a 2 s warm-up.
 * It reads the sets' JSON form, so it needs the CLI too (skipped with a note
 * without one). Its ranking30 results are compared with calcjit's reference
 * (ulps apart, printed under the table; bit-equal for f_qux and the sum), and
 * the ratios of every calcjit variant to it are printed, with the goal.
 *
 * <pre>
 *   java -cp build/java/calcjit.jar:build/java/calcjit-bench.jar io.calcjit.bench.JavaBench \
 *       --source . --c-bench build/java/calcjit_c_api_bench --cli build/cli/calcjit \
 *       [--items 2000] [--set-json ranking.json]
 * </pre>
 */
public final class JavaBench {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private static int items = 2000;
  private static Path source = Path.of(".");
  private static Path cBench;
  private static Path cli;
  private static Path setJson;
  private static Path scratch;
  private static final List<String> rows = new ArrayList<>();
  private static final List<String> notes = new ArrayList<>();
  /** CPU ns per evaluation by "case / variant", for the ratios printed under the table. */
  private static final Map<String, Double> measured = new LinkedHashMap<>();
  private static final String ASM_VARIANT = "ASM-compiled JVM design (bytecode per set)";
  /** The ASM-compiled code warms up longer: HotSpot compiles one large method per set. */
  private static final long ASM_WARM_UP_NS = 2_000_000_000L;

  private JavaBench() {}

  public static void main(String[] args) throws Exception {
    for (int k = 0; k < args.length; k += 2) {
      switch (args[k]) {
        case "--items" -> items = Integer.parseInt(args[k + 1]);
        case "--source" -> source = Path.of(args[k + 1]);
        case "--c-bench" -> cBench = Path.of(args[k + 1]);
        case "--cli" -> cli = Path.of(args[k + 1]);
        case "--set-json" -> setJson = Path.of(args[k + 1]);
        default -> throw new IllegalArgumentException("unknown argument " + args[k]);
      }
    }
    scratch = Files.createTempDirectory("calcjit-bench");
    System.out.printf("calcjit %s, %s %s, %d items%n", Engine.libraryVersion(),
        System.getProperty("java.vm.name"), System.getProperty("java.version"), items);
    System.out.println();
    System.out.println("| case | variant | CPU ns per evaluation | wall ns | CPU ns per item |"
        + " vs Java loop | Java heap bytes per evaluation |");
    System.out.println("|---|---|---|---|---|---|---|");

    String qux = "input f_foo;\ninput f_bar;\ninput f_baz;\nf_qux = f_foo / (f_bar + f_baz);\n";
    Map<String, float[]> quxInputs = new LinkedHashMap<>();
    quxInputs.put("f_foo", uniform(items, 1, 1, 100));
    quxInputs.put("f_bar", uniform(items, 2, 1, 10));
    quxInputs.put("f_baz", uniform(items, 3, 20, 30));
    formulaCase("f_qux", qux, quxInputs, (in, out) -> {
      float[] foo = in[0];
      float[] bar = in[1];
      float[] baz = in[2];
      for (int i = 0; i < out.length; ++i) out[i] = foo[i] / (bar[i] + baz[i]);
    });

    StringBuilder sum = new StringBuilder();
    Map<String, float[]> sumInputs = new LinkedHashMap<>();
    for (int k = 0; k < 10; ++k) {
      sum.append("input x").append(k).append(";\n");
      sumInputs.put("x" + k, uniform(items, 10 + k, 0, 1));
    }
    sum.append("s = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7 + x8 + x9;\n");
    formulaCase("sum10", sum.toString(), sumInputs, (in, out) -> {
      float[] x0 = in[0], x1 = in[1], x2 = in[2], x3 = in[3], x4 = in[4];
      float[] x5 = in[5], x6 = in[6], x7 = in[7], x8 = in[8], x9 = in[9];
      for (int i = 0; i < out.length; ++i) {
        out[i] = x0[i] + x1[i] + x2[i] + x3[i] + x4[i] + x5[i] + x6[i] + x7[i] + x8[i] + x9[i];
      }
    });

    ranking30Case();
    transcendentalCases();
    rankingCase();
    callOverhead(qux, quxInputs);
    asmNotes();
    for (String row : rows) System.out.println(row);
    System.out.println();
    for (String note : notes) System.out.println(note);
    try (java.util.stream.Stream<Path> files = Files.list(scratch)) {
      for (Path file : (Iterable<Path>) files::iterator) Files.delete(file);
    }
    Files.delete(scratch);
  }

  // ---------------------------------------------------------------------------
  // Timing

  interface Kernel {
    void compute(float[][] inputs, float[] out);
  }

  /** Medians of CPU time (of the thread) and wall time per evaluation. */
  record Timing(double nsPerEvaluation, double wallNsPerEvaluation, double bytesPerEvaluation) {}

  static Timing time(Runnable evaluation) {
    return time(evaluation, 300_000_000L);
  }

  /** The same, after a warm-up of `warmUpNs` (and at least 10 evaluations). */
  static Timing time(Runnable evaluation, long warmUpNs) {
    long warmUntil = System.nanoTime() + warmUpNs;
    for (int k = 0; k < 10 || System.nanoTime() < warmUntil; ++k) evaluation.run();
    long start = System.nanoTime();
    for (int k = 0; k < 10; ++k) evaluation.run();
    double per = (System.nanoTime() - start) / 10.0;
    int batch = (int) Math.max(1, 10e6 / per);
    double[] samples = new double[11];
    double[] cpu = new double[samples.length];
    for (int r = 0; r < samples.length; ++r) {
      long c0 = THREADS.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      for (int k = 0; k < batch; ++k) evaluation.run();
      samples[r] = (System.nanoTime() - t0) / (double) batch;
      cpu[r] = (THREADS.getCurrentThreadCpuTime() - c0) / (double) batch;
    }
    Arrays.sort(samples);
    Arrays.sort(cpu);
    long id = Thread.currentThread().getId();
    long calibrate0 = THREADS.getThreadAllocatedBytes(id);
    long calibrate1 = THREADS.getThreadAllocatedBytes(id);
    long a0 = THREADS.getThreadAllocatedBytes(id);
    for (int k = 0; k < batch; ++k) evaluation.run();
    long a1 = THREADS.getThreadAllocatedBytes(id);
    double bytes = Math.max(0, (a1 - a0) - (calibrate1 - calibrate0)) / (double) batch;
    return new Timing(cpu[cpu.length / 2], samples[samples.length / 2], bytes);
  }

  static void report(String name, String variant, Timing t, int n, double javaLoopNs) {
    String ratio = javaLoopNs > 0 ? String.format("%.2fx", t.nsPerEvaluation() / javaLoopNs) : "-";
    String bytes = Double.isNaN(t.bytesPerEvaluation()) ? "-"
        : String.format("%.1f", t.bytesPerEvaluation());
    rows.add(String.format("| %s | %s | %,.0f | %,.0f | %.3f | %s | %s |", name, variant,
        t.nsPerEvaluation(), t.wallNsPerEvaluation(), t.nsPerEvaluation() / n, ratio, bytes));
    measured.put(name + " / " + variant, t.nsPerEvaluation());
  }

  // ---------------------------------------------------------------------------
  // f_qux and the ten-input sum: every variant

  static void formulaCase(String name, String text, Map<String, float[]> inputs, Kernel manual)
      throws Exception {
    float[][] columns = inputs.values().toArray(new float[0][]);
    float[] expected = new float[items];
    manual.compute(columns, expected);

    float[] loopOut = new float[items];
    Timing loop = time(() -> manual.compute(columns, loopOut));
    check(name + " Java loop", expected, loopOut);
    report(name, "hand-written Java loop", loop, items, loop.nsPerEvaluation());

    String formula = text.substring(text.lastIndexOf('\n', text.length() - 2) + 1);
    Interpreter.Node root = Interpreter.parse(formula.substring(formula.indexOf('=') + 1),
        new ArrayList<>(inputs.keySet()));
    float[] interpreted = new float[items];
    Timing interpreter = time(() -> Interpreter.evaluate(root, columns, interpreted));
    check(name + " interpreter", expected, interpreted);
    report(name, "pure-Java recursive interpreter", interpreter, items, loop.nsPerEvaluation());

    Path setFile = scratch.resolve(name + ".calc");
    Files.writeString(setFile, text);
    AsmCompiler.CompiledSet asm = asmCompile(name, setFile);
    if (asm != null) {
      for (Map.Entry<String, float[]> e : inputs.entrySet()) asm.bind(e.getKey(), e.getValue());
      Timing t = time(() -> asm.evaluate(items), ASM_WARM_UP_NS);
      check(name + " ASM", expected, asm.evaluate(items)[0]);
      report(name, ASM_VARIANT, t, items, loop.nsPerEvaluation());
    }

    try (FeatureSet set = FeatureSet.fromText(text)) {
      for (Backend backend : List.of(Backend.VM, Backend.JIT)) {
        try (Engine engine = Engine.create(set, EngineOptions.of(backend));
            Session session = engine.newSession()) {
          FloatBuffer out = direct(items);
          for (Map.Entry<String, float[]> e : inputs.entrySet()) {
            session.bindInput(e.getKey(), direct(e.getValue()));
          }
          session.bindOutput(set.schema().outputs().get(0), out);
          Timing t = time(() -> session.evaluate(items));
          check(name + " " + backend + " direct", expected, toArray(out));
          report(name, "calcjit " + backend.name().toLowerCase() + ", direct buffers", t, items,
              loop.nsPerEvaluation());
        }
      }
      try (Engine engine = Engine.create(set, EngineOptions.of(Backend.JIT));
          Session session = engine.newSession()) {
        float[] out = new float[items];
        for (Map.Entry<String, float[]> e : inputs.entrySet()) {
          session.bindInput(e.getKey(), e.getValue());
        }
        session.bindOutput(set.schema().outputs().get(0), out);
        Timing t = time(() -> session.evaluate(items));
        check(name + " JIT float[]", expected, out);
        report(name, "calcjit jit, float[]", t, items, loop.nsPerEvaluation());
      }
    }
    for (String backend : List.of("vm", "jit")) {
      double[] c = runCBench(setFile, backend, inputs, items);
      if (c != null) {
        if ((int) c[1] != Float.floatToRawIntBits(expected[items - 1])) {
          throw new AssertionError(name + " C++ " + backend + ": other bits");
        }
        report(name, "calcjit " + backend + " from C++ (C API)", new Timing(c[0], c[2], Double.NaN),
            items, loop.nsPerEvaluation());
      }
    }
  }

  // ---------------------------------------------------------------------------
  // The example set: items.csv's 120 rows repeated to `items` items, one query

  static void rankingCase() throws Exception {
    Path setPath = source.resolve("examples/ranking/ranking.calc");
    List<List<String>> csv = readCsv(source.resolve("examples/ranking/items.csv"));
    List<String> header = csv.get(0);
    Map<String, Integer> column = new HashMap<>();
    for (int c = 0; c < header.size(); ++c) column.put(header.get(c), c);
    Map<String, float[]> inputs = new LinkedHashMap<>();
    try (FeatureSet set = FeatureSet.readFile(setPath)) {
      for (InputInfo input : set.schema().inputs()) {
        int units = input.scope() == Scope.ITEM ? items : 1;
        float[] values = new float[units * input.width()];
        for (int u = 0; u < units; ++u) {
          List<String> row = csv.get(1 + u % (csv.size() - 1));
          for (int k = 0; k < input.width(); ++k) {
            String name = input.dimension() == 0 ? input.name() : input.name() + "[" + k + "]";
            values[u * input.width() + k] = parseCell(row.get(column.get(name)));
          }
        }
        inputs.put(input.name(), values);
      }
      // The pure-Java interpreter runs last: its 9 MB of garbage per evaluation
      // keeps the JVM's collector threads busy for a while, which would slow
      // the variants timed after it on a 2-core machine.
      Map<String, Double> variantNs = new LinkedHashMap<>();
      float[] reference = null;
      for (Backend backend : List.of(Backend.VM, Backend.JIT)) {
        for (boolean arrays : List.of(false, true)) {
          if (backend == Backend.VM && arrays) continue;
          try (Engine engine = Engine.create(set, EngineOptions.of(backend));
              Session session = engine.newSession()) {
            for (Map.Entry<String, float[]> e : inputs.entrySet()) {
              if (arrays) {
                session.bindInput(e.getKey(), e.getValue());
              } else {
                session.bindInput(e.getKey(), direct(e.getValue()));
              }
            }
            Timing t = time(() -> session.evaluate(items));
            float[] first = session.output(set.schema().outputs().get(0));
            if (reference == null) reference = first;
            check("ranking " + backend, reference, first);
            String variant = "calcjit " + backend.name().toLowerCase()
                + (arrays ? ", float[]" : ", direct buffers");
            report("example set", variant, t, items, 0);
            variantNs.put(variant, t.nsPerEvaluation());
          }
        }
      }
      for (String backend : List.of("vm", "jit")) {
        double[] c = runCBench(setPath, backend, inputs, items);
        if (c != null) {
          if ((int) c[1] != Float.floatToRawIntBits(reference[items - 1])) {
            throw new AssertionError("example set C++ " + backend + ": other bits");
          }
          report("example set", "calcjit " + backend + " from C++ (C API)",
              new Timing(c[0], c[2], Double.NaN), items, 0);
          variantNs.put("calcjit " + backend + " from C++", c[0]);
        }
      }
      double interpreterNs = interpreterCase(set, inputs);
      if (interpreterNs > 0) {
        for (Map.Entry<String, Double> v : variantNs.entrySet()) {
          notes.add(String.format("example set: %s is %.2fx faster than the pure-Java"
              + " recursive interpreter (CPU time)", v.getKey(), interpreterNs / v.getValue()));
        }
      }
    }
  }

  /**
   * The example set in the pure-Java recursive interpreter (JavaInterpreter,
   * reading the set's JSON form): validated against calcjit's reference
   * backend on the same data, then timed. Returns its CPU ns per evaluation,
   * or 0 when the set's JSON form is not available.
   */
  static double interpreterCase(FeatureSet set, Map<String, float[]> inputs) throws Exception {
    String json = rankingJson();
    if (json == null) {
      notes.add("example set: pure-Java interpreter skipped (no --set-json, no calcjit CLI"
          + " found; pass --cli build/cli/calcjit)");
      return 0;
    }
    JavaInterpreter interpreter = JavaInterpreter.fromJson(json);
    for (Map.Entry<String, float[]> e : inputs.entrySet()) {
      interpreter.bind(e.getKey(), e.getValue());
    }
    float[][] columns = interpreter.evaluate(items);
    List<String> names = interpreter.outputs();
    if (!names.equals(set.schema().outputs())) {
      throw new AssertionError("interpreter outputs differ from the set's: " + names);
    }
    // Validation: every output, every item, against the reference backend.
    long total = 0;
    long within = 0;
    long bitEqual = 0;
    Map<String, Integer> badPerOutput = new LinkedHashMap<>();
    String worst = "";
    double worstError = 0;
    try (Engine engine = Engine.create(set, EngineOptions.of(Backend.REFERENCE));
        Session session = engine.newSession()) {
      for (Map.Entry<String, float[]> e : inputs.entrySet()) {
        session.bindInput(e.getKey(), direct(e.getValue()));
      }
      session.evaluate(items);
      for (int k = 0; k < names.size(); ++k) {
        float[] expected = session.output(names.get(k));
        for (int i = 0; i < items; ++i) {
          float a = columns[k][i];
          float b = expected[i];
          ++total;
          if (Float.floatToIntBits(a) == Float.floatToIntBits(b)) ++bitEqual;
          double error = relativeError(a, b);
          if (error <= 1e-4) {
            ++within;
          } else {
            badPerOutput.merge(names.get(k), 1, Integer::sum);
          }
          if (error > worstError) {
            worstError = error;
            worst = String.format("%s item %d: interpreter %s, reference %s", names.get(k), i,
                Float.toString(a), Float.toString(b));
          }
        }
      }
    }
    notes.add(String.format("example set validation (pure-Java interpreter vs calcjit reference,"
        + " %d outputs x %d items): %d of %d values (%.4f%%) within 1e-4 relative error,"
        + " %d (%.2f%%) bit-equal; largest relative error %.3g (%s)", names.size(), items, within,
        total, 100.0 * within / total, bitEqual, 100.0 * bitEqual / total, worstError,
        worst.isEmpty() ? "none" : worst));
    if (!badPerOutput.isEmpty()) notes.add("  outside 1e-4, per output: " + badPerOutput);
    // Warm-up: 8 s, not 0.3. HotSpot needs 3-4 s of this workload (tens of
    // node classes, each an operator switch over column loops) before the
    // interpreter reaches its steady speed, more on a loaded machine: after
    // 0.3 s it is still 5-7x slower than it will be (seen at 2,000 items).
    long[] evaluations = {0};
    long gc0 = gcMillis();
    Timing t = time(() -> {
      interpreter.evaluate(items);
      ++evaluations[0];
    }, 8_000_000_000L);
    double gcPerEvaluation = (gcMillis() - gc0) * 1e6 / evaluations[0];
    report("example set", "pure-Java recursive interpreter (float[n] per node)", t, items, 0);
    notes.add(String.format("example set: the pure-Java interpreter allocates %.1f MB per"
        + " evaluation; the collectors' time (GarbageCollectorMXBean, warm-up included, not in"
        + " the thread's CPU time): %,.0f ns per evaluation", t.bytesPerEvaluation() / 1e6,
        gcPerEvaluation));
    return t.nsPerEvaluation();
  }

  static long gcMillis() {
    long total = 0;
    for (java.lang.management.GarbageCollectorMXBean gc
        : ManagementFactory.getGarbageCollectorMXBeans()) {
      total += Math.max(0, gc.getCollectionTime());
    }
    return total;
  }

  /** |a - b| / max(|a|, |b|); 0 when equal (NaN equals NaN, inf equals the same inf). */
  static double relativeError(float a, float b) {
    if (a == b || (Float.isNaN(a) && Float.isNaN(b))) return 0;
    if (Float.isNaN(a) || Float.isNaN(b) || Float.isInfinite(a) || Float.isInfinite(b)) {
      return Double.POSITIVE_INFINITY;
    }
    return Math.abs((double) a - b) / Math.max(Math.abs((double) a), Math.abs((double) b));
  }

  /**
   * The example set's proto3 JSON form: --set-json, or what `calcjit print
   * --format json` writes (--cli, by default build/cli/calcjit under --source).
   * The Java API reads JSON but does not write it.
   */
  static String rankingJson() throws IOException, InterruptedException {
    if (setJson != null) return Files.readString(setJson);
    Path tool = cliTool();
    if (tool == null) return null;
    return jsonForm(tool, source.resolve("examples/ranking/ranking.calc"), scratch);
  }

  /** --cli, or build/cli/calcjit under --source when it exists; null if neither. */
  static Path cliTool() {
    Path tool = cli != null ? cli : source.resolve("build/cli/calcjit");
    if (!Files.isExecutable(tool)) {
      if (cli != null) throw new IllegalArgumentException("--cli: not an executable: " + cli);
      return null;
    }
    return tool;
  }

  /** A set file's proto3 JSON form, as `calcjit print --format json` writes it. */
  static String jsonForm(Path tool, Path setFile, Path scratch)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile(scratch, "set", ".json");
    Process process = new ProcessBuilder(tool.toString(), "print", setFile.toString(), "--format",
        "json", "-o", out.toString()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException("calcjit print failed: " + output);
    }
    return Files.readString(out);
  }

  // ---------------------------------------------------------------------------
  // The ASM-compiled JVM design (AsmCompiler) and the 30-feature ranking-like set

  /**
   * The set compiled by AsmCompiler from its JSON form (so it needs the CLI;
   * null, with a note, without one); the compile time goes to the notes.
   */
  static AsmCompiler.CompiledSet asmCompile(String name, Path setFile) throws Exception {
    Path tool = cliTool();
    if (tool == null) {
      notes.add(name + ": ASM-compiled JVM design skipped (it reads the set's JSON form: pass"
          + " --cli build/cli/calcjit)");
      return null;
    }
    JavaInterpreter tree = JavaInterpreter.fromJson(jsonForm(tool, setFile, scratch));
    long t0 = System.nanoTime();
    AsmCompiler.CompiledSet compiled = AsmCompiler.compile(tree);
    notes.add(String.format("%s: ASM compile (bytecode generation and class definition; for"
        + " f_qux, the first, also loading ASM) %.2f ms, class file %,d bytes", name,
        (System.nanoTime() - t0) / 1e6, compiled.classBytes()));
    return compiled;
  }

  /**
   * bench/ranking_like_30.calc on `items` generated items: calcjit's backends
   * (bit-identical to its reference) and the ASM-compiled JVM design (checked
   * within a tolerance in ulps, its distance from calcjit printed).
   */
  static void ranking30Case() throws Exception {
    String name = "ranking30";
    Path setPath = source.resolve("bench/ranking_like_30.calc");
    Map<String, float[]> inputs = ranking30Inputs(items);
    List<String> outputs;
    float[][] reference;
    try (FeatureSet set = FeatureSet.readFile(setPath)) {
      outputs = set.schema().outputs();
      reference = new float[outputs.size()][];
      try (Engine engine = Engine.create(set, EngineOptions.of(Backend.REFERENCE));
          Session session = engine.newSession()) {
        for (Map.Entry<String, float[]> e : inputs.entrySet()) {
          session.bindInput(e.getKey(), e.getValue());
        }
        session.evaluate(items);
        for (int k = 0; k < outputs.size(); ++k) reference[k] = session.output(outputs.get(k));
      }
      for (Backend backend : List.of(Backend.VM, Backend.JIT)) {
        try (Engine engine = Engine.create(set, EngineOptions.of(backend));
            Session session = engine.newSession()) {
          for (Map.Entry<String, float[]> e : inputs.entrySet()) {
            session.bindInput(e.getKey(), direct(e.getValue()));
          }
          Timing t = time(() -> session.evaluate(items));
          for (int k = 0; k < outputs.size(); ++k) {
            check(name + " " + backend + " " + outputs.get(k), reference[k],
                session.output(outputs.get(k)));
          }
          report(name, "calcjit " + backend.name().toLowerCase() + ", direct buffers", t, items,
              0);
        }
      }
    }
    for (String backend : List.of("vm", "jit")) {
      double[] c = runCBench(setPath, backend, inputs, items);
      if (c != null) {
        if ((int) c[1] != Float.floatToRawIntBits(reference[0][items - 1])) {
          throw new AssertionError(name + " C++ " + backend + ": other bits");
        }
        report(name, "calcjit " + backend + " from C++ (C API)",
            new Timing(c[0], c[2], Double.NaN), items, 0);
      }
    }
    AsmCompiler.CompiledSet asm = asmCompile(name, setPath);
    if (asm == null) return;
    if (!asm.outputs().equals(outputs)) throw new AssertionError("ASM outputs: " + asm.outputs());
    for (Map.Entry<String, float[]> e : inputs.entrySet()) asm.bind(e.getKey(), e.getValue());
    Ulps ulps = new Ulps();
    ulps.add(outputs, asm.evaluate(items), reference, items);
    notes.add("ranking30 validation (ASM-compiled JVM design vs calcjit reference, "
        + outputs.size() + " outputs x " + items + " items): " + ulps.summary());
    notes.add("  not bit-equal, per output: " + ulps.differingOutputs());
    if (ulps.maxUlps() > AsmCompilerCheck.RANKING_TOLERANCE_ULPS) {
      throw new AssertionError("ranking30: the ASM design is more than "
          + AsmCompilerCheck.RANKING_TOLERANCE_ULPS + " ulps from calcjit: " + ulps.summary());
    }
    report(name, ASM_VARIANT, time(() -> asm.evaluate(items), ASM_WARM_UP_NS), items, 0);
  }

  /**
   * The 30-feature set's item data, deterministic (SplittableRandom, seed
   * 20261202): plausible marketplace values, with list_price (35%), rating
   * (12%), seller_rating (5%) and delivery_days (6%) missing (NaN) as the set
   * expects; one query: user_price_level 40, user_patience_days 5, ctr_prior
   * 0.025.
   */
  static Map<String, float[]> ranking30Inputs(int n) {
    java.util.SplittableRandom random = new java.util.SplittableRandom(20261202);
    String[] names = {"price", "list_price", "shipping_cost", "rating", "rating_count",
        "seller_rating", "delivery_days", "stock", "impressions", "clicks", "orders",
        "item_age_days", "user_item_affinity", "user_category_affinity", "user_brand_affinity",
        "semantic_score", "text_match"};
    Map<String, float[]> inputs = new LinkedHashMap<>();
    for (String name : names) inputs.put(name, new float[n]);
    for (int i = 0; i < n; ++i) {
      float price = (float) Math.min(5000, Math.max(0.5, Math.exp(3.3 + random.nextGaussian())));
      inputs.get("price")[i] = price;
      double list = random.nextDouble();
      inputs.get("list_price")[i] = list < 0.35 ? Float.NaN
          : list < 0.45 ? price * (float) (0.8 + 0.2 * random.nextDouble())
          : price * (float) (1 + 0.6 * random.nextDouble());
      inputs.get("shipping_cost")[i] = random.nextBoolean() ? 0f
          : (float) (1 + 14 * random.nextDouble());
      inputs.get("rating")[i] = random.nextDouble() < 0.12 ? Float.NaN
          : (float) Math.min(5, Math.max(1, 4.2 + 0.5 * random.nextGaussian()));
      inputs.get("rating_count")[i] = (float) Math.floor(Math.exp(8 * random.nextDouble()) - 1);
      inputs.get("seller_rating")[i] = random.nextDouble() < 0.05 ? Float.NaN
          : (float) (3 + 2 * random.nextDouble());
      inputs.get("delivery_days")[i] = random.nextDouble() < 0.06 ? Float.NaN
          : (float) Math.floor(14 * random.nextDouble());
      inputs.get("stock")[i] = random.nextDouble() < 0.08 ? 0f
          : (float) Math.floor(Math.exp(6 * random.nextDouble()));
      float impressions = (float) Math.floor(Math.exp(2 + 8 * random.nextDouble()));
      float clicks = (float) Math.floor(impressions * 0.08 * random.nextDouble());
      inputs.get("impressions")[i] = impressions;
      inputs.get("clicks")[i] = clicks;
      inputs.get("orders")[i] = (float) Math.floor(clicks * 0.2 * random.nextDouble());
      inputs.get("item_age_days")[i] = (float) (1500 * random.nextDouble());
      inputs.get("user_item_affinity")[i] = (float) random.nextDouble();
      inputs.get("user_category_affinity")[i] = (float) random.nextDouble();
      inputs.get("user_brand_affinity")[i] = (float) random.nextDouble();
      inputs.get("semantic_score")[i] = (float) (2 * random.nextDouble() - 1);
      inputs.get("text_match")[i] = random.nextDouble() < 0.2 ? 0f
          : (float) (12 * random.nextDouble());
    }
    inputs.put("user_price_level", new float[] {40f});
    inputs.put("user_patience_days", new float[] {5f});
    inputs.put("ctr_prior", new float[] {0.025f});
    return inputs;
  }

  /**
   * Each correctly rounded function alone, `f = FN(a)` over 2,000 values of a
   * typical range: the ASM design (java.lang.Math in double) against calcjit's
   * JIT, per call: where the 30-feature set's time goes.
   */
  static void transcendentalCases() throws Exception {
    String[][] cases = {{"exp", "-10", "10"}, {"log", "0.001", "1000"}, {"log1p", "0", "1000"},
        {"sigmoid", "-10", "10"}, {"tanh", "-5", "5"}};
    for (String[] c : cases) {
      String name = c[0] + "(a), a in [" + c[1] + ", " + c[2] + ")";
      String text = "input a;\nf = " + c[0] + "(a);\n";
      float[] a = uniform(items, 99, Float.parseFloat(c[1]), Float.parseFloat(c[2]));
      float[] expected;
      try (FeatureSet set = FeatureSet.fromText(text);
          Engine engine = Engine.create(set, EngineOptions.of(Backend.JIT));
          Session session = engine.newSession()) {
        FloatBuffer out = direct(items);
        session.bindInput("a", direct(a));
        session.bindOutput("f", out);
        Timing t = time(() -> session.evaluate(items));
        expected = toArray(out);
        report(name, "calcjit jit, direct buffers", t, items, 0);
      }
      Path setFile = scratch.resolve(c[0] + ".calc");
      Files.writeString(setFile, text);
      AsmCompiler.CompiledSet asm = asmCompile(name, setFile);
      if (asm == null) continue;
      asm.bind("a", a);
      Ulps ulps = new Ulps();
      ulps.add("f", asm.evaluate(items)[0], expected, items);
      if (ulps.maxUlps() > 1) throw new AssertionError(name + ": ASM " + ulps.summary());
      report(name, ASM_VARIANT, time(() -> asm.evaluate(items), ASM_WARM_UP_NS), items, 0);
    }
  }

  /** Each calcjit variant against the ASM-compiled JVM design, per case, and the goal. */
  static void asmNotes() {
    List<String> names = new ArrayList<>();
    for (String key : measured.keySet()) {
      String name = key.substring(0, key.indexOf(" / "));
      if (!names.contains(name)) names.add(name);
    }
    for (String name : names) {
      Double asm = measured.get(name + " / " + ASM_VARIANT);
      if (asm == null) continue;
      for (Map.Entry<String, Double> m : measured.entrySet()) {
        String prefix = name + " / calcjit ";
        if (!m.getKey().startsWith(prefix)) continue;
        notes.add(String.format("%s: ASM-compiled JVM design / %s = %.2f (CPU time; above 1,"
            + " calcjit is faster)", name, m.getKey().substring(name.length() + 3),
            asm / m.getValue()));
      }
    }
    Double asm = measured.get("ranking30 / " + ASM_VARIANT);
    Double jit = measured.get("ranking30 / calcjit jit, direct buffers");
    Double vm = measured.get("ranking30 / calcjit vm, direct buffers");
    if (asm != null && jit != null && vm != null) {
      double best = asm / Math.min(jit, vm);
      notes.add(String.format("ranking30 goal (issue 15): calcjit at least 12x the ASM-compiled"
          + " JVM design in one JVM: %.2fx (best of vm and jit from Java): %s", best,
          best >= 12 ? "met" : "not met"));
    }
  }

  /** The fixed cost of a call: f_qux on one item from Java and from C++. */
  static void callOverhead(String qux, Map<String, float[]> inputs) throws Exception {
    Map<String, float[]> one = new LinkedHashMap<>();
    for (Map.Entry<String, float[]> e : inputs.entrySet()) {
      one.put(e.getKey(), Arrays.copyOf(e.getValue(), 1));
    }
    try (FeatureSet set = FeatureSet.fromText(qux);
        Engine engine = Engine.create(set, EngineOptions.of(Backend.JIT));
        Session session = engine.newSession()) {
      for (Map.Entry<String, float[]> e : one.entrySet()) {
        session.bindInput(e.getKey(), direct(e.getValue()));
      }
      session.bindOutput("f_qux", direct(1));
      report("f_qux, 1 item", "calcjit jit, direct buffers", time(() -> session.evaluate(1)), 1,
          0);
    }
    double[] c = runCBench(scratch.resolve("f_qux.calc"), "jit", one, 1);
    if (c != null) {
      report("f_qux, 1 item", "calcjit jit from C++ (C API)", new Timing(c[0], c[2], Double.NaN), 1, 0);
    }
  }

  // ---------------------------------------------------------------------------
  // The C++ side

  /** {CPU ns per evaluation, check bits, wall ns}, or null without --c-bench. */
  static double[] runCBench(Path set, String backend, Map<String, float[]> inputs, int n)
      throws IOException, InterruptedException {
    if (cBench == null) return null;
    Path data = scratch.resolve("data.bin");
    int size = 4;
    for (Map.Entry<String, float[]> e : inputs.entrySet()) {
      size += 4 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 8 + 4 * e.getValue().length;
    }
    ByteBuffer bytes = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    bytes.putInt(inputs.size());
    for (Map.Entry<String, float[]> e : inputs.entrySet()) {
      byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
      bytes.putInt(name.length).put(name).putLong(e.getValue().length);
      for (float v : e.getValue()) bytes.putFloat(v);
    }
    Files.write(data, bytes.array());
    Process process = new ProcessBuilder(cBench.toString(), set.toString(), backend,
        data.toString(), Integer.toString(n)).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException("calcjit_c_api_bench failed: " + output);
    }
    double ns = Double.NaN;
    double wall = Double.NaN;
    long bits = 0;
    for (String line : output.split("\n")) {
      if (line.startsWith("cpu_ns_per_evaluation ")) ns = Double.parseDouble(line.substring(22));
      if (line.startsWith("ns_per_evaluation ")) wall = Double.parseDouble(line.substring(18));
      if (line.startsWith("check_bits ")) bits = Long.parseLong(line.substring(11).trim(), 16);
    }
    return new double[] {ns, (int) bits, wall};
  }

  // ---------------------------------------------------------------------------
  // Helpers

  /** A direct buffer whose first float is 64-byte aligned (a cache line, an AVX-512 vector). */
  static FloatBuffer direct(int floats) {
    ByteBuffer bytes = ByteBuffer.allocateDirect(4 * floats + 64);
    int start = (64 - bytes.alignmentOffset(0, 64)) % 64;
    bytes.position(start).limit(start + 4 * floats);
    return bytes.slice().order(ByteOrder.nativeOrder()).asFloatBuffer();
  }

  static FloatBuffer direct(float[] values) {
    FloatBuffer buffer = direct(values.length);
    buffer.put(0, values);
    return buffer;
  }

  static float[] toArray(FloatBuffer buffer) {
    float[] out = new float[buffer.capacity()];
    buffer.get(0, out);
    return out;
  }

  static float[] uniform(int n, long seed, float lo, float hi) {
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    float[] out = new float[n];
    for (int i = 0; i < n; ++i) out[i] = lo + (hi - lo) * (float) random.nextDouble();
    return out;
  }

  static void check(String what, float[] expected, float[] actual) {
    for (int i = 0; i < expected.length; ++i) {
      if (Float.floatToRawIntBits(expected[i]) != Float.floatToRawIntBits(actual[i])
          && !(Float.isNaN(expected[i]) && Float.isNaN(actual[i]))) {
        throw new AssertionError(what + ": item " + i + " is " + actual[i] + ", not "
            + expected[i]);
      }
    }
  }

  static float parseCell(String cell) {
    String t = cell.strip().toLowerCase();
    if (t.isEmpty() || t.equals("nan")) return Float.NaN;
    return Float.parseFloat(t);
  }

  /** Comma-separated rows; items.csv quotes no field that holds a comma. */
  static List<List<String>> readCsv(Path path) throws IOException {
    List<List<String>> out = new ArrayList<>();
    for (String line : Files.readAllLines(path)) {
      if (line.contains("\"")) throw new IllegalStateException("quoted CSV fields: " + line);
      out.add(Arrays.asList(line.split(",", -1)));
    }
    return out;
  }

  /**
   * The classic design: a tree of nodes, each evaluated recursively per item
   * through a virtual call, with the input columns resolved to indices once.
   */
  static final class Interpreter {
    abstract static class Node {
      abstract float eval(float[][] columns, int item);
    }

    static final class Column extends Node {
      final int index;

      Column(int index) {
        this.index = index;
      }

      @Override
      float eval(float[][] columns, int item) {
        return columns[index][item];
      }
    }

    static final class Binary extends Node {
      final char op;
      final Node left;
      final Node right;

      Binary(char op, Node left, Node right) {
        this.op = op;
        this.left = left;
        this.right = right;
      }

      @Override
      float eval(float[][] columns, int item) {
        float a = left.eval(columns, item);
        float b = right.eval(columns, item);
        switch (op) {
          case '+':
            return a + b;
          case '-':
            return a - b;
          case '*':
            return a * b;
          default:
            return a / b;
        }
      }
    }

    static void evaluate(Node root, float[][] columns, float[] out) {
      for (int i = 0; i < out.length; ++i) out[i] = root.eval(columns, i);
    }

    /** + - * / and parentheses over input names, left-associative. */
    static Node parse(String text, List<String> inputs) {
      int[] at = {0};
      Node node = sum(text.replace(";", "").strip(), at, inputs);
      return node;
    }

    private static Node sum(String s, int[] at, List<String> inputs) {
      Node left = product(s, at, inputs);
      for (char c = peek(s, at); c == '+' || c == '-'; c = peek(s, at)) {
        ++at[0];
        left = new Binary(c, left, product(s, at, inputs));
      }
      return left;
    }

    private static Node product(String s, int[] at, List<String> inputs) {
      Node left = primary(s, at, inputs);
      for (char c = peek(s, at); c == '*' || c == '/'; c = peek(s, at)) {
        ++at[0];
        left = new Binary(c, left, primary(s, at, inputs));
      }
      return left;
    }

    private static Node primary(String s, int[] at, List<String> inputs) {
      if (peek(s, at) == '(') {
        ++at[0];
        Node inner = sum(s, at, inputs);
        if (peek(s, at) != ')') throw new IllegalArgumentException("expected ) in " + s);
        ++at[0];
        return inner;
      }
      int start = at[0];
      while (at[0] < s.length() && (Character.isLetterOrDigit(s.charAt(at[0]))
          || s.charAt(at[0]) == '_')) {
        ++at[0];
      }
      String name = s.substring(start, at[0]);
      int index = inputs.indexOf(name);
      if (index < 0) throw new IllegalArgumentException("unknown input '" + name + "'");
      return new Column(index);
    }

    private static char peek(String s, int[] at) {
      while (at[0] < s.length() && s.charAt(at[0]) == ' ') ++at[0];
      return at[0] < s.length() ? s.charAt(at[0]) : '\0';
    }
  }
}
